package cireport

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/golden"
)

var realOpts = Options{Scan: "real-scan-1", Thresholds: []scanpod.Threshold{{Name: "maxTotalIssues", Value: "10"}}, ToolVersion: "cwac:test"}

func TestSARIFGolden(t *testing.T) {
	data, log := sarifOf(t, realFS(t), realOpts)
	golden.Assert(t, "real-scan-1.sarif", data)
	run := log.Runs[0]
	// The real run has 12 axe issue rows (2 "No issues found" rows aside).
	if len(run.Results) != 12 {
		t.Errorf("%d results, want 12", len(run.Results))
	}
	for _, r := range run.Results {
		if got := run.Tool.Driver.Rules[r.RuleIndex].ID; got != r.RuleID {
			t.Errorf("result of %s points at rule %s", r.RuleID, got)
		}
		loc := r.Locations[0]
		if !strings.HasPrefix(loc.PhysicalLocation.ArtifactLocation.URI, "http://127.0.0.1:8765/") ||
			loc.PhysicalLocation.Region.Snippet.Text == "" || loc.LogicalLocations[0].FullyQualifiedName == "" {
			t.Errorf("result %s lacks its page, HTML or selector: %+v", r.RuleID, loc)
		}
		if r.BaselineState != "" {
			t.Errorf("baseline state %q without a baseline", r.BaselineState)
		}
	}
	var contrast bool
	for _, rule := range run.Tool.Driver.Rules {
		if !strings.HasPrefix(rule.HelpURI, "https://dequeuniversity.com/rules/axe/") {
			t.Errorf("rule %s helpUri %q", rule.ID, rule.HelpURI)
		}
		if rule.ID == "color-contrast" {
			contrast = true
			if len(rule.Properties.WCAG) != 1 || rule.Properties.WCAG[0] != "1.4.3 Contrast (Minimum) (AA)" {
				t.Errorf("color-contrast WCAG %v", rule.Properties.WCAG)
			}
		}
	}
	if !contrast {
		t.Error("no color-contrast rule")
	}
}

func TestSARIFLevels(t *testing.T) {
	for _, tc := range []struct {
		failAt string
		levels map[string]string // impact -> level
	}{
		{"", map[string]string{"critical": "error", "serious": "error", "moderate": "warning", "minor": "note", "": "note"}},
		{"critical", map[string]string{"critical": "error", "serious": "warning", "moderate": "warning", "minor": "note"}},
		{"moderate", map[string]string{"serious": "error", "moderate": "error", "minor": "note"}},
		{"minor", map[string]string{"moderate": "error", "minor": "error", "": "note"}},
	} {
		rank, err := Options{FailAt: tc.failAt}.failRank()
		if err != nil {
			t.Fatal(err)
		}
		sw := &sarifWriter{failRank: rank}
		for impact, want := range tc.levels {
			if got := sw.level(impact); got != want {
				t.Errorf("fail at %q: %q is %q, want %q", tc.failAt, impact, got, want)
			}
		}
	}
}

func TestSARIFBaselineStates(t *testing.T) {
	base, cur := realFS(t), realFS(t)
	header, rows := axeLines(t, base)
	// The baseline lacks the scan's first issue row (new now) and has one
	// on another element the scan lacks (fixed: absent now).
	extra := strings.Replace(rows[0], "/html/body/main/p", "/html/body/footer/p", 1)
	extra = strings.Replace(extra, "ccff8a6995", "0000000000", 1)
	extra = strings.Replace(extra, "<p", "<p class=\"\"gone\"\"", 1)
	setAxe(base, header, append([]string{extra}, rows[1:]...))
	withDiff(t, base, cur)
	_, log := sarifOf(t, cur, realOpts)
	run := log.Runs[0]
	states := map[string]int{}
	for _, r := range run.Results {
		states[r.BaselineState]++
	}
	if want := map[string]int{"new": 1, "unchanged": 11, "absent": 1}; !equalCounts(states, want) {
		t.Errorf("baseline states %v, want %v", states, want)
	}
	if run.Results[0].BaselineState != "new" {
		t.Errorf("first row's state %q, want new", run.Results[0].BaselineState)
	}
	last := run.Results[len(run.Results)-1]
	if last.BaselineState != "absent" || last.Level != "none" ||
		last.Locations[0].LogicalLocations[0].FullyQualifiedName != "/html/body/footer/p" {
		t.Errorf("absent result %+v", last)
	}
	if run.Properties["baseline"] != "base-scan" {
		t.Errorf("run baseline %v", run.Properties["baseline"])
	}
	// The same scan against itself: everything unchanged, nothing absent.
	same := realFS(t)
	withDiff(t, realFS(t), same)
	_, log = sarifOf(t, same, realOpts)
	for _, r := range log.Runs[0].Results {
		if r.BaselineState != "unchanged" {
			t.Errorf("against itself: %s is %q", r.RuleID, r.BaselineState)
		}
	}
}

// TestSARIFBaselineStatesFollowIDs: of two identical elements, one in the
// baseline, the result that keeps the baseline's fingerprint is the one
// marked unchanged, the other new; a diff.json written before rows
// carried ids still gives the states, from its counts.
func TestSARIFBaselineStatesFollowIDs(t *testing.T) {
	base, cur := realFS(t), realFS(t)
	withDiff(t, realFS(t), base) // the baseline's own ids file
	baseFPs := fingerprints(t, base)
	header, rows := axeLines(t, cur)
	setAxe(cur, header, append([]string{rows[0]}, rows...)) // rows[0] twice, the copy first
	withDiff(t, base, cur)
	_, log := sarifOf(t, cur, realOpts)
	states := map[string]int{}
	for _, r := range log.Runs[0].Results {
		_, kept := baseFPs[r.PartialFingerprints[FingerprintKey]]
		if want := map[bool]string{true: "unchanged", false: "new"}[kept]; r.BaselineState != want {
			t.Errorf("%s %s: state %q, but the fingerprint is kept=%v", r.RuleID, r.Locations[0].LogicalLocations[0].FullyQualifiedName, r.BaselineState, kept)
		}
		states[r.BaselineState]++
	}
	if want := map[string]int{"new": 1, "unchanged": 12}; !equalCounts(states, want) {
		t.Errorf("baseline states %v, want %v", states, want)
	}
	// Without ids in diff.json: the same counts.
	doc := cur[results.DiffFile].Data
	cur[results.DiffFile] = &fstest.MapFile{Data: regexp.MustCompile(`"issue_id":"[0-9a-f]{32}"`).ReplaceAll(doc, []byte(`"issue_id":""`))}
	if bytes.Equal(cur[results.DiffFile].Data, doc) {
		t.Fatal("diff.json carries no issue_id to remove")
	}
	_, log = sarifOf(t, cur, realOpts)
	states = map[string]int{}
	for _, r := range log.Runs[0].Results {
		states[r.BaselineState]++
	}
	if want := map[string]int{"new": 1, "unchanged": 12}; !equalCounts(states, want) {
		t.Errorf("from counts: baseline states %v, want %v", states, want)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func fingerprints(t *testing.T, m fstest.MapFS) map[string]string {
	t.Helper()
	_, log := sarifOf(t, m, Options{})
	out := map[string]string{}
	for _, r := range log.Runs[0].Results {
		fp := r.PartialFingerprints[FingerprintKey]
		if len(fp) != 32 {
			t.Fatalf("fingerprint %q", fp)
		}
		if _, dup := out[fp]; dup {
			t.Fatalf("fingerprint %s given twice", fp)
		}
		loc := r.Locations[0]
		out[fp] = loc.PhysicalLocation.ArtifactLocation.URI + " " + loc.LogicalLocations[0].FullyQualifiedName + " " + r.RuleID
	}
	return out
}

func TestFingerprintsStableAcrossScans(t *testing.T) {
	m := realFS(t)
	first := fingerprints(t, m)
	header, rows := axeLines(t, m)

	// Another scan finds the same issues in another order: the same fingerprints.
	reordered := make([]string, 0, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		reordered = append(reordered, rows[i])
	}
	setAxe(m, header, reordered)
	if again := fingerprints(t, m); !equalStrings(first, again) {
		t.Errorf("reordered rows changed fingerprints:\n%v\n%v", first, again)
	}

	// A second identical element on a page is a second issue: a new
	// fingerprint, and the first keeps its own.
	setAxe(m, header, append(append([]string{}, rows...), rows[0]))
	dup := fingerprints(t, m)
	if len(dup) != len(first)+1 {
		t.Errorf("%d fingerprints with a duplicate row, want %d", len(dup), len(first)+1)
	}
	for fp := range first {
		if _, ok := dup[fp]; !ok {
			t.Errorf("fingerprint %s (%s) lost when an identical row was added", fp, first[fp])
		}
	}

	// Another element HTML: another issue.
	changed := strings.Replace(rows[0], "<p", "<p id=\"\"x\"\"", 1)
	setAxe(m, header, append([]string{changed}, rows[1:]...))
	if got := fingerprints(t, m); equalStrings(first, got) {
		t.Error("another element's HTML kept every fingerprint")
	}
}

func equalStrings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSARIFCaps(t *testing.T) {
	_, log := sarifOf(t, realFS(t), Options{MaxResults: 5})
	run := log.Runs[0]
	if len(run.Results) != 5 {
		t.Errorf("%d results, want the cap of 5", len(run.Results))
	}
	if len(run.Invocations[0].Notes) != 1 || !strings.Contains(run.Invocations[0].Notes[0].Message.Text, "7 results left out: a run holds at most 5") {
		t.Errorf("notifications %+v", run.Invocations[0].Notes)
	}
	_, log = sarifOf(t, realFS(t), Options{MaxResults: 12})
	if n := len(log.Runs[0].Invocations[0].Notes); n != 0 || len(log.Runs[0].Results) != 12 {
		t.Errorf("at exactly the cap: %d results, %d notifications", len(log.Runs[0].Results), n)
	}
}

func TestEmptyAndMissingAudit(t *testing.T) {
	m := realFS(t)
	delete(m, AxeAuditFile)
	_, log := sarifOf(t, m, Options{})
	if len(log.Runs[0].Results) != 0 || len(log.Runs[0].Tool.Driver.Rules) != 0 {
		t.Errorf("no audit: %d results, %d rules", len(log.Runs[0].Results), len(log.Runs[0].Tool.Driver.Rules))
	}
	validateSARIF(t, m, Options{})
	if s := string(junitOf(t, m, Options{})); !strings.Contains(s, `tests="0"`) {
		t.Errorf("no audit: JUnit %s", s)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, row, want string
	}{
		{"viewport", `o,s,t,http://a/,http://a/,"{'width': 'x'}",1,1,A,i,d,/p,1,h,u,r,serious,<p>,[],No` + "\n", "row 1: viewport_size"},
		{"issues", `o,s,t,http://a/,http://a/,"{'width': 1, 'height': 2}",1,1,A,i,d,/p,many,h,u,r,serious,<p>,[],No` + "\n", "row 1:"},
		{"tags", `o,s,t,http://a/,http://a/,"{'width': 1, 'height': 2}",1,1,A,i,d,/p,1,h,u,r,serious,<p>,"[1]",No` + "\n", "row 1: tags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := realFS(t)
			header, _ := axeLines(t, m)
			setAxe(m, header, []string{tc.row})
			for name, write := range map[string]func() error{
				"sarif": func() error { return WriteSARIF(context.Background(), &bytes.Buffer{}, m, Options{}) },
				"junit": func() error { return WriteJUnit(context.Background(), &bytes.Buffer{}, m, Options{}) },
			} {
				err := write()
				if err == nil || !strings.Contains(err.Error(), AxeAuditFile+": "+tc.want) {
					t.Errorf("%s: error %v, want one naming %q", name, err, AxeAuditFile+": "+tc.want)
				}
			}
		})
	}
	err := WriteSARIF(context.Background(), &bytes.Buffer{}, realFS(t), Options{FailAt: "severe"})
	if err == nil || err.Error() != `fail-at impact "severe" is not one of critical, serious, moderate, minor` {
		t.Errorf("bad fail-at: %v", err)
	}
	m := realFS(t)
	m["diff.json"] = &fstest.MapFile{Data: []byte(`{"format": "other"}`)}
	if err := WriteSARIF(context.Background(), &bytes.Buffer{}, m, Options{}); err == nil || !strings.HasPrefix(err.Error(), "diff.json: ") {
		t.Errorf("bad diff.json: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteSARIF(ctx, &bytes.Buffer{}, realFS(t), Options{}); err == nil {
		t.Error("a cancelled context wrote SARIF")
	}
	if err := WriteJUnit(ctx, &bytes.Buffer{}, realFS(t), Options{}); err == nil {
		t.Error("a cancelled context wrote JUnit")
	}
}

func TestURIForms(t *testing.T) {
	for _, tc := range []struct{ in, ref, abs string }{
		{"https://a.example/p?q=1", "https://a.example/p?q=1", "https://a.example/p?q=1"},
		{"https://a.example/a page", "https://a.example/a%20page", "https://a.example/a%20page"},
		{"https://a b/", "https:%2F%2Fa%20b%2F", ""},
		{"", "", ""},
		{"/relative", "", ""},
		{"mailto:x@a.example", "", ""},
		{"javascript:alert(1)//https://a.example/", "", ""},
		{" JavaScript://%0aalert(1)", "", ""},
		{"data:text/html,<script>alert(1)</script>", "", ""},
		{"HTTPS://A.EXAMPLE/p", "https://A.EXAMPLE/p", "https://A.EXAMPLE/p"},
	} {
		if got := uriReference(tc.in); got != tc.ref {
			t.Errorf("uriReference(%q) = %q, want %q", tc.in, got, tc.ref)
		}
		if got := absoluteURI(tc.in); got != tc.abs {
			t.Errorf("absoluteURI(%q) = %q, want %q", tc.in, got, tc.abs)
		}
	}
}

// TestSARIFOddCells: cells a validator would refuse as they are (a page URL
// with a space, a help link that is not absolute) are written so the log
// stays valid.
func TestSARIFOddCells(t *testing.T) {
	m := realFS(t)
	header, rows := axeLines(t, m)
	odd := strings.Replace(rows[0], ",http://127.0.0.1:8765/,\"{", ",http://127.0.0.1:8765/a page,\"{", 1)
	odd = strings.Replace(odd, "https://dequeuniversity.com/rules/axe/4.13/color-contrast?application=axeAPI", "not a link", 1)
	if odd == rows[0] {
		t.Fatal("the row was not changed")
	}
	setAxe(m, header, []string{odd})
	_, log := sarifOf(t, m, Options{})
	run := log.Runs[0]
	if got := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "http://127.0.0.1:8765/a%20page" {
		t.Errorf("uri %q", got)
	}
	if got := run.Tool.Driver.Rules[0].HelpURI; got != "" {
		t.Errorf("helpUri %q", got)
	}
	validateSARIF(t, m, Options{})
}
