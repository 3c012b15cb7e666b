package results

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each bound of what a SummaryBuilder keeps at its limit and one past it:
// rules (then "(other rules)"), audit types and impacts (then "(other)"),
// base URLs listed (their pages still counted), URLs told apart (further
// ones counted), and the texts cut.
func TestSummaryBuilderBounds(t *testing.T) {
	rulesCSV := func(n int) string {
		rows := make([][3]string, n)
		for i := range rows {
			rows[i] = [3]string{fmt.Sprintf("rule-%05d", i), "serious", "2"}
		}
		return axeCSV(rows...)
	}
	for _, n := range []int{MaxSummaryRules, MaxSummaryRules + 1, MaxSummaryRules + 3} {
		s := summarise(t, map[string]string{"axe_core_audit.csv": rulesCSV(n)}, Options{})
		var other *Violation
		for i, v := range s.TopViolations {
			if v.ID == OtherRulesID {
				other = &s.TopViolations[i]
			}
		}
		past := n - MaxSummaryRules
		switch {
		case past == 0 && other != nil:
			t.Errorf("%d rules: an %q entry", n, OtherRulesID)
		case past > 0 && (other == nil || other.Count != int64(2*past) || other.AuditType != OtherKey):
			t.Errorf("%d rules: %q = %+v, want %d issues", n, OtherRulesID, other, 2*past)
		}
		if s.TotalIssues != int64(2*n) {
			t.Errorf("%d rules: %d issues in all, want %d", n, s.TotalIssues, 2*n)
		}
	}

	impactsCSV := func(n int) string {
		rows := make([][3]string, n)
		for i := range rows {
			rows[i] = [3]string{"r", fmt.Sprintf("impact-%03d", i), "1"}
		}
		return axeCSV(rows...)
	}
	for _, n := range []int{MaxSummaryKeys, MaxSummaryKeys + 1} {
		s := summarise(t, map[string]string{"axe_core_audit.csv": impactsCSV(n)}, Options{})
		if got, want := len(s.IssuesByImpact), min(n, MaxSummaryKeys+1); got != want || (n > MaxSummaryKeys) != (s.IssuesByImpact[OtherKey] == 1) {
			t.Errorf("%d impacts: %d kept (want %d), other %d", n, got, want, s.IssuesByImpact[OtherKey])
		}
	}
	audits := func(n int, header string) map[string]string {
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("audit%03d.csv", i)] = header + "x,1\r\n"
		}
		return files
	}
	for _, n := range []int{MaxSummaryKeys, MaxSummaryKeys + 1} {
		s := summarise(t, audits(n, "id,num_issues\r\n"), Options{})
		if len(s.IssuesByAuditType) != min(n, MaxSummaryKeys+1) || (n > MaxSummaryKeys) != (s.IssuesByAuditType[OtherKey] == 1) ||
			len(s.AuditFiles) != min(n, MaxSummaryKeys) {
			t.Errorf("%d issue audits: %d kept, other %d, %d files listed", n, len(s.IssuesByAuditType), s.IssuesByAuditType[OtherKey], len(s.AuditFiles))
		}
		s = summarise(t, audits(n, "title,x\r\n"), Options{})
		if len(s.Informational) != min(n, MaxSummaryKeys+1) || (n > MaxSummaryKeys) != (s.Informational[OtherKey] == 1) {
			t.Errorf("%d informational audits: %d kept, other %d", n, len(s.Informational), s.Informational[OtherKey])
		}
	}

	pagesCSV := func(n int) string {
		var b strings.Builder
		b.WriteString("organisation,sector,base_url,number_of_pages\r\n")
		for i := range n {
			fmt.Fprintf(&b, "%s,s,https://s%d.example/,%d\r\n", strings.Repeat("o", 300), i, i%2)
		}
		return b.String()
	}
	for _, n := range []int{MaxSummaryBaseURLs, MaxSummaryBaseURLs + 1} {
		s := summarise(t, map[string]string{PagesScannedFile: pagesCSV(n)}, Options{})
		if len(s.BaseURLs) != MaxSummaryBaseURLs || s.PagesScanned != n/2 || len(s.UnscannedBaseURLs) != (MaxSummaryBaseURLs+1)/2 {
			t.Errorf("%d base URLs: %d listed, %d pages, %d unscanned", n, len(s.BaseURLs), s.PagesScanned, len(s.UnscannedBaseURLs))
		}
		if len(s.BaseURLs[0].Organisation) > maxRuleIDBytes {
			t.Errorf("an organisation of %d bytes kept", len(s.BaseURLs[0].Organisation))
		}
	}

}

// URLs are told apart up to MaxSummaryURLs; past it every row counts.
func TestSummaryBuilderURLsBound(t *testing.T) {
	defer func(old int) { MaxSummaryURLs = old }(MaxSummaryURLs)
	MaxSummaryURLs = 3
	for _, tt := range []struct {
		urls []string
		want int
	}{
		{[]string{"a", "b", "a", "c"}, 3},           // at the limit: told apart
		{[]string{"a", "b", "c", "d", "a", "e"}, 5}, // past it: d and e counted, a seen
		{[]string{"a", "b", "c", "d", "d"}, 5},      // past it, a URL again counts again
	} {
		s := summarise(t, map[string]string{AuditLogFile: "url\r\n" + strings.Join(tt.urls, "\r\n") + "\r\n"}, Options{})
		if s.URLsScanned != tt.want {
			t.Errorf("URLs %q: %d scanned, want %d", tt.urls, s.URLsScanned, tt.want)
		}
	}
}

// Long texts are cut: rule ids, their descriptions.
func TestSummaryBuilderCutsTexts(t *testing.T) {
	id, help := strings.Repeat("i", 5000), strings.Repeat("h", 5000)
	s := summarise(t, map[string]string{"axe_core_audit.csv": "id,impact,num_issues,help\r\n" + id + ",serious,1," + help + "\r\n"}, Options{})
	if v := s.TopViolations[0]; len(v.ID) > maxRuleIDBytes || len(v.Description) > maxTextBytes {
		t.Errorf("kept an id of %d bytes and a description of %d", len(v.ID), len(v.Description))
	}
}

// peakHeapDuring runs fn and returns how far the heap's live objects rose
// above where they were, sampled every millisecond (runtime/metrics reads
// without stopping the world).
func peakHeapDuring(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		for {
			if v := read(); v > peak {
				peak = v
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	if v := read(); v > peak {
		peak = v
	}
	if peak < base {
		return 0
	}
	return peak - base
}

// The planted CSV of issue 20, scaled down: 200,000 distinct rule ids
// (the summary took 90 MB of the MCP server's 281). The summary keeps
// MaxSummaryRules of them, so the heap stays within a few megabytes.
func TestSummaryOfManyDistinctRules(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "axe_core_audit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintln(f, "id,impact,num_issues,help"); err != nil {
		t.Fatal(err)
	}
	for i := range 200_000 {
		if _, err := fmt.Fprintf(f, "rule-%d,serious,1,help for rule %d %s\n", i, i, strings.Repeat("x", 100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var s *Summary
	grew := peakHeapDuring(func() {
		if s, err = SummarizeFS(os.DirFS(dir), Options{}); err != nil {
			t.Error(err)
		}
	})
	if s == nil || s.TotalIssues != 200_000 || s.TopViolations[0].ID != OtherRulesID {
		t.Fatalf("summary: %+v", s)
	}
	if grew > 16<<20 {
		t.Errorf("the heap grew by %d MiB summarising 200,000 distinct rules", grew>>20)
	}
	t.Logf("heap grew by %.1f MiB at most", float64(grew)/(1<<20))
}
