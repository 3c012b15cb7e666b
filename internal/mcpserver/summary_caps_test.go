package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Each list and text of a summary read from a file is capped for the
// answer, at its limit (kept whole, no note) and one past it (cut, named
// in the note).
func TestCapSummary(t *testing.T) {
	long := strings.Repeat("x", 5000)
	build := func(n int) *results.Summary {
		s := &results.Summary{IssuesByAuditType: map[string]int64{}, IssuesByImpact: map[string]int64{}, Informational: map[string]int64{},
			Diff: &results.DiffCounts{NewByImpact: map[string]int64{}}, BlockedByPolicy: &results.BlockedConnections{}}
		for i := range n {
			s.TopViolations = append(s.TopViolations, results.Violation{ID: long, Description: long, Count: int64(n - i)})
			s.BaseURLs = append(s.BaseURLs, results.BaseURLPages{BaseURL: long, Organisation: long})
			s.UnscannedBaseURLs = append(s.UnscannedBaseURLs, long)
			s.AuditFiles = append(s.AuditFiles, long)
			s.Diff.ByOrganisation = append(s.Diff.ByOrganisation, results.OrganisationChange{Organisation: long})
			s.BlockedByPolicy.Hosts = append(s.BlockedByPolicy.Hosts, results.BlockedHost{Host: long, Detail: long})
			key := fmt.Sprintf("k%05d", i)
			s.IssuesByAuditType[key], s.IssuesByImpact[key], s.Informational[key] = int64(i), int64(i), int64(i)
		}
		return s
	}
	tests := []struct {
		what  string
		limit int
		count func(*results.Summary) int
	}{
		{"top violations", maxSummaryViolations, func(s *results.Summary) int { return len(s.TopViolations) }},
		{"audit types", maxSummaryMapEntries, func(s *results.Summary) int { return len(s.IssuesByAuditType) }},
		{"impacts", maxSummaryMapEntries, func(s *results.Summary) int { return len(s.IssuesByImpact) }},
		{"informational audits", maxSummaryMapEntries, func(s *results.Summary) int { return len(s.Informational) }},
		{"base URLs", maxSummaryBaseURLs, func(s *results.Summary) int { return len(s.BaseURLs) }},
		{"unscanned base URLs", maxSummaryBaseURLs, func(s *results.Summary) int { return len(s.UnscannedBaseURLs) }},
		{"audit files", maxSummaryAuditFiles, func(s *results.Summary) int { return len(s.AuditFiles) }},
		{"organisations in the comparison", maxSummaryOrganisation, func(s *results.Summary) int { return len(s.Diff.ByOrganisation) }},
		{"blocked hosts", maxSummaryBlockedHosts, func(s *results.Summary) int { return len(s.BlockedByPolicy.Hosts) }},
	}
	for _, tt := range tests {
		for _, n := range []int{tt.limit, tt.limit + 1} {
			s := build(n)
			note := capSummary(s)
			if got := tt.count(s); got != tt.limit {
				t.Errorf("%s: %d kept of %d, want %d", tt.what, got, n, tt.limit)
			}
			cut := fmt.Sprintf("%d of %d %s", tt.limit, n, tt.what)
			if strings.Contains(note, cut) != (n > tt.limit) {
				t.Errorf("%s, %d: note %q, cut named: want %v", tt.what, n, note, n > tt.limit)
			}
		}
	}
	// Texts are cut, and the largest counts kept, ties by name.
	s := build(maxSummaryBaseURLs + 1)
	capSummary(s)
	if v := s.TopViolations[0]; len(v.ID) > maxCompareNameBytes || len(v.Description) > maxSummaryTextBytes || v.Count != int64(maxSummaryBaseURLs+1) {
		t.Errorf("violation kept: id %d bytes, description %d, count %d", len(v.ID), len(v.Description), v.Count)
	}
	if len(s.BaseURLs[0].BaseURL) > urlpolicy.MaxURLLength || len(s.UnscannedBaseURLs[0]) > urlpolicy.MaxURLLength || len(s.AuditFiles[0]) > maxCompareNameBytes ||
		len(s.Diff.ByOrganisation[0].Organisation) > maxCompareNameBytes || len(s.BlockedByPolicy.Hosts[0].Detail) > maxSummaryTextBytes {
		t.Error("a long text was kept whole")
	}
	if _, ok := s.IssuesByAuditType[fmt.Sprintf("k%05d", maxSummaryBaseURLs)]; !ok || len(s.IssuesByAuditType) != maxSummaryMapEntries {
		t.Errorf("the largest counts were not the ones kept: %d kept", len(s.IssuesByAuditType))
	}
	if got := capCounts(map[string]int64{"b": 1, "a": 1, "c": 2}, 2); len(got) != 2 || got["c"] != 2 || got["a"] != 1 {
		t.Errorf("capCounts = %v, want c and a (ties by name)", got)
	}
	longKeys := map[string]int64{long: 1}
	one := &results.Summary{IssuesByImpact: longKeys}
	if note := capSummary(one); note != "" || len(one.IssuesByImpact) != 1 {
		t.Errorf("a long key within the count: note %q, %v", note, one.IssuesByImpact)
	}
	for k := range one.IssuesByImpact {
		if len(k) > maxCompareNameBytes {
			t.Errorf("a key of %d bytes kept", len(k))
		}
	}
	// A summary at every cap is made to fit the answer size by halving its
	// base URL lists (and, for a small budget, then the blocked hosts and
	// organisations), the top violations last, which the note says.
	for _, budget := range []int{512 << 10, 64 << 10} {
		checkFitted(t, budget, build(maxSummaryBaseURLs+1))
	}
	small := SummaryOutput{Summary: results.Summary{BaseURLs: []results.BaseURLPages{{BaseURL: "https://a/"}}}}
	if fitSummary(&small, 512<<10); len(small.BaseURLs) != 1 || small.Note != "" {
		t.Errorf("a summary that fits was changed: %+v", small)
	}
	tiny := SummaryOutput{Summary: results.Summary{BaseURLs: []results.BaseURLPages{{BaseURL: "https://a/"}}}}
	if fitSummary(&tiny, 10); len(tiny.BaseURLs) != 0 || !strings.HasSuffix(tiny.Note, "0 of 1 base URLs are shown.") {
		t.Errorf("a budget nothing fits: %+v", tiny)
	}
	if empty := (&results.Summary{}); capSummary(empty) != "" {
		t.Error("an empty summary got a note")
	}
}

// An organisation's new issues by impact, read from a file, keep axe's
// impacts only when they are past the count or a name is past its length.
func TestCapSummaryOrganisationImpacts(t *testing.T) {
	many := map[string]int64{results.ImpactCritical: 1}
	for i := range maxCompareImpacts {
		many[fmt.Sprint("i", i)] = 1
	}
	longName := map[string]int64{results.ImpactMinor: 2, strings.Repeat("m", maxImpactNameBytes+1): 3}
	within := map[string]int64{strings.Repeat("m", maxImpactNameBytes): 1, "x": 2}
	s := &results.Summary{Diff: &results.DiffCounts{ByOrganisation: []results.OrganisationChange{
		{Organisation: "a", NewByImpact: many}, {Organisation: "b", NewByImpact: longName}, {Organisation: "c", NewByImpact: maps.Clone(within)},
	}}}
	capSummary(s)
	for i, want := range []map[string]int64{{results.ImpactCritical: 1}, {results.ImpactMinor: 2}, within} {
		if got := s.Diff.ByOrganisation[i].NewByImpact; !maps.Equal(got, want) {
			t.Errorf("organisation %d: new by impact %v, want %v", i, got, want)
		}
	}
}

// Every answer past MaxResponseBytes is refused, naming the flag; one at it passes.
func TestCheckAnswerSize(t *testing.T) {
	s := &Server{cfg: Config{MaxResponseBytes: 100}}
	if err := s.checkAnswerSize(100); err != nil {
		t.Errorf("an answer at the limit: %v", err)
	}
	if err := s.checkAnswerSize(101); err == nil || !strings.Contains(err.Error(), "101 bytes, more than this server's limit of 100 (--max-response-bytes)") {
		t.Errorf("an answer one past the limit: %v", err)
	}
}

// checkFitted fits a summary at every cap into budget and checks what was kept.
func checkFitted(t *testing.T, budget int, s *results.Summary) {
	t.Helper()
	out := SummaryOutput{Summary: *s}
	out.Note = capSummary(&out.Summary)
	fitSummary(&out, budget)
	data, err := json.Marshal(out)
	fitNote := fmt.Sprintf("To fit the answer's size limit (--max-response-bytes), %d of %d base URLs, ", len(out.BaseURLs), maxSummaryBaseURLs)
	switch {
	case err != nil || len(data) > budget:
		t.Errorf("budget %d: %d bytes (%v)", budget, len(data), err)
	case len(out.BaseURLs) >= maxSummaryBaseURLs || (budget == 512<<10) != (len(out.BaseURLs) > 0):
		t.Errorf("budget %d: %d base URLs kept", budget, len(out.BaseURLs))
	case !strings.Contains(out.Note, fitNote) || (budget == 64<<10) != strings.Contains(out.Note, "of 100 blocked hosts"):
		t.Errorf("budget %d: note %q", budget, out.Note)
	case len(out.TopViolations) != maxSummaryViolations:
		t.Errorf("budget %d: %d top violations kept", budget, len(out.TopViolations))
	}
}
