package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlockedAdd(t *testing.T) {
	var b BlockedConnections
	b.Add("169.254.169.254:80", "link-local", "169.254.169.254 is a link-local address", 1)
	b.Add("10.0.0.7:443", "private", "", 2)
	b.Add("169.254.169.254:80", "other-rule", "a later reason is not kept", 3)
	b.Add("ignored:1", "x", "", 0)
	b.Add("ignored:2", "x", "", -4)
	want := BlockedConnections{Total: 6, Hosts: []BlockedHost{
		{Host: "169.254.169.254:80", Rule: "link-local", Detail: "169.254.169.254 is a link-local address", Count: 4},
		{Host: "10.0.0.7:443", Rule: "private", Count: 2},
	}}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Hosts are listed up to the limit; past it, refusals are only counted,
// and a listed host keeps counting.
func TestBlockedHostLimit(t *testing.T) {
	for _, hosts := range []int{MaxBlockedHosts - 1, MaxBlockedHosts, MaxBlockedHosts + 1} {
		var b BlockedConnections
		for i := range hosts {
			b.Add(fmt.Sprintf("h%d:80", i), "private", "", 1)
		}
		b.Add("h0:80", "private", "", 1)
		if len(b.Hosts) != min(hosts, MaxBlockedHosts) || b.Total != int64(hosts)+1 || b.Hosts[0].Count != 2 {
			t.Errorf("%d hosts: %d listed, total %d, first count %d", hosts, len(b.Hosts), b.Total, b.Hosts[0].Count)
		}
	}
}

// Texts are cut at the limit, not one byte before.
func TestBlockedTextLimit(t *testing.T) {
	for _, n := range []int{MaxBlockedTextBytes - 1, MaxBlockedTextBytes, MaxBlockedTextBytes + 1} {
		var b BlockedConnections
		text := strings.Repeat("a", n)
		b.Add(text, text, text, 1)
		h := b.Hosts[0]
		if len(h.Host) > MaxBlockedTextBytes || len(h.Rule) > MaxBlockedTextBytes || len(h.Detail) > MaxBlockedTextBytes {
			t.Errorf("%d bytes: kept %d, %d, %d", n, len(h.Host), len(h.Rule), len(h.Detail))
		}
		if n <= MaxBlockedTextBytes && (h.Host != text || h.Rule != text || h.Detail != text) {
			t.Errorf("%d bytes were cut", n)
		}
		// The same long host, asked again, is the same entry.
		b.Add(text, "x", "", 1)
		if len(b.Hosts) != 1 || b.Hosts[0].Count != 2 {
			t.Errorf("%d bytes: the host asked twice is %d entries", n, len(b.Hosts))
		}
	}
}

func TestBlockedMerge(t *testing.T) {
	var b BlockedConnections
	b.Add("a:80", "private", "", 1)
	b.Merge(nil)
	b.Merge(&BlockedConnections{Total: 10, Hosts: []BlockedHost{{Host: "a:80", Rule: "private", Count: 2}, {Host: "b:443", Rule: "loopback", Count: 3}}})
	b.Merge(&BlockedConnections{Total: 1, Hosts: []BlockedHost{{Host: "c:80", Rule: "link-local", Count: 1}}})
	// A record whose listed counts exceed its total adds only what it lists.
	b.Merge(&BlockedConnections{Total: 1, Hosts: []BlockedHost{{Host: "d:80", Rule: "private", Count: 2}}})
	want := BlockedConnections{Total: 1 + 10 + 1 + 2, Hosts: []BlockedHost{
		{Host: "a:80", Rule: "private", Count: 3}, {Host: "b:443", Rule: "loopback", Count: 3},
		{Host: "c:80", Rule: "link-local", Count: 1}, {Host: "d:80", Rule: "private", Count: 2},
	}}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBlockedDescribe(t *testing.T) {
	two := &BlockedConnections{Total: 5, Hosts: []BlockedHost{
		{Host: "169.254.169.254:80", Rule: "link-local", Count: 4}, {Host: "10.0.0.7:443", Rule: "private", Count: 1},
	}}
	three := &BlockedConnections{Total: 3, Hosts: []BlockedHost{
		{Host: "a:1", Rule: "r", Count: 1}, {Host: "b:2", Rule: "r", Count: 1}, {Host: "c:3", Rule: "r", Count: 1},
	}}
	tests := []struct {
		b    *BlockedConnections
		n    int
		want string
	}{
		{nil, 3, ""},
		{&BlockedConnections{}, 3, ""},
		{&BlockedConnections{Total: 1, Hosts: []BlockedHost{{Host: "a:80", Rule: "private", Count: 1}}}, 3, "blocked by policy: a:80 (private); 1 connection in all"},
		{two, 3, "blocked by policy: 169.254.169.254:80 (link-local), 10.0.0.7:443 (private); 5 connections in all"},
		{two, 2, "blocked by policy: 169.254.169.254:80 (link-local), 10.0.0.7:443 (private); 5 connections in all"},
		{two, 1, "blocked by policy: 169.254.169.254:80 (link-local) and 1 more host; 5 connections in all"},
		{three, 1, "blocked by policy: a:1 (r) and 2 more hosts; 3 connections in all"},
		{two, 0, "blocked by policy; 5 connections in all"},
		{two, -1, "blocked by policy; 5 connections in all"},
		{&BlockedConnections{Total: 2}, 3, "blocked by policy; 2 connections in all"},
	}
	for _, tt := range tests {
		if got := tt.b.Describe(tt.n); got != tt.want {
			t.Errorf("Describe(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// What the operator keeps of a pod's record: at most n hosts, texts cut,
// no negative count; nothing when nothing was refused.
func TestBlockedBounded(t *testing.T) {
	long := strings.Repeat("x", MaxBlockedTextBytes+10)
	b := &BlockedConnections{Total: 7, Hosts: []BlockedHost{
		{Host: long, Rule: long, Detail: long, Count: -3}, {Host: "b:2", Rule: "r", Count: 2}, {Host: "c:3", Rule: "r", Count: 1},
	}}
	got := b.Bounded(2)
	if got.Total != 7 || len(got.Hosts) != 2 || got.Hosts[0].Count != 0 || got.Hosts[1] != b.Hosts[1] {
		t.Errorf("Bounded(2) = %+v", got)
	}
	for _, s := range []string{got.Hosts[0].Host, got.Hosts[0].Rule, got.Hosts[0].Detail} {
		if len(s) > MaxBlockedTextBytes {
			t.Errorf("a text of %d bytes was kept", len(s))
		}
	}
	if b.Hosts[0].Host != long {
		t.Error("Bounded changed the original")
	}
	if n := len(b.Bounded(3).Hosts); n != 3 {
		t.Errorf("Bounded(3) kept %d hosts, want 3", n)
	}
	if got := b.Bounded(-1); got.Total != 7 || len(got.Hosts) != 0 {
		t.Errorf("Bounded(-1) = %+v, want the total alone", got)
	}
	for _, none := range []*BlockedConnections{nil, {}, {Total: -1, Hosts: b.Hosts}} {
		if got := none.Bounded(2); got != nil {
			t.Errorf("Bounded of %+v = %+v, want nil", none, got)
		}
	}
}

// summary.json names the record blocked_by_policy, and leaves it out when
// nothing was refused.
func TestSummaryBlockedJSON(t *testing.T) {
	data, err := json.Marshal(Summary{BlockedByPolicy: &BlockedConnections{Total: 1, Hosts: []BlockedHost{{Host: "a:80", Rule: "private", Count: 1}}}})
	if err != nil || !strings.Contains(string(data), `"blocked_by_policy":{"total":1,"hosts":[{"host":"a:80","rule":"private","count":1}]}`) {
		t.Errorf("%s, %v", data, err)
	}
	if data, _ := json.Marshal(Summary{}); strings.Contains(string(data), "blocked") {
		t.Errorf("an empty record is written: %s", data)
	}
}
