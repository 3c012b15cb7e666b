package dashboard

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// The tests fill a store through internal/ingest from the real CWAC run
// kept in testdata, rewritten into several organisations: each is the
// real run with its organisation, sector and host changed and some rules'
// rows left out, so every figure the pages show was produced by the same
// code as in production from CWAC's real format.

var realRun = realcwac.Dir()

const (
	testNS    = "cwac"
	otherNS   = "team-b"
	realHost  = "http://127.0.0.1:8765"
	bom       = "\xef\xbb\xbf"
	sectorA   = "Health"
	sectorB   = "Local government"
	orgAlpha  = "Alpha Agency"
	orgBeta   = "Beta Board"
	orgGamma  = "Gamma Council"
	orgDelta  = "Delta Trust"
	orgEps    = "Epsilon Office"
	orgHidden = "Hidden Org"
)

// orgRun is one organisation's part of a scan.
type orgRun struct {
	name, sector, host string
	// drop leaves out the rows of these axe rules (a fix).
	drop []string
	// noPages makes the organisation's scan see no page at all.
	noPages bool
	// refused are pages of the organisation that answered 403: its scan
	// is partial (issue 23's completeness).
	refused []string
	// bodyFocus adds a focus row on the home page's <body>, which CWAC
	// writes on some runs only: set aside from every figure.
	bodyFocus bool
}

// realFiles reads the real run's top-level files.
func realFiles(t *testing.T) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(realRun)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(realRun, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = b
		}
	}
	return files
}

// buildRun merges organisations' rewritten copies of the real run into
// one results directory, as CWAC writes one for a scan of several sites.
func buildRun(t *testing.T, files map[string][]byte, orgs []orgRun) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	for name, data := range files {
		if !strings.HasSuffix(name, ".csv") {
			out[name] = &fstest.MapFile{Data: data}
			continue
		}
		r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte(bom))))
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		header := rows[0]
		col := func(c string) int { return slices.Index(header, c) }
		orgCol, sectorCol, idCol, pagesCol := col("organisation"), col("sector"), col("id"), col("number_of_pages")
		merged := [][]string{header}
		if orgCol < 0 { // progress.csv, unexpected_response_codes.csv: kept once
			merged = rows
			if name == "unexpected_response_codes.csv" {
				for _, o := range orgs {
					for _, page := range o.refused {
						merged = append(merged, []string{o.host + "/", o.host + "/", o.host + page, "403"})
					}
				}
			}
		} else {
			for _, o := range orgs {
				for _, row := range rows[1:] {
					if o.noPages && name != "pages_scanned.csv" {
						continue
					}
					if idCol >= 0 && slices.Contains(o.drop, row[idCol]) {
						continue
					}
					row = slices.Clone(row)
					for i, c := range row {
						row[i] = strings.ReplaceAll(c, realHost, o.host)
					}
					row[orgCol] = o.name
					if sectorCol >= 0 {
						row[sectorCol] = o.sector
					}
					if o.noPages && pagesCol >= 0 {
						row[pagesCol] = "0"
					}
					merged = append(merged, row)
				}
				if o.bodyFocus && name == "focus_indicator_audit.csv" {
					merged = append(merged, bodyFocusRow(header, merged[len(merged)-1]))
				}
			}
		}
		var b bytes.Buffer
		b.WriteString(bom)
		w := csv.NewWriter(&b)
		_ = w.WriteAll(merged)
		out[name] = &fstest.MapFile{Data: b.Bytes()}
	}
	return out
}

// bodyFocusRow is like's row for a tab press that focused the page's <body>.
func bodyFocusRow(header, like []string) []string {
	row := slices.Clone(like)
	for col, v := range map[string]string{"description": "Tab key press #5 did not show a focus indicator", "num_issues": "1",
		"html": "<body>\n<header>\n  <nav aria-label=\"Main\"><a href=\"/\">Home</a></nav>"} {
		row[slices.Index(header, col)] = v
	}
	return row
}

// weekScan is the nth weekly scan's record in a namespace.
func weekScan(ns string, n int) store.Scan {
	name := "weekly-" + string(rune('0'+n))
	return store.Scan{UID: ns + "-" + name, Namespace: ns, Name: name, Schedule: "weekly", Phase: "Complete",
		FinishedAt: time.Date(2026, 10, 5, 3, 0, 0, 0, time.UTC).AddDate(0, 0, 7*n), ResultsPath: ns + "/" + name}
}

// fillStore records three weekly scans in testNS (Alpha improves, Beta
// regresses, Gamma in another sector, Delta's latest scan sees no page,
// Epsilon's latest scan has the best figures but is partial: a page
// refused it) and one in otherNS.
func fillStore(t *testing.T, st *store.Store) {
	t.Helper()
	files := realFiles(t)
	alpha := orgRun{name: orgAlpha, sector: sectorA, host: "https://alpha.example"}
	beta := orgRun{name: orgBeta, sector: sectorA, host: "https://beta.example", drop: []string{"color-contrast", "image-alt"}}
	gamma := orgRun{name: orgGamma, sector: sectorB, host: "https://gamma.example"}
	delta := orgRun{name: orgDelta, sector: sectorB, host: "https://delta.example"}
	eps := orgRun{name: orgEps, sector: sectorA, host: "https://epsilon.example"}
	clean := []string{"color-contrast", "image-alt", "label", "link-name", "html-has-lang"}
	partial := orgRun{name: orgEps, sector: sectorA, host: eps.host, drop: clean, refused: []string{"/staff/"}}
	weeks := [][]orgRun{
		{alpha, beta, gamma, delta, eps},
		{withDrop(alpha, "color-contrast"), beta, gamma, delta, eps},
		{withBodyFocus(withDrop(alpha, "color-contrast", "image-alt")), withDrop(beta, "image-alt"), gamma,
			{name: orgDelta, sector: sectorB, host: delta.host, noPages: true}, partial},
	}
	// A receiver of issue events seen before any scan: every scan is its.
	ctx := context.Background()
	if _, err := st.IssueEventsDue(ctx, fixtureReceiver, 1); err != nil {
		t.Fatal(err)
	}
	for i, orgs := range weeks {
		ingestRun(t, st, buildRun(t, files, orgs), weekScan(testNS, i))
	}
	ingestRun(t, st, buildRun(t, files, []orgRun{{name: orgHidden, sector: sectorA, host: "https://hidden.example"}}), weekScan(otherNS, 0))
	// weekly-2's changes were sent to it in one batch of 7.
	due, err := st.IssueEventsDue(ctx, fixtureReceiver, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		if d.ScanUID == weekScan(testNS, 2).UID {
			if err := st.IssueEventsSent(ctx, d.ScanID, fixtureReceiver, 99, 7, true); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fixtureReceiver is the fixture's receiver of issue events.
const fixtureReceiver = "tracker"

func withBodyFocus(o orgRun) orgRun {
	o.bodyFocus = true
	return o
}

func withDrop(o orgRun, rules ...string) orgRun {
	o.drop = rules
	return o
}

func ingestRun(t *testing.T, st *store.Store, fsys fstest.MapFS, scan store.Scan) {
	t.Helper()
	if _, err := ingest.Ingest(context.Background(), st, fsys, scan, ingest.Options{Holder: "test"}); err != nil {
		t.Fatalf("ingesting %s: %v", scan.Name, err)
	}
}

// testAccess is an Access for tests: a bearer token names the user, and
// grants lists the namespaces each user may read.
type testAccess struct {
	grants map[string][]string
	// orgGrants are each namespace's CwacOrganisationGrants.
	orgGrants map[string][]cwacv1alpha1.CwacOrganisationGrant
	down      bool
}

func (a testAccess) Identify(r *http.Request) (Principal, error) {
	if a.down {
		return Principal{}, errors.New("the API server did not answer")
	}
	user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || user == "" {
		return Principal{}, ErrUnauthenticated
	}
	return Principal{Name: user}, nil
}

func (a testAccess) Reach(_ context.Context, p Principal, ns string) (orgaccess.Reach, error) {
	if slices.Contains(a.grants[p.Name], ns) {
		return orgaccess.Whole(), nil
	}
	return orgaccess.Granted(a.orgGrants[ns], p.Name, nil), nil
}

// defaultAccess: "reader" reads testNS, "both" both namespaces, "nobody" none.
var defaultAccess = testAccess{grants: map[string][]string{"reader": {testNS}, "both": {testNS, otherNS}}}

// newTestHandler fills a SQLite store and serves the dashboard over it.
func newTestHandler(t *testing.T, opts Options) (*Handler, *store.Store) {
	t.Helper()
	st := storetest.OpenSQLite(t)
	fillStore(t, st)
	if opts.Access == nil {
		opts.Access = defaultAccess
	}
	if opts.Namespaces == nil {
		opts.Namespaces = []string{testNS, otherNS}
	}
	opts.Store = store.NewHandle(st)
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h, st
}

// get requests a path as a user ("" for no credentials).
func get(t *testing.T, h http.Handler, user, path string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+user)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}
