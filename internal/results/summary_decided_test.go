package results

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// routedSummary feeds the summary builder the rows of a walk, each row
// decided sends to DecidedRow and the others to VisitRow, as the runner's
// walk does once the CI reports have judged each row. It is no
// FileVisitor: each of the builder's entries starts a file on its own.
type routedSummary struct {
	b       *SummaryBuilder
	decided func(file string, r *Reader, row Row) bool
}

func (s routedSummary) VisitRow(file string, r *Reader, row Row) error {
	if s.decided(file, r, row) {
		return s.b.DecidedRow(file, r, row)
	}
	return s.b.VisitRow(file, r, row)
}

func summaryRouted(t *testing.T, dir string, opts Options, decided func(file string, r *Reader, row Row) bool) *Summary {
	t.Helper()
	b := NewSummaryBuilder(opts)
	if err := Walk(context.Background(), os.DirFS(dir), routedSummary{b: b, decided: decided}); err != nil {
		t.Fatal(err)
	}
	return b.Summary()
}

func ruleIs(id string) func(string, *Reader, Row) bool {
	return func(file string, r *Reader, row Row) bool {
		return file == "axe_core_audit.csv" && row.Field(r.Column("id")) == id
	}
}

// TestDecidedRowsLeaveCounts: the issues of decided rows are counted apart,
// in no total, audit, impact or rule count; everything else in the
// summary (pages, completeness, informational counts) is as without them.
func TestDecidedRowsLeaveCounts(t *testing.T) {
	none := func(string, *Reader, Row) bool { return false }
	plain := summaryRouted(t, realScan, Options{}, none)
	if plain.DecidedIssues != 0 {
		t.Fatalf("nothing decided, yet %d decided issues", plain.DecidedIssues)
	}
	var imageAlt Violation
	for _, v := range plain.TopViolations {
		if v.ID == "image-alt" {
			imageAlt = v
		}
	}
	if imageAlt.Count == 0 {
		t.Fatal("the real scan has no image-alt issues to decide")
	}
	got := summaryRouted(t, realScan, Options{}, ruleIs("image-alt"))
	want := *plain
	want.TotalIssues -= imageAlt.Count
	want.IssuesByAuditType = map[string]int64{"axe_core_audit": 12 - imageAlt.Count, "reflow_audit": 1, "focus_indicator_audit": 4}
	want.IssuesByImpact = map[string]int64{"critical": plain.IssuesByImpact["critical"] - imageAlt.Count, "serious": plain.IssuesByImpact["serious"]}
	want.TopViolations = nil
	for _, v := range plain.TopViolations {
		if v.ID != "image-alt" {
			want.TopViolations = append(want.TopViolations, v)
		}
	}
	want.DecidedIssues = imageAlt.Count
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("image-alt decided (-want +got):\n%s", diff)
	}
}

// TestDecidedRowsStillAuditPages: a page whose only audit rows are decided
// was audited all the same, and the completeness of every site and
// organisation is what it is with nothing decided; rows that are not
// issues (passing rows, informational audits, CWAC's other files) count
// as ever when they are passed as decided.
func TestDecidedRowsStillAuditPages(t *testing.T) {
	// The mixed scan without its title audit, whose rows audit every
	// page: here a page with reflow issues is audited by them alone.
	dir := t.TempDir()
	entries, err := os.ReadDir(completenessMixed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "title_audit.csv" {
			continue
		}
		data, err := os.ReadFile(completenessMixed + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/"+e.Name(), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Sites: mixedSites}
	plain := summaryRouted(t, dir, opts, func(string, *Reader, Row) bool { return false })
	all := summaryRouted(t, dir, opts, func(string, *Reader, Row) bool { return true })
	if plain.TotalIssues == 0 {
		t.Fatal("the mixed scan has no issues to decide")
	}
	want := *plain
	want.DecidedIssues, want.TotalIssues = plain.TotalIssues, 0
	want.IssuesByImpact, want.TopViolations = map[string]int64{}, []Violation{}
	want.IssuesByAuditType = map[string]int64{}
	for audit := range plain.IssuesByAuditType {
		want.IssuesByAuditType[audit] = 0
	}
	if diff := cmp.Diff(&want, all); diff != "" {
		t.Errorf("every row decided (-want +got):\n%s", diff)
	}
}

// TestDecidedRowRefusesABadCount: a decided row's num_issues is read as
// strictly as any other row's.
func TestDecidedRowRefusesABadCount(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/axe_core_audit.csv", []byte(axeCSV([3]string{"image-alt", "critical", "many"})), 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewSummaryBuilder(Options{})
	err := Walk(context.Background(), os.DirFS(dir), routedSummary{b: b, decided: ruleIs("image-alt")})
	if err == nil {
		t.Fatalf("a decided row of num_issues %q was read: %+v", "many", b.Summary())
	}
}

// TestDecidedRowWithoutIssues: a passing row passed as decided is counted
// as VisitRow counts it (an audit whose rows found nothing is not listed).
func TestDecidedRowWithoutIssues(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/axe_core_audit.csv", []byte(axeCSV([3]string{"image-alt", "critical", "0"})), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := summaryRouted(t, dir, Options{}, func(string, *Reader, Row) bool { return false })
	got := summaryRouted(t, dir, Options{}, ruleIs("image-alt"))
	if diff := cmp.Diff(plain, got); diff != "" || got.DecidedIssues != 0 || len(got.IssuesByAuditType) != 0 {
		t.Errorf("a passing row decided (-plain +decided):\n%s", diff)
	}
}
