package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// completedScan is a Complete scan with a summary and, when c is set, a
// completeness record.
func completedScan(name string, c *cwacv1alpha1.ScanCompleteness) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", CreationTimestamp: metav1.NewTime(testNow)},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, Summary: &cwacv1alpha1.ScanSummary{
			PagesScanned: 7, TotalIssues: 3, IssuesByImpact: map[string]int64{"serious": 3}, Completeness: c,
		}},
	}
}

var blockedTwo = &cwacv1alpha1.ScanCompleteness{
	OrganisationsByVerdict: map[string]int32{"complete": 7, "blocked": 1, "partial": 1},
	Incomplete: []cwacv1alpha1.OrganisationCompleteness{
		{Organisation: "Forbidden Org", Verdict: "blocked", Reason: "http://f.example/ blocked: the base URL answered 403 (refused)"},
	},
}

// TestCompleteColumn: COMPLETE appears only when some scan in the table did
// not scan every organisation completely, so tables of complete scans keep
// their columns (scripts read them by position).
func TestCompleteColumn(t *testing.T) {
	all := &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 3}}
	notJudged := &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 2}, SitesNotJudged: 4}
	tests := []struct {
		name  string
		scans []*cwacv1alpha1.CwacScan
		want  [][]string
	}{
		{"every organisation complete", []*cwacv1alpha1.CwacScan{completedScan("whole", all), completedScan("older", nil)}, [][]string{
			{"NAME", "PHASE", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "THRESHOLDS", "AGE"},
			{"whole", "Complete", "7", "3", "0", "3", "0", "0", "-", "-", "-", "0s"},
			{"older", "Complete", "7", "3", "0", "3", "0", "0", "-", "-", "-", "0s"},
		}},
		{"one scan blocked", []*cwacv1alpha1.CwacScan{completedScan("whole", all), completedScan("blocked", blockedTwo), completedScan("older", nil)}, [][]string{
			{"NAME", "PHASE", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "COMPLETE", "THRESHOLDS", "AGE"},
			{"whole", "Complete", "7", "3", "0", "3", "0", "0", "-", "-", "3/3", "-", "0s"},
			{"blocked", "Complete", "7", "3", "0", "3", "0", "0", "-", "-", "7/9", "-", "0s"},
			{"older", "Complete", "7", "3", "0", "3", "0", "0", "-", "-", "-", "-", "0s"},
		}},
		{"sites past the bound", []*cwacv1alpha1.CwacScan{completedScan("big", notJudged)}, [][]string{
			{"NAME", "PHASE", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "COMPLETE", "THRESHOLDS", "AGE"},
			{"big", "Complete", "7", "3", "0", "3", "0", "0", "-", "-", "2/2", "-", "0s"},
		}},
		{"beside a sharded scan", []*cwacv1alpha1.CwacScan{completedScan("blocked", blockedTwo), shardedScan("sharded", nil)}, [][]string{
			{"NAME", "PHASE", "SHARDS", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "COMPLETE", "THRESHOLDS", "AGE"},
			{"blocked", "Complete", "-", "7", "3", "0", "3", "0", "0", "-", "-", "7/9", "-", "0s"},
			{"sharded", "Running", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "0s"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeScans(&buf, outTable, testNow, scanListing{}, tt.scans...); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			got := make([][]string, 0, len(lines))
			for _, line := range lines {
				got = append(got, strings.Fields(line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("table (-want +got):\n%s\n%s", diff, buf.String())
			}
		})
	}
}

// TestSummaryCompleteness: the summary says how completely the scan's
// organisations were scanned and names those that were not, with why.
func TestSummaryCompleteness(t *testing.T) {
	tests := []struct {
		name       string
		c          *cwacv1alpha1.ScanCompleteness
		want, gone []string
	}{
		{"blocked and partial", blockedTwo, []string{
			"Completeness:", "7 of 9 organisations complete (1 partial, 1 blocked)",
			"Not scanned completely:", "Forbidden Org", "blocked", "the base URL answered 403 (refused)",
			"and 1 more (the report and summary.json list them all)",
		}, nil},
		{"all complete", &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 3}},
			[]string{"3 of 3 organisations complete\n"}, []string{"Not scanned completely", "more (the report"}},
		{"not judged", &cwacv1alpha1.ScanCompleteness{OrganisationsByVerdict: map[string]int32{"complete": 2}, SitesNotJudged: 4},
			[]string{"2 of 2 organisations complete; 4 sites past the reader's bound, not judged"}, nil},
		{"no record", nil, nil, []string{"Completeness", "Not scanned completely"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeSummary(&buf, completedScan("s", tt.c)); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("summary lacks %q:\n%s", w, out)
				}
			}
			for _, g := range tt.gone {
				if strings.Contains(out, g) {
					t.Errorf("summary has %q:\n%s", g, out)
				}
			}
		})
	}
}
