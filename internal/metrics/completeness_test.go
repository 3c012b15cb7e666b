package metrics

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// The latest Complete scan's organisations are counted by verdict, every
// verdict with a series and no other (a report naming another verdict
// adds no label value); a scan without completeness has none.
func TestLatestScanOrganisationsByVerdict(t *testing.T) {
	sum := &cwacv1alpha1.ScanSummary{PagesScanned: 3, Completeness: &cwacv1alpha1.ScanCompleteness{
		OrganisationsByVerdict: map[string]int32{"complete": 5, "blocked": 2, "made-up": 9}}}
	scans := []cwacv1alpha1.CwacScan{complete(nightly(scan("a", "nightly-1", "")), 5, sum)}
	c := &ScanCollector{List: func(context.Context) ([]*cwacv1alpha1.CwacScan, error) { return pointers(scans), nil }}
	const want = `
# HELP cwac_latest_scan_organisations Organisations of the latest Complete scan of each schedule by completeness verdict (docs/completeness.md).
# TYPE cwac_latest_scan_organisations gauge
cwac_latest_scan_organisations{namespace="a",schedule="nightly",verdict="blocked"} 2
cwac_latest_scan_organisations{namespace="a",schedule="nightly",verdict="complete"} 5
cwac_latest_scan_organisations{namespace="a",schedule="nightly",verdict="partial"} 0
cwac_latest_scan_organisations{namespace="a",schedule="nightly",verdict="unreachable"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "cwac_latest_scan_organisations"); err != nil {
		t.Error(err)
	}
	sum.Completeness = nil
	if n := testutil.CollectAndCount(c, "cwac_latest_scan_organisations"); n != 0 {
		t.Errorf("%d series without completeness", n)
	}
}
