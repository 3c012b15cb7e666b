package results

import (
	"fmt"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// BlockedConnections are the connections a scan pod's egress proxy refused
// because the scan-target policy refuses where they led: a redirect, a
// refresh, a script, an image or CWAC's own requests. Every refusal is
// counted; the first hosts are listed. summary.json and the termination
// report carry it (nil: nothing was refused).
type BlockedConnections struct {
	// Total counts every refused connection or request, listed or not.
	Total int64 `json:"total"`
	// Hosts are the first MaxBlockedHosts hosts refused, in the order of
	// their first refusal.
	Hosts []BlockedHost `json:"hosts,omitempty"`
}

// BlockedHost is one refused destination.
type BlockedHost struct {
	// Host is where the browser or CWAC asked to connect, host:port as asked.
	Host string `json:"host"`
	// Rule is the policy's rule that refused it (urlpolicy's rule names),
	// Detail why, as of the first refusal.
	Rule   string `json:"rule"`
	Detail string `json:"detail,omitempty"`
	// Count is how many times it was refused.
	Count int64 `json:"count"`
}

// Bounds of a record of refusals: a hostile page can ask for any number of
// hosts, each with a long name, and the record must stay small.
const (
	// MaxBlockedHosts is how many distinct hosts are listed; refusals of
	// others are counted in Total only.
	MaxBlockedHosts = 100
	// MaxBlockedTextBytes bounds a listed host, rule and detail each.
	MaxBlockedTextBytes = 256
)

// Add counts n refusals of host for rule (detail says why): into the
// host's entry when it is listed, else into a new entry while fewer than
// MaxBlockedHosts are, else into Total alone.
func (b *BlockedConnections) Add(host, rule, detail string, n int64) {
	if n <= 0 {
		return
	}
	b.Total += n
	host = textcap.Head(host, MaxBlockedTextBytes)
	for i := range b.Hosts {
		if b.Hosts[i].Host == host {
			b.Hosts[i].Count += n
			return
		}
	}
	if len(b.Hosts) < MaxBlockedHosts {
		b.Hosts = append(b.Hosts, BlockedHost{
			Host: host, Rule: textcap.Head(rule, MaxBlockedTextBytes), Detail: textcap.Head(detail, MaxBlockedTextBytes), Count: n,
		})
	}
}

// Merge adds another record's refusals (a shard's) to b: its listed hosts
// as Add counts them, and the refusals it counted without listing.
func (b *BlockedConnections) Merge(o *BlockedConnections) {
	if o == nil {
		return
	}
	unlisted := o.Total
	for _, h := range o.Hosts {
		b.Add(h.Host, h.Rule, h.Detail, h.Count)
		unlisted -= h.Count
	}
	b.Total += max(unlisted, 0)
}

// Describe says what was refused, for people, naming at most n hosts:
// "blocked by policy: 169.254.169.254:80 (link-local), 10.0.0.7:443
// (private) and 3 more hosts; 9 connections in all".
func (b *BlockedConnections) Describe(n int) string {
	if b == nil || b.Total <= 0 {
		return ""
	}
	text := "blocked by policy"
	if listed := b.Hosts[:min(max(n, 0), len(b.Hosts))]; len(listed) > 0 {
		parts := make([]string, 0, len(listed))
		for _, h := range listed {
			parts = append(parts, h.Host+" ("+h.Rule+")")
		}
		text += ": " + strings.Join(parts, ", ")
		if more := len(b.Hosts) - len(listed); more > 0 {
			text += fmt.Sprintf(" and %d more %s", more, plural(more, "host", "hosts"))
		}
	}
	return fmt.Sprintf("%s; %d %s in all", text, b.Total, plural(int(min(b.Total, 2)), "connection", "connections"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bounded is a copy of b holding at most n hosts, each text cut to
// MaxBlockedTextBytes and no count below zero: what the operator keeps of
// a record a scan pod wrote, which it does not trust to be small.
func (b *BlockedConnections) Bounded(n int) *BlockedConnections {
	if b == nil || b.Total <= 0 {
		return nil
	}
	out := &BlockedConnections{Total: b.Total}
	for _, h := range b.Hosts[:min(max(n, 0), len(b.Hosts))] {
		out.Hosts = append(out.Hosts, BlockedHost{
			Host: textcap.Head(h.Host, MaxBlockedTextBytes), Rule: textcap.Head(h.Rule, MaxBlockedTextBytes),
			Detail: textcap.Head(h.Detail, MaxBlockedTextBytes), Count: max(h.Count, 0),
		})
	}
	return out
}
