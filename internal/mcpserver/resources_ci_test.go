package mcpserver

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// realAxeAudit is the real CWAC run's axe-core audit, the one file the CI
// reports are built from.
func realAxeAudit(t *testing.T) []byte {
	t.Helper()
	axe, err := os.ReadFile("../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1/axe_core_audit.csv")
	if err != nil {
		t.Fatal(err)
	}
	return axe
}

// TestReadScanFileCIReports: a CI report the volume holds is read as it is;
// one it lacks is built from the results, within the cap; other missing
// files stay missing.
func TestReadScanFileCIReports(t *testing.T) {
	fsys := fstest.MapFS{cireport.AxeAuditFile: {Data: realAxeAudit(t)}, cireport.JUnitFile: {Data: []byte("<testsuites/>")}}
	ctx := context.Background()
	named := func(scan string) cireport.Options { return cireport.Options{Scan: scan} }

	got, err := readScanFile(ctx, fsys, cireport.JUnitFile, named("s"), 1<<20)
	if err != nil || string(got) != "<testsuites/>" {
		t.Errorf("junit.xml on the volume: %q, %v", got, err)
	}
	got, err = readScanFile(ctx, fsys, cireport.SARIFFile, named("scan-a"), 1<<20)
	if err != nil || !strings.Contains(string(got), `"version": "2.1.0"`) || !strings.Contains(string(got), `"scan": "scan-a"`) {
		t.Errorf("results.sarif built: %.200q, %v", got, err)
	}
	whole := len(got)
	if _, err := readScanFile(ctx, fsys, cireport.SARIFFile, named("scan-a"), int64(whole)); err != nil {
		t.Errorf("at exactly its size: %v", err)
	}
	_, err = readScanFile(ctx, fsys, cireport.SARIFFile, named("scan-a"), int64(whole-1))
	if err == nil || !strings.Contains(err.Error(), "results.sarif is more than the") {
		t.Errorf("one byte past the cap: %v", err)
	}
	delete(fsys, cireport.JUnitFile)
	got, err = readScanFile(ctx, fsys, cireport.JUnitFile, named("s"), 1<<20)
	if err != nil || !strings.Contains(string(got), "<testsuites") || !strings.Contains(string(got), `failures="6"`) {
		t.Errorf("junit.xml built: %.200q, %v", got, err)
	}
	if _, err := readScanFile(ctx, fsys, "summary.json", named("s"), 1<<20); err == nil {
		t.Error("a missing summary.json was read")
	}
	if mimeType(cireport.SARIFFile) != mimeSARIF || mimeType(cireport.JUnitFile) != mimeXML {
		t.Error("the CI reports are not resources")
	}
}

// TestReadScanFileFailAt: the runner's report, written at the default
// fail-at impact, is served when none or the default is asked for; another
// impact gets a report built from the results at that impact, and the
// runner's file is left as it was.
func TestReadScanFileFailAt(t *testing.T) {
	runners := "<testsuites>the runner's</testsuites>"
	fsys := fstest.MapFS{cireport.AxeAuditFile: {Data: realAxeAudit(t)}, cireport.JUnitFile: {Data: []byte(runners)}}
	ctx := context.Background()
	for _, failAt := range []string{"", cireport.DefaultFailAt} {
		got, err := readScanFile(ctx, fsys, cireport.JUnitFile, cireport.Options{Scan: "s", FailAt: failAt}, 1<<20)
		if err != nil || string(got) != runners {
			t.Errorf("fail_at %q: %.200q, %v; want the runner's file", failAt, got, err)
		}
	}
	for file, want := range map[string]string{
		cireport.JUnitFile: `<property name="cwac.failAt" value="minor">`,
		cireport.SARIFFile: `"failAt": "minor"`,
	} {
		got, err := readScanFile(ctx, fsys, file, cireport.Options{Scan: "s", FailAt: "minor"}, 1<<20)
		if err != nil || !strings.Contains(string(got), want) {
			t.Errorf("%s at minor: %.300q, %v; want %s", file, got, err, want)
		}
	}
	if string(fsys[cireport.JUnitFile].Data) != runners {
		t.Errorf("the runner's junit.xml was replaced: %.200q", fsys[cireport.JUnitFile].Data)
	}
	if _, ok := fsys[cireport.SARIFFile]; ok {
		t.Error("a report built on demand was written beside the results")
	}
}

func TestSplitFailAt(t *testing.T) {
	const junit = "cwac://scans/ns/weekly-1/junit.xml"
	for _, tc := range []struct {
		uri, wantBase, wantFailAt, wantErr string
	}{
		{uri: junit, wantBase: junit},
		{uri: "cwac://scans/ns/weekly-1/report.html", wantBase: "cwac://scans/ns/weekly-1/report.html"},
		{uri: junit + "?fail_at=critical", wantBase: junit, wantFailAt: "critical"},
		{uri: junit + "?fail_at=serious", wantBase: junit, wantFailAt: "serious"},
		{uri: "cwac://scans/ns/weekly-1/results.sarif?fail_at=moderate", wantBase: "cwac://scans/ns/weekly-1/results.sarif", wantFailAt: "moderate"},
		{uri: junit + "?fail_at=minor", wantBase: junit, wantFailAt: "minor"},
		{uri: junit + "?fail_at=high", wantErr: "fail_at=high: must be given once, as one of critical, serious, moderate, minor"},
		{uri: junit + "?fail_at=Serious", wantErr: "fail_at=Serious: must be given once"},
		{uri: junit + "?fail_at=", wantErr: "fail_at=: must be given once, as one of critical, serious, moderate, minor"},
		{uri: junit + "?fail_at=minor&fail_at=serious", wantErr: "fail_at=minor,serious: must be given once"},
		{uri: junit + "?failAt=minor", wantErr: `query parameter "failAt": the only one a resource takes is fail_at`},
		{uri: junit + "?fail_at=minor&x=1", wantErr: `query parameter "x"`},
		{uri: junit + "?fail_at=%zz", wantErr: "is not URL-encoded"},
		{uri: "cwac://scans/ns/weekly-1/report.html?fail_at=minor", wantErr: "fail_at applies only to junit.xml and results.sarif, not report.html"},
		{uri: "cwac://scans/ns/weekly-1/axe_core_audit.csv?fail_at=minor", wantErr: "not axe_core_audit.csv"},
	} {
		base, failAt, err := splitFailAt(tc.uri)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.uri, err, tc.wantErr)
			}
			continue
		}
		if err != nil || base != tc.wantBase || failAt != tc.wantFailAt {
			t.Errorf("%s = %q, %q, %v; want %q, %q", tc.uri, base, failAt, err, tc.wantBase, tc.wantFailAt)
		}
	}
}

// TestCIReportOptionsFromTheScan: a report built here says what the
// runner's says of the scan: its name and namespace, thresholds, image, and the baseline
// only when the scan was compared with it.
func TestCIReportOptionsFromTheScan(t *testing.T) {
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly-2", Namespace: "ns"},
		Spec: cwacv1alpha1.CwacScanSpec{
			Baseline: "nightly-1", Image: "cwac:1.2",
			Thresholds: &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](10), MaxIssuesByImpact: map[string]int64{"critical": 0}},
		},
		Status: cwacv1alpha1.CwacScanStatus{Summary: &cwacv1alpha1.ScanSummary{Diff: &cwacv1alpha1.ScanDiff{Baseline: "nightly-1"}}},
	}
	want := cireport.Options{
		Scan: "nightly-2", Namespace: "ns", Baseline: "nightly-1", ToolVersion: "cwac:1.2", FailAt: "moderate",
		Thresholds: []scanpod.Threshold{{Name: "maxTotalIssues", Value: "10"}, {Name: "maxIssuesByImpact.critical", Value: "0"}},
	}
	if diff := cmp.Diff(want, ciReportOptions("nightly-2", scan, "moderate")); diff != "" {
		t.Errorf("a compared scan (-want +got):\n%s", diff)
	}
	scan.Status.Summary.Diff = nil
	want.Baseline, want.FailAt = "", ""
	if diff := cmp.Diff(want, ciReportOptions("nightly-2", scan, "")); diff != "" {
		t.Errorf("a scan its baseline was not compared with (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cireport.Options{Scan: "ns-a/2026-11-21_23-18-23_x"}, ciReportOptions("ns-a/2026-11-21_23-18-23_x", nil, "")); diff != "" {
		t.Errorf("results run by hand (-want +got):\n%s", diff)
	}

	// Built from the results, the JUnit report carries them.
	fsys := fstest.MapFS{cireport.AxeAuditFile: {Data: realAxeAudit(t)}}
	scan.Status.Summary.Diff = &cwacv1alpha1.ScanDiff{Baseline: "nightly-1"}
	got, err := readScanFile(context.Background(), fsys, cireport.JUnitFile, ciReportOptions("nightly-2", scan, ""), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<property name="cwac.scan" value="nightly-2">`, `<property name="cwac.baseline" value="nightly-1">`,
		`<property name="cwac.version" value="cwac:1.2">`, `<property name="cwac.threshold.maxIssuesByImpact.critical" value="0">`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("junit.xml lacks %s:\n%.900s", want, got)
		}
	}
}
