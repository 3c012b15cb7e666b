package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
)

func TestCheckHistoryArgs(t *testing.T) {
	for _, tt := range []struct {
		a    mcpapi.IssueHistoryInput
		want string
	}{
		{mcpapi.IssueHistoryInput{State: "open", Limit: 10, Offset: 5}, ""},
		{mcpapi.IssueHistoryInput{State: "fixed"}, ""},
		{mcpapi.IssueHistoryInput{State: "closed"}, `--state "closed": must be one of [open fixed]`},
		{mcpapi.IssueHistoryInput{Limit: -1}, "--limit -1: may not be negative"},
		{mcpapi.IssueHistoryInput{Offset: -1}, "--offset -1: may not be negative"},
	} {
		err := checkHistoryArgs(tt.a)
		if (tt.want == "") != (err == nil) || (err != nil && err.Error() != tt.want) {
			t.Errorf("%+v: %v, want %q", tt.a, err, tt.want)
		}
	}
}

func TestWriteIssueHistory(t *testing.T) {
	at := time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC)
	out := &mcpapi.IssueHistoryOutput{Namespace: "a11y", Total: 7, Offset: 2, Returned: 2, Note: "continue with offset 4.", Issues: []mcpapi.HistoryIssue{
		{Fingerprint: "0123456789abcdef0123456789abcdef", State: "open", Organisation: "Ministry of Examples", Page: "https://ex.govt.nz/",
			ViewportWidth: 320, Rule: "image-alt", Impact: "critical", FirstSeenScan: "a11y/week-1", FirstSeenAt: at,
			LastSeenScan: "a11y/week-3", Reopened: 1, ScansPresent: 2},
		{Fingerprint: "fedcba9876543210", State: "fixed", Organisation: "Ministry of Examples", Page: "https://ex.govt.nz/form",
			ViewportWidth: 1280, Rule: "label", FirstSeenScan: "a11y/week-1", FirstSeenAt: at, LastSeenScan: "a11y/week-1",
			FixedInScan: "a11y/week-2", FixedReason: "page not scanned", ScansPresent: 1},
	}}
	var b bytes.Buffer
	if err := writeIssueHistory(&b, out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 || lines[0] != "Issues 3-4 of 7 in the issue history of namespace a11y:" || lines[4] != "continue with --offset 4." {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"FINGERPRINT", "STATE", "FIRST SEEN", "FIXED IN", "REOPENED", "SCANS"},
		{"0123456789ab ", "open", "Ministry of Examples", "https://ex.govt.nz/ ", "320", "image-alt", "critical",
			"week-1 2026-01-05 03:00", "week-3", " - ", " 1 ", " 2"},
		{"fedcba987654 ", "fixed", "1280", "label", " - ", "week-2 (page not scanned)", " 0 ", " 1"},
	} {
		for _, cell := range want {
			if !strings.Contains(lines[i+1], cell) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i+1], cell)
			}
		}
	}
	b.Reset()
	if err := writeIssueHistory(&b, &mcpapi.IssueHistoryOutput{Namespace: "a11y", Total: 7, Offset: 40}); err != nil ||
		!strings.HasPrefix(b.String(), "No issues (of 7 matching) in the issue history of namespace a11y at offset 40.\n") {
		t.Errorf("an empty page: %q %v", b.String(), err)
	}
}

func TestWriteTrend(t *testing.T) {
	score := 87.5
	at := time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC)
	out := &mcpapi.OrganisationTrendOutput{Namespace: "a11y", Organisation: "Ministry of Examples", Schedule: "weekly", Points: []mcpapi.TrendPoint{
		{Scan: "a11y/week-1", FinishedAt: at, Pages: 4, Issues: 17, Elements: 9, ByImpact: map[string]int64{"critical": 4, "serious": 5},
			Score: &score, Completeness: "partial", New: 17, Open: 17, Engine: mcpapi.EngineVersions{AxeCore: "4.13"}},
		{Scan: "a11y/week-2", FinishedAt: at.AddDate(0, 0, 7), Pages: 3, Issues: 15, Elements: 8, Fixed: 2, FixedPageNotScanned: 3,
			Reopened: 1, Open: 13, Engine: mcpapi.EngineVersions{AxeCore: "4.14"}, EngineChanged: true},
		{Scan: "a11y/week-3", FinishedAt: at.AddDate(0, 0, 14), Pages: 1, Issues: 0, Completeness: "blocked", Open: 13,
			Engine: mcpapi.EngineVersions{AxeCore: "4.14"}},
	}}
	var b bytes.Buffer
	if err := writeTrend(&b, out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 || lines[0] != "Ministry of Examples in namespace a11y, schedule weekly: 3 scans" {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"FINISHED", "NOT SCANNED", "AXE-CORE"},
		{"2026-01-05 03:00", "week-1", " 17 ", " 9 ", "87.5 (partial)", "4.13"},
		{"2026-01-12 03:00", "week-2", " 15 ", " - ", "4.14 (changed)"},
		{"2026-01-19 03:00", "week-3", " blocked ", "4.14"},
	} {
		for _, cell := range want {
			if !strings.Contains(lines[i+1], cell) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i+1], cell)
			}
		}
	}
	if f := strings.Fields(lines[3]); len(f) < 14 || f[9] != "0" || f[10] != "2" || f[11] != "3" || f[12] != "1" || f[13] != "13" {
		t.Errorf("week-2's new, fixed, not scanned, reopened, open: %q", f)
	}
}

func TestWriteScanChanges(t *testing.T) {
	out := &mcpapi.ScanChangesOutput{Namespace: "a11y", Scan: "week-2", Returned: 2, Next: 41, Changes: []mcpapi.ScanChange{
		{Change: "reopened", Issue: mcpapi.HistoryIssue{Fingerprint: "0123456789abcdef0123456789abcdef", State: "open",
			Organisation: "Ministry of Examples", Page: "https://ex.govt.nz/", ViewportWidth: 320, Rule: "image-alt", Impact: "critical",
			Decision: &mcpapi.HistoryDecision{Decision: "a11y/logo", Kind: "FalsePositive"}}},
		{Change: "page not scanned", Issue: mcpapi.HistoryIssue{Fingerprint: "fedcba98", State: "fixed", Organisation: "Ministry of Examples",
			Page: "https://ex.govt.nz/form", ViewportWidth: 1280, Rule: "label"}},
	}}
	var b bytes.Buffer
	if err := writeScanChanges(&b, out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 || lines[0] != "2 changes to issues by scan week-2 in namespace a11y:" || lines[4] != "More: --after 41" {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"CHANGE", "FINGERPRINT", "STATE NOW", "DECISION"},
		{"reopened", "0123456789ab ", "open", "image-alt", "critical", "FalsePositive (a11y/logo)"},
		{"page not scanned", "fedcba98 ", "fixed", "1280", "label", " -"},
	} {
		for _, cell := range want {
			if !strings.Contains(lines[i+1], cell) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i+1], cell)
			}
		}
	}
	b.Reset()
	if err := writeScanChanges(&b, &mcpapi.ScanChangesOutput{Namespace: "a11y", Scan: "week-9"}); err != nil ||
		!strings.HasPrefix(b.String(), "No changes to issues by scan week-9 in namespace a11y here.\n") || strings.Contains(b.String(), "More") {
		t.Errorf("an empty page: %q %v", b.String(), err)
	}
	for _, tt := range []struct {
		a    mcpapi.ScanChangesInput
		want string
	}{
		{mcpapi.ScanChangesInput{Limit: 10, After: 3}, ""},
		{mcpapi.ScanChangesInput{Limit: -1}, "--limit -1: may not be negative"},
		{mcpapi.ScanChangesInput{After: -1}, "--after -1: may not be negative"},
	} {
		err := checkChangesArgs(tt.a)
		if (tt.want == "") != (err == nil) || (err != nil && err.Error() != tt.want) {
			t.Errorf("%+v: %v, want %q", tt.a, err, tt.want)
		}
	}
}
