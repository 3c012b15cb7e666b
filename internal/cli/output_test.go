package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// finishedScan is a Complete scan with the figures of testdata's real run
// and a comparison with a baseline.
func finishedScan(thresholds metav1.Condition) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: "weekly-abc12", Namespace: "cwac-system", CreationTimestamp: metav1.NewTime(testNow.Add(-90 * time.Minute))},
		Status: cwacv1alpha1.CwacScanStatus{
			Phase:      cwacv1alpha1.PhaseComplete,
			Conditions: []metav1.Condition{thresholds},
			Summary: &cwacv1alpha1.ScanSummary{
				TotalIssues: 17, PagesScanned: 6, UrlsScanned: 1, DurationSeconds: 75,
				IssuesByImpact:    map[string]int64{"critical": 2, "serious": 9, "moderate": 4, "minor": 0},
				IssuesByAuditType: map[string]int64{"AxeCoreAudit": 15, "ReflowAudit": 2},
				TopViolations: []cwacv1alpha1.Violation{{ID: "color-contrast", Impact: "serious", Count: 6,
					Description: "Ensure the contrast between foreground and background colors meets WCAG 2 AA"}},
				Diff: &cwacv1alpha1.ScanDiff{Baseline: "weekly-prev", New: 3, Fixed: 5, Unchanged: 14, Unstable: 1,
					NewByImpact: map[string]int64{"critical": 1}},
			},
		},
	}
}

// thresholdsMet is the scan's ThresholdsMet condition.
func thresholdsMet(status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: cwacv1alpha1.ConditionThresholdsMet, Status: status, Reason: reason, Message: msg}
}

func TestScanRow(t *testing.T) {
	met := thresholdsMet(metav1.ConditionTrue, cwacv1alpha1.ReasonWithinThresholds, "")
	pending := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "new", CreationTimestamp: metav1.NewTime(testNow.Add(-5 * time.Second))}}
	failed := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed,
		Conditions: []metav1.Condition{thresholdsMet(metav1.ConditionFalse, cwacv1alpha1.ReasonScanFailed, "")}}}
	tests := []struct {
		name string
		scan *cwacv1alpha1.CwacScan
		want []string
	}{
		{"complete with diff", finishedScan(met), []string{"weekly-abc12", "Complete", "6", "17", "2", "9", "4", "0", "3", "5", "Met", "90m"}},
		{"crossed", finishedScan(thresholdsMet(metav1.ConditionFalse, cwacv1alpha1.ReasonThresholdsCrossed, "")),
			[]string{"weekly-abc12", "Complete", "6", "17", "2", "9", "4", "0", "3", "5", "Crossed", "90m"}},
		{"no thresholds", finishedScan(thresholdsMet(metav1.ConditionTrue, cwacv1alpha1.ReasonNoThresholds, "")),
			[]string{"weekly-abc12", "Complete", "6", "17", "2", "9", "4", "0", "3", "5", "None", "90m"}},
		{"pending", pending, []string{"new", "Pending", "-", "-", "-", "-", "-", "-", "-", "-", "-", "5s"}},
		{"failed", failed, []string{"bad", "Failed", "-", "-", "-", "-", "-", "-", "-", "-", "Unjudged", "-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scanRow(tt.scan, testNow)); diff != "" {
				t.Errorf("row (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteScans(t *testing.T) {
	scan := finishedScan(thresholdsMet(metav1.ConditionTrue, cwacv1alpha1.ReasonWithinThresholds, ""))
	for _, tt := range []struct {
		output string
		check  func(t *testing.T, out string)
	}{
		{outTable, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME ") || !strings.Contains(lines[0], "CRITICAL") || !strings.HasPrefix(lines[1], "weekly-abc12 ") {
				t.Errorf("table:\n%s", out)
			}
		}},
		{outName, func(t *testing.T, out string) {
			if out != "cwacscan/weekly-abc12\n" {
				t.Errorf("name output %q", out)
			}
		}},
		{outJSON, func(t *testing.T, out string) {
			var got cwacv1alpha1.CwacScan
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if got.Kind != "CwacScan" || got.Status.Summary.IssuesByImpact["critical"] != 2 {
				t.Errorf("json round trip: %+v", got)
			}
		}},
		{outYAML, func(t *testing.T, out string) {
			if !strings.Contains(out, "kind: CwacScan\n") || !strings.Contains(out, "totalIssues: 17\n") {
				t.Errorf("yaml:\n%s", out)
			}
		}},
	} {
		t.Run(tt.output, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeScans(&buf, tt.output, testNow, scanListing{}, scan.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			tt.check(t, buf.String())
		})
	}
}

func TestWriteNoScans(t *testing.T) {
	for _, output := range []string{outJSON, outYAML} {
		var buf bytes.Buffer
		if err := writeScans(&buf, output, testNow, scanListing{asList: true}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "items") || !strings.Contains(buf.String(), "List") {
			t.Errorf("-o %s of no scans: %q", output, buf.String())
		}
	}
}

func TestWriteSummary(t *testing.T) {
	scan := finishedScan(thresholdsMet(metav1.ConditionFalse, cwacv1alpha1.ReasonThresholdsCrossed, "critical issues 2 > 0"))
	var buf bytes.Buffer
	if err := writeSummary(&buf, scan); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "Decided:") {
		t.Errorf("a summary with nothing decided says Decided:\n%s", out)
	}
	scan.Status.Summary.DecidedIssues = 4
	buf.Reset()
	if err := writeSummary(&buf, scan); err != nil {
		t.Fatal(err)
	}
	out = buf.String()
	for _, want := range []string{
		"Decided:", "4 more a decision covers (in no figure here)",
		"Scan:", "cwac-system/weekly-abc12", "Thresholds:", "Crossed (critical issues 2 > 0)",
		"Pages scanned:", "6 (1 distinct page URL audited)", "Duration:", "1m15s", "Total issues:", "17",
		"critical 2, serious 9, moderate 4, minor 0", "AxeCoreAudit 15, ReflowAudit 2",
		"Compared with:", "weekly-prev", "3 / 5 / 14 (unstable 1)", "New by impact:", "critical 1, serious 0",
		"Top rules:", "color-contrast", "serious", "6",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	failed := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "ns"}, Status: cwacv1alpha1.CwacScanStatus{
		Phase: cwacv1alpha1.PhaseFailed, Message: "CWAC exited with code 1",
		Failure: &cwacv1alpha1.ScanFailure{Reason: "CWACExitedNonZero", Cause: "ValueError: bad config"}}}
	buf.Reset()
	if err := writeSummary(&buf, failed); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "CWACExitedNonZero: CWAC exited with code 1 (ValueError: bad config)") || !strings.Contains(buf.String(), "none yet") {
		t.Errorf("failed summary:\n%s", buf.String())
	}
}

func TestOutcomeCode(t *testing.T) {
	tests := []struct {
		name string
		scan *cwacv1alpha1.CwacScan
		want int
	}{
		{"within", finishedScan(thresholdsMet(metav1.ConditionTrue, cwacv1alpha1.ReasonWithinThresholds, "")), ExitOK},
		{"no thresholds", finishedScan(thresholdsMet(metav1.ConditionTrue, cwacv1alpha1.ReasonNoThresholds, "")), ExitOK},
		{"crossed", finishedScan(thresholdsMet(metav1.ConditionFalse, cwacv1alpha1.ReasonThresholdsCrossed, "x")), ExitThresholdsCrossed},
		{"failed", &cwacv1alpha1.CwacScan{Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed,
			Conditions: []metav1.Condition{thresholdsMet(metav1.ConditionFalse, cwacv1alpha1.ReasonScanFailed, "")}}}, ExitScanFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OutcomeCode(tt.scan); got != tt.want {
				t.Errorf("OutcomeCode = %d, want %d", got, tt.want)
			}
			if got := ExitCode(outcomeError(tt.scan)); got != tt.want {
				t.Errorf("ExitCode(outcomeError) = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestWriteRowsCSV(t *testing.T) {
	rows := []map[string]any{
		{"audit_type": "axe_core_audit", "organisation": "CWAC Test Org", "url": "http://127.0.0.1:8765/", "id": "color-contrast",
			"impact": "serious", "num_issues": "1", "viewport_size": map[string]any{"width": 320.0, "height": 450.0},
			"tags": []any{"wcag2aa", "wcag143"}, "html": "=cmd|' /C calc'!A0"},
		{"audit_type": "reflow_audit", "url": "http://127.0.0.1:8765/wide.html", "overflow": "-12", "note": "+1 page"},
	}
	var buf bytes.Buffer
	if err := writeRowsCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"audit_type", "organisation", "url", "viewport_size", "id", "impact", "num_issues", "html", "note", "overflow", "tags"},
		{"axe_core_audit", "CWAC Test Org", "http://127.0.0.1:8765/", "320x450", "color-contrast", "serious", "1",
			"'=cmd|' /C calc'!A0", "", "", `["wcag2aa","wcag143"]`},
		{"reflow_audit", "", "http://127.0.0.1:8765/wide.html", "", "", "", "", "", "'+1 page", "-12", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("csv (-want +got):\n%s", diff)
	}
}

func TestWriteResultsTable(t *testing.T) {
	var buf bytes.Buffer
	rows := []map[string]any{{"audit_type": "axe_core_audit", "organisation": "CWAC Test Org", "url": "http://127.0.0.1:8765/",
		"viewport_size": map[string]any{"width": 1280.0, "height": 800.0}, "id": "color-contrast", "impact": "serious", "num_issues": "1",
		"html": "<p>\nmulti\nline</p>"}}
	if err := writeResultsTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("table:\n%s", buf.String())
	}
	want := []string{"axe_core_audit", "CWAC", "Test", "Org", "http://127.0.0.1:8765/", "1280x800", "color-contrast", "serious", "1"}
	if got := strings.Fields(lines[1]); !cmp.Equal(got, want) {
		t.Errorf("row %q", got)
	}
}

// Rows of CWAC's own audits say what failed where axe's rule and impact
// would be; an empty page of rows says so without a bare header.
func TestResultsTableSaysWhatFailed(t *testing.T) {
	var buf bytes.Buffer
	rows := []map[string]any{
		{"audit_type": "FocusIndicatorAudit", "url": "http://127.0.0.1:8765/", "description": "Tab key press #3 had no focus indicator", "num_issues": "1"},
		{"audit_type": "ReflowAudit", "url": "http://127.0.0.1:8765/wide.html", "num_issues": "1"},
	}
	if err := writeResultsTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"Tab key press #3 had no focus indicator", "Content overflows horizontally at a narrow viewport (WCAG 1.4.10 Reflow)",
		"none (CWAC audit)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
	buf.Reset()
	if err := writeResultsTable(&buf, nil); err != nil || buf.String() != "No result rows match.\n" {
		t.Errorf("no rows: %q, %v", buf.String(), err)
	}
}

// The MCP server's notes name its paging argument; the plugin names the flag.
func TestServerNoteNamesTheFlag(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10 of 25 rows returned; use offset=10 to read on.", "10 of 25 rows returned; use --offset 10 to read on."},
		{"5 of the 9 issues fit under the cap; continue with offset 5.", "5 of the 9 issues fit under the cap; continue with --offset 5."},
		{"no paging here (an offset is not a number)", "no paging here (an offset is not a number)"},
	} {
		in, want := tc.in, tc.want
		if got := serverNote(in); got != want {
			t.Errorf("serverNote(%q) = %q, want %q", in, got, want)
		}
	}
}
