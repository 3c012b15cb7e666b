//go:build integration

package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// historyEvents are the issue history's Events on a scan, as "reason|note" lines.
func historyEvents(t *testing.T, scan string) string {
	t.Helper()
	out, err := run(t, kubectl, "--kubeconfig", kubeconfig, "-n", ns, "get", "events.events.k8s.io",
		"--field-selector", "regarding.name="+scan, "-o", `jsonpath={range .items[*]}{.reason}|{.note}{"\n"}{end}`)
	if err != nil {
		t.Fatalf("listing Events: %v\n%s", err, out)
	}
	return out
}

// TestHistoryRecordsLargeThenSmallScans: in the chart's own MCP pod (its
// root filesystem read-only, the default SQLite store), a scan of 20,000
// axe issue rows is recorded in the issue history, and a small scan that
// finishes after it is recorded too, in turn. Before SQLite's temporary
// files were kept beside the database, every scan of more than a few
// hundred rows failed there with "disk I/O error", and held the small scan
// behind it.
func TestHistoryRecordsLargeThenSmallScans(t *testing.T) {
	need(t)
	const rows = 20000
	large := newScan(t, "history-large", func(s *cwacv1alpha1.CwacScanSpec) { s.AuditName = fmt.Sprintf("standin-axerows-%d", rows) })
	done := waitPhase(t, large.Name, cwacv1alpha1.PhaseComplete, 5*time.Minute)
	// The template's rows include passing ones ("No issues found"): 20,000
	// rows hold about 17,000 issues.
	if done.Status.Summary == nil || done.Status.Summary.TotalIssues < rows/2 {
		t.Fatalf("the large scan counted %+v, want more than %d issues", done.Status.Summary, rows/2)
	}
	small := newScan(t, "history-small", nil)
	waitPhase(t, small.Name, cwacv1alpha1.PhaseComplete, 5*time.Minute)
	for _, name := range []string{large.Name, small.Name} {
		waitFor(t, name+" recorded in the issue history", 3*time.Minute, func() (bool, string) {
			out := historyEvents(t, name)
			if strings.Contains(out, "HistoryIngestFailed|") || strings.Contains(out, "HistoryOutOfOrder|") {
				t.Fatalf("%s was not recorded:\n%s", name, out)
			}
			return strings.Contains(out, "HistoryRecorded|recorded in the issue history"), out
		})
	}
	out := historyEvents(t, large.Name)
	t.Logf("the large scan's history Event: %s", strings.TrimSpace(out[strings.Index(out, "HistoryRecorded|"):]))
}
