package results

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestParseCount: whole numbers, as integers or as pandas' floats, up to
// 2^53 as floats (where every whole number is still exact); anything else
// is refused.
func TestParseCount(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "", want: 0},
		{in: "  ", want: 0},
		{in: " 3 ", want: 3},
		{in: "0", want: 0},
		{in: "-2", wantErr: true},
		{in: "-0", want: 0},
		{in: "-1.0", wantErr: true},
		{in: "-0.0", want: 0},
		{in: "1.0", want: 1},
		{in: "1e3", want: 1000},
		{in: "9223372036854775807", want: 1<<63 - 1}, // as an integer, any int64
		{in: "9007199254740991.0", want: 1<<53 - 1},
		{in: "9007199254740992.0", want: 1 << 53},
		{in: "9007199254740994.0", wantErr: true}, // the next float after 2^53
		{in: "-9007199254740992.0", wantErr: true},
		{in: "-9007199254740994.0", wantErr: true},
		{in: "1.5", wantErr: true},
		{in: "-0.5", wantErr: true},
		{in: "NaN", wantErr: true},
		{in: "Inf", wantErr: true},
		{in: "-Inf", wantErr: true},
		{in: "x", wantErr: true},
		{in: "1,0", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseCount(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseCount(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q is not a ", strings.TrimSpace(tt.in))) {
			t.Errorf("ParseCount(%q): error %q does not name the value", tt.in, err)
		}
	}
}

// axeCSV is an axe audit CSV of rows: id, impact, num_issues.
func axeCSV(rows ...[3]string) string {
	var b strings.Builder
	b.WriteString("id,impact,num_issues,help\r\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%s,%s,help for %s\r\n", r[0], r[1], r[2], r[0])
	}
	return b.String()
}

func summarise(t *testing.T, files map[string]string, opts Options) *Summary {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	s, err := SummarizeFS(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTopViolationsLimit: the summary lists the 10 rules with the most
// issues (one below, at and one above the limit), ties ranked by the
// worst impact, then by id.
func TestTopViolationsLimit(t *testing.T) {
	if TopViolationsLimit != 10 {
		t.Fatalf("TopViolationsLimit = %d; the cases below are written for 10", TopViolationsLimit)
	}
	rules := func(n int) string {
		rows := make([][3]string, 0, n)
		for i := range n {
			rows = append(rows, [3]string{fmt.Sprintf("rule-%02d", i), "minor", fmt.Sprint(100 - i)})
		}
		return axeCSV(rows...)
	}
	for _, n := range []int{9, 10, 11} {
		s := summarise(t, map[string]string{"axe_core_audit.csv": rules(n)}, Options{})
		want := min(n, 10)
		if len(s.TopViolations) != want {
			t.Fatalf("%d rules: %d listed, want %d", n, len(s.TopViolations), want)
		}
		for i, v := range s.TopViolations {
			if v.ID != fmt.Sprintf("rule-%02d", i) || v.Count != int64(100-i) {
				t.Errorf("%d rules: #%d is %s with %d", n, i, v.ID, v.Count)
			}
		}
	}
}

// TestViolationRanking: most issues first; at equal counts the worst
// impact (an unknown or missing one after minor), then the id.
func TestViolationRanking(t *testing.T) {
	s := summarise(t, map[string]string{"axe_core_audit.csv": axeCSV(
		[3]string{"b-minor", "minor", "5"},
		[3]string{"a-unknown", "bogus", "5"},
		[3]string{"c-none", "", "5"},
		[3]string{"z-critical", "critical", "5"},
		[3]string{"y-serious", "serious", "5"},
		[3]string{"x-moderate", "moderate", "5"},
		[3]string{"a-moderate", "moderate", "5"},
		[3]string{"most", "minor", "6"},
		[3]string{"fewest", "critical", "4"},
	)}, Options{})
	got := make([]string, 0, len(s.TopViolations))
	for _, v := range s.TopViolations {
		got = append(got, v.ID)
	}
	want := []string{"most", "z-critical", "y-serious", "a-moderate", "x-moderate", "b-minor", "a-unknown", "c-none", "fewest"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
}

// TestViolationImpactIsTheWorst: a rule's impact is the worst of its
// issues' (whatever the order they come in); rows without issues do not
// count.
func TestViolationImpactIsTheWorst(t *testing.T) {
	tests := []struct {
		name    string
		impacts []string
		want    string
	}{
		{"one", []string{"serious"}, "serious"},
		{"worse later", []string{"minor", "moderate", "critical"}, "critical"},
		{"better later", []string{"critical", "minor"}, "critical"},
		{"the same", []string{"serious", "serious"}, "serious"},
		{"none first", []string{"", "moderate"}, "moderate"},
		{"none later", []string{"moderate", ""}, "moderate"},
		{"unknown later", []string{"minor", "bogus"}, "minor"},
		{"unknown first", []string{"bogus", "minor"}, "minor"},
		{"unknown, then none", []string{"bogus", ""}, "bogus"},
		{"unknown, then another", []string{"bogus", "other"}, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows [][3]string
			for _, imp := range tt.impacts {
				rows = append(rows, [3]string{"rule", imp, "1"}, [3]string{"rule", "critical", "0"})
			}
			s := summarise(t, map[string]string{"axe_core_audit.csv": axeCSV(rows...)}, Options{})
			if len(s.TopViolations) != 1 || s.TopViolations[0].Impact != tt.want || s.TopViolations[0].Count != int64(len(tt.impacts)) {
				t.Errorf("violations %+v, want one of impact %q and count %d", s.TopViolations, tt.want, len(tt.impacts))
			}
		})
	}
}

// TestNegativeCountsAreRefused: a negative num_issues or number_of_pages
// (CWAC writes none) fails the summary naming the file and the value, rather
// than taking issues or pages away from the totals.
func TestNegativeCountsAreRefused(t *testing.T) {
	for name, data := range map[string]string{
		"axe_core_audit.csv": axeCSV([3]string{"a", "minor", "1"}, [3]string{"c", "minor", "-1"}),
		"pages_scanned.csv":  "organisation,base_url,number_of_pages,sector\r\nO,https://a/,-4,S\r\n",
	} {
		_, err := SummarizeFS(fstest.MapFS{name: {Data: []byte(data)}}, Options{})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "is not a count: it is negative") {
			t.Errorf("%s: error %v, want one naming the file and the negative count", name, err)
		}
	}
}

// TestIssueCounts: rows of 0 issues are not issues; an issue audit that
// found nothing is listed with 0; rows of audits without num_issues are
// counted as informational.
func TestIssueCounts(t *testing.T) {
	s := summarise(t, map[string]string{
		"axe_core_audit.csv": axeCSV([3]string{"a", "minor", "1"}, [3]string{"b", "minor", "0"},
			[3]string{"d", "serious", "2.0"}),
		"reflow_audit.csv":              "url,num_issues\r\n",
		"language_audit.csv":            "url,language\r\nu,en\r\nv,mi\r\n",
		"element_audit.csv":             "url,tag\r\n",
		"pages_scanned.csv":             "organisation,base_url,number_of_pages,sector\r\nO,https://a/,0,S\r\nO,https://b/,2,S\r\n",
		"audit_log.csv":                 "url\r\nu\r\nu\r\nv\r\n",
		"unexpected_response_codes.csv": "url\r\nx\r\n",
	}, Options{ExpectedBaseURLs: []string{"https://c/", "https://b/", "https://a/", "https://c/"}})
	want := map[string]int64{"axe_core_audit": 3, "reflow_audit": 0}
	if diff := cmp.Diff(want, s.IssuesByAuditType); diff != "" {
		t.Errorf("issues by audit (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"language_audit": 2, "element_audit": 0}, s.Informational); diff != "" {
		t.Errorf("informational (-want +got):\n%s", diff)
	}
	if s.TotalIssues != 3 || s.IssuesByImpact["minor"] != 1 || s.IssuesByImpact["serious"] != 2 || len(s.TopViolations) != 2 {
		t.Errorf("total %d, by impact %v, %d violations", s.TotalIssues, s.IssuesByImpact, len(s.TopViolations))
	}
	if s.PagesScanned != 2 || s.URLsScanned != 2 || s.UnexpectedResponses != 1 {
		t.Errorf("pages %d, URLs %d, unexpected %d", s.PagesScanned, s.URLsScanned, s.UnexpectedResponses)
	}
	if diff := cmp.Diff([]string{"https://c/", "https://a/"}, s.UnscannedBaseURLs); diff != "" {
		t.Errorf("unscanned, in the order given (-want +got):\n%s", diff)
	}
	order := make([]string, 0, len(s.BaseURLs))
	for _, b := range s.BaseURLs {
		order = append(order, b.BaseURL)
	}
	if diff := cmp.Diff([]string{"https://c/", "https://b/", "https://a/"}, order); diff != "" {
		t.Errorf("base URLs, in the order given (-want +got):\n%s", diff)
	}
}

// TestProgressOfRows: the elapsed time runs from the first timestamp to the
// last, to a tenth of a second; the last row's counts stand.
func TestProgressOfRows(t *testing.T) {
	const header = "time,iteration,total,speed,percent,elapsed,remaining\r\n"
	tests := []struct {
		name string
		rows string
		want Progress
	}{
		{name: "no rows", want: Progress{}},
		{name: "one row", rows: "100.0,1,4,1.0,25.0,0,0\r\n", want: Progress{PagesDone: 1, PagesEstimated: 4, Percent: 25}},
		{name: "rounded to a tenth", rows: "100.0,1,4,1,25.0,,\r\n112.34,4,4,1,100.0,,\r\n",
			want: Progress{PagesDone: 4, PagesEstimated: 4, Percent: 100, ElapsedSeconds: 12.3}},
		{name: "rounded up", rows: "100.0,1,4,1,25.0,,\r\n100.06,2,4,1,50.0,,\r\n",
			want: Progress{PagesDone: 2, PagesEstimated: 4, Percent: 50, ElapsedSeconds: 0.1}},
		{name: "unreadable cells keep what came before", rows: "100.0,1,4,1,25.0,,\r\nx,y,z,1,w,,\r\n", want: Progress{PagesDone: 1, PagesEstimated: 4, Percent: 25}},
		{name: "time going back", rows: "100.0,1,4,1,25.0,,\r\n90.0,2,4,1,50.0,,\r\n", want: Progress{PagesDone: 2, PagesEstimated: 4, Percent: 50}},
		{name: "a first time of 0 is no time", rows: "0,1,4,1,25.0,,\r\n5.0,2,4,1,50.0,,\r\n7.5,3,4,1,75.0,,\r\n",
			want: Progress{PagesDone: 3, PagesEstimated: 4, Percent: 75, ElapsedSeconds: 2.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ProgressOf(fstest.MapFS{ProgressFile: {Data: []byte(header + tt.rows)}})
			if got != tt.want {
				t.Errorf("ProgressOf = %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := ProgressOf(fstest.MapFS{}); got != (Progress{}) {
		t.Errorf("without progress.csv: %+v", got)
	}
}
