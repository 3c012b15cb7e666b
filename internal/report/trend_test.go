package report

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

func point(i int, orgs ...string) TrendPoint {
	p := TrendPoint{ResultsDir: fmt.Sprintf("2026-11-%02d_00-00-00_weekly", i+1), Time: time.Date(2026, 11, i+1, 3, 0, 0, 0, time.UTC), TotalIssues: int64(10 * i)}
	for j, o := range orgs {
		p.Organisations = append(p.Organisations, TrendOrganisation{Organisation: o, Issues: int64(i + j)})
	}
	return p
}

func TestReadTrend(t *testing.T) {
	good, err := EncodeTrend([]TrendPoint{point(0, "A"), point(1, "A", "B")})
	if err != nil {
		t.Fatal(err)
	}
	tooMany := make([]TrendPoint, MaxTrendPoints+1)
	many, _ := EncodeTrend(tooMany)
	wideOrgs := make([]string, MaxTrendOrganisations+1)
	for i := range wideOrgs {
		wideOrgs[i] = fmt.Sprint("org", i)
	}
	wide, _ := EncodeTrend([]TrendPoint{point(0, wideOrgs...)})
	atLimit, _ := EncodeTrend(make([]TrendPoint, MaxTrendPoints))
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    int
		wantErr string
	}{
		{name: "no history", files: fstest.MapFS{}, want: 0},
		{name: "two points", files: fstest.MapFS{TrendFile: {Data: good}}, want: 2},
		{name: "at the limit", files: fstest.MapFS{TrendFile: {Data: atLimit}}, want: MaxTrendPoints},
		{name: "one point too many", files: fstest.MapFS{TrendFile: {Data: many}}, wantErr: "more than 12"},
		{name: "an organisation too many", files: fstest.MapFS{TrendFile: {Data: wide}}, wantErr: "beyond the bounds"},
		{name: "another format", files: fstest.MapFS{TrendFile: {Data: []byte(`{"format":"x","points":[]}`)}}, wantErr: "format"},
		{name: "unknown field", files: fstest.MapFS{TrendFile: {Data: []byte(`{"format":"cwac-operator.trend/v1","points":[],"x":1}`)}}, wantErr: "unknown field"},
		{name: "not JSON", files: fstest.MapFS{TrendFile: {Data: []byte("<html>")}}, wantErr: "trend.json"},
		{name: "too large", files: fstest.MapFS{TrendFile: {Data: []byte(strings.Repeat(" ", maxTrendFileBytes+1))}}, wantErr: "more than"},
		{name: "a directory", files: fstest.MapFS{TrendFile + "/x": {Data: []byte("x")}}, wantErr: "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadTrend(tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.want {
				t.Fatalf("ReadTrend = %d points, %v; want %d", len(got), err, tt.want)
			}
		})
	}
}

func TestAppendTrend(t *testing.T) {
	var h []TrendPoint
	for i := 0; i < MaxTrendPoints+3; i++ {
		h = AppendTrend(h, point(i, "A"))
		if want := min(i+1, MaxTrendPoints); len(h) != want {
			t.Fatalf("after %d points: %d kept, want %d", i+1, len(h), want)
		}
	}
	if h[0].TotalIssues != 30 || h[len(h)-1].TotalIssues != 140 {
		t.Errorf("kept %d..%d, want the newest (30..140)", h[0].TotalIssues, h[len(h)-1].TotalIssues)
	}
}

func TestTrendView(t *testing.T) {
	if v := trendOf([]TrendPoint{point(0, "A")}); v != nil {
		t.Errorf("one point makes a trend: %+v", v)
	}
	v := trendOf([]TrendPoint{point(0, "Gone"), point(1, "A", "Gone"), point(2, "A", "New")})
	if len(v.Scans) != 3 || v.Total[2] != "20" || len(v.Rows) != 2 {
		t.Fatalf("view %+v", v)
	}
	if got := strings.Join(v.Rows[0].Cells, " "); v.Rows[0].Organisation != "A" || got != "– 1 2" {
		t.Errorf("row A: %s %q", v.Rows[0].Organisation, got)
	}
	if got := strings.Join(v.Rows[1].Cells, " "); v.Rows[1].Organisation != "New" || got != "– – 3" {
		t.Errorf("row New: %s %q", v.Rows[1].Organisation, got)
	}
	orgs := make([]string, maxTrendRows+2)
	for i := range orgs {
		orgs[i] = fmt.Sprint("org", i)
	}
	if v := trendOf([]TrendPoint{point(0), point(1, orgs...)}); len(v.Rows) != maxTrendRows || v.More != 2 {
		t.Errorf("%d rows, %d more; want %d and 2", len(v.Rows), v.More, maxTrendRows)
	}
}

// The report shows the trend with two points or more, escaped like every
// cell from the results.
func TestReportTrendSection(t *testing.T) {
	b := NewBuilder()
	sum := &results.Summary{TotalIssues: 3, PagesScanned: 1}
	one := Meta{Title: "t", Trend: []TrendPoint{point(0, "A")}}
	html, _, err := b.Render(one, sum)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), `id="trend"`) {
		t.Error("a trend of one point is shown")
	}
	two := Meta{Title: "t", Trend: []TrendPoint{point(0, "<script>x</script>"), point(1, "<script>x</script>")}}
	html, _, err = b.Render(two, sum)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(html); !strings.Contains(s, `<h2 id="trend-h">Over time</h2>`) || strings.Contains(s, "<script>x") || !strings.Contains(s, "&lt;script&gt;x") {
		t.Error("the trend section is missing or not escaped")
	}
}

// A scan's point carries each organisation's verdict, and no score for
// one the scan found blocked or unreachable: its 0 issues are a challenge
// page's or an error's, not a clean site's. A partial one keeps its score.
func TestTrendPointVerdicts(t *testing.T) {
	summary, b, err := build(os.DirFS(mixedScan), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TrendOrganisation{}
	for _, o := range b.TrendPoint(Meta{ResultsDir: "mixed"}, summary).Organisations {
		got[o.Organisation] = o
	}
	for org, want := range map[string]struct {
		verdict string
		scored  bool
	}{
		"Challenge Org": {"blocked", false}, "Firewall Org": {"blocked", false}, "Down Org": {"unreachable", false},
		"Half Org": {"partial", true}, "Big Org": {"complete", true},
	} {
		o := got[org]
		if o.Completeness != want.verdict || (o.Score != nil) != want.scored {
			t.Errorf("%s: completeness %q, score %v; want %q, scored %v", org, o.Completeness, o.Score, want.verdict, want.scored)
		}
	}
	// trend.json keeps the verdict for the next scan's report.
	data, err := EncodeTrend([]TrendPoint{{Organisations: []TrendOrganisation{got["Challenge Org"]}}})
	if err != nil {
		t.Fatal(err)
	}
	points, err := ReadTrend(fstest.MapFS{TrendFile: {Data: data}})
	if err != nil || len(points) != 1 || points[0].Organisations[0].Completeness != "blocked" {
		t.Errorf("trend.json read back as %+v, %v", points, err)
	}
}

// The "Over time" table shows the verdict, not the count, of a scan that
// found an organisation blocked or unreachable; a partial scan's count,
// and that of a point written before trend.json had verdicts, stay.
func TestTrendViewVerdicts(t *testing.T) {
	points := []TrendPoint{point(0, "A"), point(1, "A"), point(2, "A"), point(3, "A")}
	points[1].Organisations[0].Completeness = "blocked"
	points[2].Organisations[0].Completeness = "partial"
	points[3].Organisations[0].Completeness = "unreachable"
	v := trendOf(points)
	if got := strings.Join(v.Rows[0].Cells, " "); got != "0 blocked 2 unreachable" {
		t.Errorf("row A: %q, want %q", got, "0 blocked 2 unreachable")
	}
}
