package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Caps on cwac_get_summary's answer. summary.json is written by the scan
// pod, so its lists may be any length and its texts any size; the answer
// keeps what a summary is for, as the status does (ten top violations),
// and says what it left out.
const (
	maxSummaryViolations   = 10   // as status.summary.topViolations
	maxSummaryMapEntries   = 64   // audit types, impacts, informational audits
	maxSummaryBaseURLs     = 1000 // the most base URLs a scan may have
	maxSummaryAuditFiles   = 64
	maxSummaryOrganisation = 50 // as status.summary.diff.byOrganisation
	maxSummaryBlockedHosts = results.MaxBlockedHosts
	maxSummaryTextBytes    = 1024
)

// capSummary bounds a summary read from a file for an answer, and returns
// a note naming what was cut ("" when nothing was).
func capSummary(s *results.Summary) string {
	var cut []string
	note := func(what string, total, kept int) {
		cut = append(cut, fmt.Sprintf("%d of %d %s", kept, total, what))
	}
	if n := len(s.TopViolations); n > maxSummaryViolations {
		s.TopViolations = s.TopViolations[:maxSummaryViolations]
		note("top violations", n, maxSummaryViolations)
	}
	for i := range s.TopViolations {
		v := &s.TopViolations[i]
		v.ID, v.AuditType, v.Impact = truncate(v.ID, maxCompareNameBytes), truncate(v.AuditType, maxCompareNameBytes), truncate(v.Impact, 64)
		v.Description = truncate(v.Description, maxSummaryTextBytes)
	}
	for _, m := range []struct {
		what string
		m    *map[string]int64
	}{{"audit types", &s.IssuesByAuditType}, {"impacts", &s.IssuesByImpact}, {"informational audits", &s.Informational}} {
		if n := len(*m.m); n > maxSummaryMapEntries {
			*m.m = capCounts(*m.m, maxSummaryMapEntries)
			note(m.what, n, maxSummaryMapEntries)
		} else if n > 0 && longKey(*m.m) {
			*m.m = capCounts(*m.m, maxSummaryMapEntries)
		}
	}
	if n := len(s.BaseURLs); n > maxSummaryBaseURLs {
		s.BaseURLs = s.BaseURLs[:maxSummaryBaseURLs]
		note("base URLs", n, maxSummaryBaseURLs)
	}
	for i := range s.BaseURLs {
		b := &s.BaseURLs[i]
		b.BaseURL = truncate(b.BaseURL, urlpolicy.MaxURLLength)
		b.Organisation, b.Sector = truncate(b.Organisation, maxCompareNameBytes), truncate(b.Sector, maxCompareNameBytes)
	}
	if n := len(s.UnscannedBaseURLs); n > maxSummaryBaseURLs {
		s.UnscannedBaseURLs = s.UnscannedBaseURLs[:maxSummaryBaseURLs]
		note("unscanned base URLs", n, maxSummaryBaseURLs)
	}
	for i, u := range s.UnscannedBaseURLs {
		s.UnscannedBaseURLs[i] = truncate(u, urlpolicy.MaxURLLength)
	}
	if n := len(s.AuditFiles); n > maxSummaryAuditFiles {
		s.AuditFiles = s.AuditFiles[:maxSummaryAuditFiles]
		note("audit files", n, maxSummaryAuditFiles)
	}
	for i, f := range s.AuditFiles {
		s.AuditFiles[i] = truncate(f, maxCompareNameBytes)
	}
	if d := s.Diff; d != nil {
		d.Baseline = truncate(d.Baseline, maxCompareNameBytes)
		d.NewByImpact, d.FixedByImpact = capImpacts(d.NewByImpact), capImpacts(d.FixedByImpact)
		if n := len(d.ByOrganisation); n > maxSummaryOrganisation {
			d.ByOrganisation = d.ByOrganisation[:maxSummaryOrganisation]
			note("organisations in the comparison", n, maxSummaryOrganisation)
		}
		for i := range d.ByOrganisation {
			o := &d.ByOrganisation[i]
			o.Organisation, o.NewByImpact = truncate(o.Organisation, maxCompareNameBytes), capImpacts(o.NewByImpact)
		}
	}
	if b := s.BlockedByPolicy; b != nil {
		if n := len(b.Hosts); n > maxSummaryBlockedHosts {
			b.Hosts = b.Hosts[:maxSummaryBlockedHosts]
			note("blocked hosts", n, maxSummaryBlockedHosts)
		}
		for i := range b.Hosts {
			h := &b.Hosts[i]
			h.Host, h.Rule, h.Detail = truncate(h.Host, urlpolicy.MaxURLLength), truncate(h.Rule, maxCompareNameBytes), truncate(h.Detail, maxSummaryTextBytes)
		}
	}
	capCompleteness(s.Completeness, note)
	if len(cut) == 0 {
		return ""
	}
	return "Capped for the answer: " + strings.Join(cut, ", ") + " shown (summary.json has them all)."
}

// longKey reports whether a map has a key longer than an answer shows.
func longKey(m map[string]int64) bool {
	for k := range m {
		if len(k) > maxCompareNameBytes {
			return true
		}
	}
	return false
}

// capCounts keeps the n largest counts (ties by name), names cut to
// maxCompareNameBytes.
func capCounts(m map[string]int64, n int) map[string]int64 {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make(map[string]int64, min(n, len(keys)))
	for _, k := range keys[:min(n, len(keys))] {
		out[truncate(k, maxCompareNameBytes)] += m[k]
	}
	return out
}

// fitSummary shortens the lists that can still be long after capSummary
// by halves until the answer fits in budget bytes, the least telling
// first (base URLs, then blocked hosts and organisations, top violations
// last), and says so in the note. What cannot be made to fit is left to
// checkAnswerSize.
func fitSummary(out *SummaryOutput, budget int) {
	type list struct {
		what  string
		group int // lists of a group are halved together
		len   func() int
		halve func()
		was   int
	}
	lists := []*list{
		{what: "base URLs", len: func() int { return len(out.BaseURLs) }, halve: func() { out.BaseURLs = out.BaseURLs[:len(out.BaseURLs)/2] }},
		{what: "unscanned base URLs", group: 0, len: func() int { return len(out.UnscannedBaseURLs) },
			halve: func() { out.UnscannedBaseURLs = out.UnscannedBaseURLs[:len(out.UnscannedBaseURLs)/2] }},
	}
	if b := out.BlockedByPolicy; b != nil {
		lists = append(lists, &list{what: "blocked hosts", group: 1, len: func() int { return len(b.Hosts) }, halve: func() { b.Hosts = b.Hosts[:len(b.Hosts)/2] }})
	}
	if d := out.Diff; d != nil {
		lists = append(lists, &list{what: "organisations in the comparison", group: 1, len: func() int { return len(d.ByOrganisation) },
			halve: func() { d.ByOrganisation = d.ByOrganisation[:len(d.ByOrganisation)/2] }})
	}
	if c := out.Completeness; c != nil {
		lists = append(lists, &list{what: "sites in completeness", group: 0, len: func() int { return len(c.Sites) },
			halve: func() { c.Sites = c.Sites[:len(c.Sites)/2] }},
			&list{what: "organisations in completeness", group: 1, len: func() int { return len(c.Organisations) },
				halve: func() { c.Organisations = c.Organisations[:len(c.Organisations)/2] }})
	}
	lists = append(lists, &list{what: "top violations", group: 2, len: func() int { return len(out.TopViolations) },
		halve: func() { out.TopViolations = out.TopViolations[:len(out.TopViolations)/2] }})
	for _, l := range lists {
		l.was = l.len()
	}
	fits := func() bool {
		data, err := json.Marshal(out)
		return err != nil || len(data) <= budget
	}
	for group := range 3 {
		for !fits() {
			left := 0
			for _, l := range lists {
				if l.group == group {
					l.halve()
					left += l.len()
				}
			}
			if left == 0 {
				break
			}
		}
	}
	var cut []string
	for _, l := range lists {
		if n := l.len(); n < l.was {
			cut = append(cut, fmt.Sprintf("%d of %d %s", n, l.was, l.what))
		}
	}
	if len(cut) > 0 {
		out.Note = joinNotes(out.Note, "To fit the answer's size limit (--max-response-bytes), "+strings.Join(cut, ", ")+" are shown.")
	}
}
