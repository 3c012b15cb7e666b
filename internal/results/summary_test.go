package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	goldenfile "github.com/a11y-dev/cwac-operator/internal/testutil/golden"

	"github.com/google/go-cmp/cmp"
)

const realScan = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

// TestSummarizeRealScan checks the summary of a real CWAC run against figures
// counted independently from its CSVs.
func TestSummarizeRealScan(t *testing.T) {
	s, err := Summarize(realScan, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.IssuesByAuditType, map[string]int64{"axe_core_audit": 12, "reflow_audit": 1, "focus_indicator_audit": 4}; !cmp.Equal(got, want) {
		t.Errorf("issues by audit type (-want +got):\n%s", cmp.Diff(want, got))
	}
	if s.TotalIssues != 17 {
		t.Errorf("total issues = %d, want 17 (12 axe + 1 reflow + 4 focus)", s.TotalIssues)
	}
	if diff := cmp.Diff(map[string]int64{"critical": 6, "serious": 6}, s.IssuesByImpact); diff != "" {
		t.Errorf("issues by impact (-want +got):\n%s", diff)
	}
	impacts := map[string]string{}
	for _, v := range s.TopViolations {
		if v.AuditType == "axe_core_audit" {
			impacts[v.ID] = v.Impact
		}
	}
	wantImpacts := map[string]string{
		"image-alt": "critical", "label": "critical", "color-contrast": "serious", "link-name": "serious", "html-has-lang": "serious",
	}
	if diff := cmp.Diff(wantImpacts, impacts); diff != "" {
		t.Errorf("axe rule impacts (-want +got):\n%s", diff)
	}
	if s.PagesScanned != 4 || s.URLsScanned != 4 {
		t.Errorf("pages scanned = %d, URLs scanned = %d; want 4 and 4", s.PagesScanned, s.URLsScanned)
	}
	if diff := cmp.Diff(map[string]int64{"title_audit": 8, "language_audit": 2, "element_audit": 4, "screenshot_audit": 8}, s.Informational); diff != "" {
		t.Errorf("informational (-want +got):\n%s", diff)
	}
	if len(s.UnscannedBaseURLs) != 0 {
		t.Errorf("unscanned = %q, want none", s.UnscannedBaseURLs)
	}
	if s.UnexpectedResponses != 1 {
		t.Errorf("unexpected responses = %d, want 1 (the 404 link)", s.UnexpectedResponses)
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Assert(t, "real-scan-1.summary.json", append(got, '\n'))
}

func TestSummarizeFailures(t *testing.T) {
	tests := []struct {
		name       string
		dir        string
		expected   []string
		wantPages  int
		wantUnscan []string
	}{
		{
			name:       "closed port: pages_scanned says 0",
			dir:        "../../testdata/cwac-results/failures/2026-11-21_23-19-36_fail-closed-port",
			wantUnscan: []string{"http://127.0.0.1:59999/"},
		},
		{
			name:       "https only: no pages_scanned.csv at all",
			dir:        "../../testdata/cwac-results/failures/2026-11-21_23-19-44_fail-https-only",
			expected:   []string{"http://127.0.0.1:8765/"},
			wantUnscan: []string{"http://127.0.0.1:8765/"},
		},
		{
			name:       "partial: one of two base URLs yielded pages",
			dir:        realScan,
			expected:   []string{"http://127.0.0.1:8765/", "http://127.0.0.1:59999/"},
			wantPages:  4,
			wantUnscan: []string{"http://127.0.0.1:59999/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Summarize(tt.dir, Options{ExpectedBaseURLs: tt.expected})
			if err != nil {
				t.Fatal(err)
			}
			if s.PagesScanned != tt.wantPages || s.TotalIssues != 0 && tt.wantPages == 0 {
				t.Errorf("pages = %d, issues = %d; want %d pages", s.PagesScanned, s.TotalIssues, tt.wantPages)
			}
			if diff := cmp.Diff(tt.wantUnscan, s.UnscannedBaseURLs); diff != "" {
				t.Errorf("unscanned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizeMissingDir(t *testing.T) {
	if _, err := Summarize(filepath.Join(t.TempDir(), "nope"), Options{}); err == nil {
		t.Fatal("want an error for a missing directory")
	}
}

func TestSummarizeCountsOnlyNumIssues(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("\xef\xbb\xbf"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("axe_core_audit.csv", "id,impact,help,num_issues,audit_type\n"+
		"image-alt,critical,Images,3,AxeCoreAudit\n,,No issues found,0,AxeCoreAudit\nx,minor,X,1.0,AxeCoreAudit\n")
	write("axe_core_audit_template_aware.csv", "id,impact,help,num_pages,num_issues\nimage-alt,critical,Images,1,3\n")
	write("title_audit.csv", "url,page_title\nhttp://a/,A\n")
	write("language_audit.csv", "url,flesch_kincaid_gl\n")
	write("leaderboard.csv", "rank,organisation,score\n1,Org,99.0\n") // our report, not an audit
	s, err := Summarize(dir, Options{Duration: 12.5})
	if err != nil {
		t.Fatal(err)
	}
	want := &Summary{
		TotalIssues:       4,
		IssuesByAuditType: map[string]int64{"axe_core_audit": 4},
		IssuesByImpact:    map[string]int64{"critical": 3, "minor": 1},
		TopViolations: []Violation{
			{ID: "image-alt", AuditType: "axe_core_audit", Impact: "critical", Description: "Images", Count: 3},
			{ID: "x", AuditType: "axe_core_audit", Impact: "minor", Description: "X", Count: 1},
		},
		Informational:     map[string]int64{"title_audit": 1, "language_audit": 0},
		BaseURLs:          []BaseURLPages{},
		UnscannedBaseURLs: []string{},
		DurationSeconds:   12.5,
		AuditFiles:        []string{"axe_core_audit.csv", "language_audit.csv", "title_audit.csv"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	write("reflow_audit.csv", "num_issues\nlots\n")
	if _, err := Summarize(dir, Options{}); err == nil {
		t.Error("a non-numeric num_issues was accepted")
	}
}

func TestProgressOf(t *testing.T) {
	got := ProgressOf(os.DirFS(realScan))
	want := Progress{PagesDone: 4, PagesEstimated: 4, Percent: 100, ElapsedSeconds: 18.7}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if got := ProgressOf(os.DirFS(t.TempDir())); got != (Progress{}) {
		t.Errorf("missing progress.csv gave %+v", got)
	}
}
