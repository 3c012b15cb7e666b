package dashboard

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// fakeScans is a ScanSource over scans in memory and results in MapFSs.
type fakeScans struct {
	scans   []ScanInfo
	results map[string]fs.FS // "ns/name" → results directory
	down    bool
}

func (f *fakeScans) ListScans(_ context.Context, namespaces []string) ([]ScanInfo, error) {
	if f.down {
		return nil, errors.New("the API server did not answer")
	}
	var out []ScanInfo
	for _, s := range f.scans {
		if slices.Contains(namespaces, s.Namespace) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeScans) GetScan(_ context.Context, ns, name string) (ScanInfo, error) {
	if f.down {
		return ScanInfo{}, errors.New("the API server did not answer")
	}
	for _, s := range f.scans {
		if s.Namespace == ns && s.Name == name {
			return s, nil
		}
	}
	return ScanInfo{}, fmt.Errorf("%s/%s: %w", ns, name, ErrScanNotFound)
}

func (f *fakeScans) OpenResults(_ context.Context, ns, name string) (fs.FS, func(), error) {
	fsys, ok := f.results[ns+"/"+name]
	if !ok {
		return nil, nil, fmt.Errorf("%s/%s: %w", ns, name, ErrNoResults)
	}
	return fsys, func() {}, nil
}

// testScans: the three weekly scans the store holds (newest first, the
// newest with a baseline comparison and a report), a failed scan, a
// running one, and one in the other namespace.
func testScans(t *testing.T) *fakeScans {
	t.Helper()
	at := func(n int) *time.Time { tm := weekScan(testNS, n).FinishedAt; return &tm }
	exit := int32(1)
	results := buildRun(t, realFiles(t), []orgRun{{name: orgAlpha, sector: sectorA, host: "https://alpha.example"}})
	results["report.html"] = &fstest.MapFile{Data: []byte("<!DOCTYPE html><title>report</title>")}
	results["screenshots"] = &fstest.MapFile{Mode: fs.ModeDir}
	f := &fakeScans{results: map[string]fs.FS{testNS + "/weekly-2": results}}
	f.scans = []ScanInfo{
		{Namespace: testNS, Name: "running-1", Phase: "Running", Created: at(2).Add(48 * time.Hour), Message: "CWAC is scanning"},
		{Namespace: testNS, Name: "broken", Phase: "Failed", Created: at(2).Add(24 * time.Hour), Finished: at(2),
			Message: "CWAC exited with code 1", Failure: &ScanFailure{Reason: "CWACExitedNonZero", ExitCode: &exit,
				Cause: "KeyError: 'viewport_sizes'", LogTail: "Traceback (most recent call last):\nKeyError: 'viewport_sizes'"}},
	}
	for i := 2; i >= 0; i-- {
		s := ScanInfo{Namespace: testNS, Name: weekScan(testNS, i).Name, UID: weekScan(testNS, i).UID, Schedule: "weekly", Phase: "Complete",
			Created: at(i).Add(-time.Hour), Finished: at(i), Message: "scanned 16 pages",
			Summary: &ScanSummary{Pages: 16, URLs: 16, Issues: 40, ByImpact: map[string]int64{"critical": 8, "serious": 20}}}
		if i == 2 {
			s.Baseline = "weekly-1"
			s.Summary.UnscannedBaseURLs = []string{"https://delta.example/"}
			s.Summary.Diff = &ScanDiff{Baseline: "weekly-1", New: 4, Fixed: 2, Unchanged: 38, Unstable: 3,
				ByOrganisation: []OrganisationDiff{
					{Organisation: orgBeta, New: 4, Unchanged: 29, NewByImpact: map[string]int64{"minor": 1, "critical": 2}},
					{Organisation: orgAlpha, Fixed: 2, Unchanged: 9}}}
		}
		f.scans = append(f.scans, s)
	}
	f.scans = append(f.scans, ScanInfo{Namespace: otherNS, Name: "weekly-0", Phase: "Complete", Created: *at(0)})
	return f
}

func TestScansPage(t *testing.T) {
	scans := testScans(t)
	h, _ := newTestHandler(t, Options{Scans: scans})
	res, body := get(t, h, "reader", "/scans")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	for _, want := range []string{`<label for="f-phase">Phase</label>`, `<label for="f-schedule">Schedule</label>`,
		`<label for="f-namespace">Namespace</label>`, "5 scans, newest first", `href="/scans/cwac/broken"`, "CWAC is scanning"} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if strings.Contains(body, "team-b/weekly-0") {
		t.Error("a reader of one namespace sees another's scan")
	}
	order := []string{"cwac/running-1", "cwac/broken", "cwac/weekly-2", "cwac/weekly-1", "cwac/weekly-0"}
	last := 0
	for _, n := range order {
		i := strings.Index(body, ">"+n+"</a>")
		if i < last {
			t.Fatalf("%s missing or out of order", n)
		}
		last = i
	}
	for _, tc := range []struct {
		query string
		want  []string
		not   []string
	}{
		{"?phase=Failed", []string{"cwac/broken"}, []string{"cwac/weekly-2", "cwac/running-1"}},
		{"?schedule=weekly", []string{"cwac/weekly-0", "cwac/weekly-2"}, []string{"cwac/broken"}},
		{"?namespace=cwac&phase=Complete&schedule=weekly", []string{"3 scans"}, []string{"cwac/broken"}},
	} {
		res, body := get(t, h, "reader", "/scans"+tc.query)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", tc.query, res.StatusCode)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: lacks %q", tc.query, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(body, ">"+n+"</a>") {
				t.Errorf("%s: shows %q", tc.query, n)
			}
		}
	}
	_, body = get(t, h, "both", "/scans?namespace=team-b")
	if !strings.Contains(body, "team-b/weekly-0") || strings.Contains(body, "cwac/broken") {
		t.Error("namespace filter for a reader of both")
	}
	for _, tc := range []struct{ query, field, want string }{
		{"?phase=Done", "f-phase", "phase &#34;Done&#34; is not one of Pending, Queued, Running, Complete, Failed"},
		{"?schedule=No%20Spaces", "f-schedule", "schedule &#34;No Spaces&#34; is not a Kubernetes name"},
		{"?namespace=team-b", "f-namespace", "namespace &#34;team-b&#34; is not one whose scans you may read (cwac)"},
		{"?sort=name", "", "unknown query parameter &#34;sort&#34;: this page takes schedule, phase, namespace"},
	} {
		res, body := get(t, h, "reader", "/scans"+tc.query)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want 400 with %q", tc.query, res.StatusCode, tc.want)
		}
		if tc.field != "" && !strings.Contains(body, `id="`+tc.field+`" name="`+strings.TrimPrefix(tc.field, "f-")+`" value="`) &&
			!strings.Contains(body, `<select id="`+tc.field+`" name="`+strings.TrimPrefix(tc.field, "f-")+`" aria-invalid="true" aria-describedby="filter-error">`) {
			t.Errorf("%s: the field at fault is not marked invalid", tc.query)
		}
	}
	scans.down = true
	if res, body := get(t, h, "reader", "/scans"); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "could not be read just now") {
		t.Errorf("scans down: %d", res.StatusCode)
	}
}

// TestScanPageSaysWhyNotRecorded: a scan the history's writer could not
// record says why on its page, in the writer's words; a scan of the same
// name but another UID does not take its note.
func TestScanPageSaysWhyNotRecorded(t *testing.T) {
	scans := testScans(t)
	scans.scans[1].UID = "uid-broken"
	h, st := newTestHandler(t, Options{Scans: scans})
	note := "recording in the issue history failed (attempt 2 of 8), retried with backoff while newer scans are recorded: <disk I/O error>"
	if err := st.NoteUnrecorded(context.Background(), store.UnrecordedScan{UID: "uid-broken", Namespace: testNS, Name: "broken",
		State: store.Retrying, Reason: note, Attempts: 2, UpdatedAt: time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, h, "reader", "/scans/cwac/broken")
	want := "This scan is not in the issue history (noted 2026-11-28 09:30 UTC): recording in the issue history failed (attempt 2 of 8), " +
		"retried with backoff while newer scans are recorded: &lt;disk I/O error&gt;."
	if !strings.Contains(body, want) {
		t.Errorf("the page lacks %q", want)
	}
	scans.scans[1].UID = "uid-broken-again"
	if _, body := get(t, h, "reader", "/scans/cwac/broken"); strings.Contains(body, "disk I/O") ||
		!strings.Contains(body, "This scan is not in the issue history (it has not finished") {
		t.Error("a scan of the same name took another scan's note")
	}
}

// TestScanPageSaysWhatWasNotRead: a scan recorded without some of its
// result files (a link, a pipe) says so on its page, beside its
// organisations' figures, in the writer's words; it is not said to be
// missing from the history.
func TestScanPageSaysWhatWasNotRead(t *testing.T) {
	scans := testScans(t)
	for i := range scans.scans {
		if scans.scans[i].Name == "weekly-2" {
			scans.scans[i].UID = "uid-weekly-2"
		}
	}
	h, st := newTestHandler(t, Options{Scans: scans})
	note := "recorded in the issue history: 2 organisations, 0 new; not read, so not in its figures: axe_core_audit.csv is not a regular file (L---------)"
	if err := st.NoteUnrecorded(context.Background(), store.UnrecordedScan{UID: "uid-weekly-2", Namespace: testNS, Name: "weekly-2",
		State: store.Partial, Reason: note, UpdatedAt: time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, h, "reader", "/scans/cwac/weekly-2")
	want := `<p class="note">Some of this scan&#39;s results were not read into the issue history (noted 2026-11-29 09:30 UTC): ` +
		"recorded in the issue history: 2 organisations, 0 new; not read, so not in its figures: axe_core_audit.csv is not a regular file (L---------).</p>"
	if !strings.Contains(body, want) {
		t.Errorf("the page lacks %q", want)
	}
	if !strings.Contains(body, "Each organisation's figures in this scan") || strings.Contains(body, "This scan is not in the issue history") {
		t.Error("a scan recorded in part is not shown as recorded")
	}
}

func TestScanPage(t *testing.T) {
	h, _ := newTestHandler(t, Options{Scans: testScans(t)})
	res, body := get(t, h, "reader", "/scans/cwac/weekly-2")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	for _, want := range []string{
		"<h1>Scan cwac/weekly-2</h1>", `<a href="/scans/cwac/weekly-2/files/report.html">Download report.html</a>`,
		"Compared with the baseline, weekly-1", "https://delta.example/", `href="/organisations/cwac/Alpha%20Agency"`,
		`href="/scans/cwac/weekly-2/files/axe_core_audit.csv"`, "Each organisation's figures in this scan",
		`<th scope="col">New by impact</th>`, `<td class="num">4</td><td>critical 2, minor 1</td>`,
		// An organisation with nothing new says nothing of impacts.
		`<td class="num">0</td><td></td><td class="num">2</td>`,
		// The impacts add up to the issues, or say what the rest are; the
		// two comparisons say how they differ.
		"minor 0, and 12 from CWAC's own audits (focus indicator, reflow), which give no impact",
		"compare each organisation with its own previous recorded scan instead",
		"(not necessarily the baseline, weekly-1, compared above)",
		// Rows not compared: why, in the comparison's own words.
		"<dt>Unstable</dt><dd>3 (left out of new and fixed)<details class=\"why\"><summary>Why issues are left out of new and fixed</summary>",
		"<li>" + html.EscapeString(diff.UnstableReasons()[1]) + "</li>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the scan page lacks %q", want)
		}
	}
	if strings.Contains(body, "/files/screenshots") {
		t.Error("a directory is listed as a file")
	}
	// The report is listed first.
	if i, j := strings.Index(body, "/files/report.html\">report.html"), strings.Index(body, "/files/audit_log.csv"); i < 0 || j < i {
		t.Error("report.html is not listed first")
	}
	_, body = get(t, h, "reader", "/scans/cwac/broken")
	for _, want := range []string{"Why it failed", "CWACExitedNonZero", "<dd>1</dd>", "KeyError: &#39;viewport_sizes&#39;",
		"This scan is not in the issue history", "This scan has no results directory."} {
		if !strings.Contains(body, want) {
			t.Errorf("the failed scan's page lacks %q", want)
		}
	}
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/scans/cwac/nothing", http.StatusNotFound, "No scan nothing in namespace cwac."},
		{"/scans/team-b/weekly-0", http.StatusNotFound, "No scan weekly-0 in namespace team-b that you may read."},
		{"/scans/cwac/Bad_Name", http.StatusBadRequest, "scan name &#34;Bad_Name&#34; is not a Kubernetes name"},
		{"/scans/cwac/weekly-2/files/nothing.csv", http.StatusNotFound, "Scan cwac/weekly-2 has no result file nothing.csv."},
		{"/scans/cwac/weekly-2/files/sub%2F..%2F..%2Fsecret", http.StatusBadRequest, "is not a result file&#39;s name"},
		{"/scans/cwac/weekly-2/files/.hidden", http.StatusBadRequest, "is not a result file&#39;s name"},
		{"/scans/cwac/weekly-2/files/screenshots", http.StatusNotFound, "has no result file screenshots"},
		{"/scans/cwac/broken/files/report.html", http.StatusNotFound, "Scan cwac/broken has no results directory."},
		{"/scans/team-b/weekly-0/files/report.html", http.StatusNotFound, "that you may read"},
	} {
		res, body := get(t, h, "reader", tc.path)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %d with %q:\n%s", tc.path, res.StatusCode, tc.code, tc.want, body)
		}
	}
}

func TestScanFileDownload(t *testing.T) {
	scans := testScans(t)
	h, _ := newTestHandler(t, Options{Scans: scans})
	want, err := fs.ReadFile(scans.results["cwac/weekly-2"], "axe_core_audit.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "reader", "/scans/cwac/weekly-2/files/axe_core_audit.csv")
	if res.StatusCode != http.StatusOK || body != string(want) {
		t.Fatalf("download: %d, %d bytes, want %d", res.StatusCode, len(body), len(want))
	}
	if res.Header.Get("Content-Type") != "text/csv; charset=utf-8" || res.Header.Get("Content-Disposition") != `attachment; filename="axe_core_audit.csv"` {
		t.Errorf("headers %v", res.Header)
	}
	res, _ = get(t, h, "reader", "/scans/cwac/weekly-2/files/report.html")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Disposition") != `attachment; filename="report.html"` ||
		res.Header.Get("Content-Security-Policy") != ContentSecurityPolicy {
		t.Errorf("the report is not a download under the dashboard's policy: %v", res.Header)
	}
	if res, _ := get(t, h, "", "/scans/cwac/weekly-2/files/report.html"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a download without credentials: %d", res.StatusCode)
	}
}

func TestScansWithoutSource(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	if res, body := get(t, h, "reader", "/scans"); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "without access to the scans") {
		t.Errorf("no scan source: %d", res.StatusCode)
	}
}

// TestPlural: counts read right in the singular, whatever integer type a
// page holds; anything else is an error, not a page with a wrong word.
func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    any
		want string
	}{{1, "1 scan"}, {int64(1), "1 scan"}, {int32(1), "1 scan"}, {0, "0 scans"}, {int64(2), "2 scans"}, {-1, "-1 scans"}} {
		if got, err := Plural(tc.n, "scan", "scans"); err != nil || got != tc.want {
			t.Errorf("Plural(%v) = %q, %v; want %q", tc.n, got, err, tc.want)
		}
	}
	if _, err := Plural("1", "scan", "scans"); err == nil {
		t.Error("a string counted")
	}
	one, more := int64(1), int64(3)
	if got := formatIntChange(&one); got != "1 more issue" {
		t.Errorf("formatIntChange(1) = %q", got)
	}
	if got := formatIntChange(&more); got != "3 more issues" {
		t.Errorf("formatIntChange(3) = %q", got)
	}
}
