package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// TestScanCollectorReadsLatestSummaries: with Summary set, the latest
// Complete scan of each stream is reported from the summary read, not the
// listed one (the operator's cache keeps only part of a finished scan's);
// it is read once per version of that scan, again when the version or the
// latest scan changes, and a failed read reports only the completion time.
func TestScanCollectorReadsLatestSummaries(t *testing.T) {
	slim := &cwacv1alpha1.ScanSummary{PagesScanned: 3} // what the cache keeps
	whole := &cwacv1alpha1.ScanSummary{TotalIssues: 9, PagesScanned: 3, IssuesByImpact: map[string]int64{"critical": 2},
		Diff: &cwacv1alpha1.ScanDiff{New: 4, Fixed: 1, ByOrganisation: []cwacv1alpha1.OrganisationDiff{{Organisation: "Ministry A", New: 4}}}}
	older := complete(nightly(scan("a", "nightly-1", "")), 5, slim)
	latest := complete(nightly(scan("a", "nightly-2", "")), 9, slim)
	latest.UID, latest.ResourceVersion = "uid-2", "7"
	scans := []cwacv1alpha1.CwacScan{older, latest}
	var reads []string
	var fail error
	var heard []error
	c := &ScanCollector{
		List: func(context.Context) ([]*cwacv1alpha1.CwacScan, error) { return pointers(scans), nil },
		Summary: func(_ context.Context, s *cwacv1alpha1.CwacScan) (*cwacv1alpha1.ScanSummary, error) {
			reads = append(reads, s.Name+"@"+s.ResourceVersion)
			return whole, fail
		},
		OnError: func(err error) { heard = append(heard, err) },
	}
	want := func(step, expected string, names ...string) {
		t.Helper()
		if err := testutil.CollectAndCompare(c, strings.NewReader(expected), names...); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	const wholeFigures = `
# HELP cwac_latest_scan_total_issues All issues (every audit) of the latest Complete scan of each schedule, but those a decision covers.
# TYPE cwac_latest_scan_total_issues gauge
cwac_latest_scan_total_issues{namespace="a",schedule="nightly"} 9
# HELP cwac_latest_scan_new_issues_by_organisation New issues of the latest Complete scan of each schedule, for its 10 organisations with the most new issues.
# TYPE cwac_latest_scan_new_issues_by_organisation gauge
cwac_latest_scan_new_issues_by_organisation{namespace="a",organisation="Ministry A",schedule="nightly"} 4
`
	names := []string{"cwac_latest_scan_total_issues", "cwac_latest_scan_new_issues_by_organisation"}
	want("first scrape", wholeFigures, names...)
	want("second scrape", wholeFigures, names...)
	if got := strings.Join(reads, " "); got != "nightly-2@7" {
		t.Errorf("summaries read: %q, want the latest scan's once", got)
	}

	scans[1].ResourceVersion = "8" // the latest scan changed (say, a label)
	want("after a new version", wholeFigures, names...)
	if got := strings.Join(reads, " "); got != "nightly-2@7 nightly-2@8" {
		t.Errorf("summaries read: %q, want the new version read again", got)
	}

	fail = errors.New("the API server is away")
	scans[1].ResourceVersion = "9"
	want("a failed read", "", names...)
	if n := testutil.CollectAndCount(c, "cwac_latest_scan_completion_timestamp_seconds"); n != 1 {
		t.Errorf("%d completion times after a failed read, want 1", n)
	}
	if len(heard) == 0 || !errors.Is(heard[0], fail) {
		t.Errorf("OnError heard %v, want the read's error", heard)
	}

	fail = nil
	scans = []cwacv1alpha1.CwacScan{complete(scan("b", "adhoc", ""), 2, slim)} // the schedule's scans are gone
	reads = nil
	want("another stream", `
# HELP cwac_latest_scan_total_issues All issues (every audit) of the latest Complete scan of each schedule, but those a decision covers.
# TYPE cwac_latest_scan_total_issues gauge
cwac_latest_scan_total_issues{namespace="b",schedule="(none)"} 9
`, "cwac_latest_scan_total_issues")
	if len(c.latest) != 1 {
		t.Errorf("%d streams remembered, want only the one left", len(c.latest))
	}
}

// TestScanCollectorWithoutSummaryReader: without Summary the listed
// summaries are reported as they are, and a scan without one reports only
// its completion time.
func TestScanCollectorWithoutSummaryReader(t *testing.T) {
	c := collector([]cwacv1alpha1.CwacScan{complete(scan("a", "s", ""), 2, nil)}, nil)
	if n := testutil.CollectAndCount(c, "cwac_latest_scan_total_issues"); n != 0 {
		t.Errorf("%d total-issue series for a scan without a summary, want 0", n)
	}
	if n := testutil.CollectAndCount(c, "cwac_latest_scan_completion_timestamp_seconds"); n != 1 {
		t.Errorf("%d completion times, want 1", n)
	}
}
