package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// tableCounts is every table's row count: what "nothing half-written" means.
func tableCounts(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"scans", "organisations", "pages", "issues", "presences", "organisation_scans", "templates", "template_scans"} {
		var n int
		if err := st.DB().QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func sameCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// TestIdempotentAndCrashSafe: a scan ingested twice adds nothing; an
// ingest stopped in the middle of its transaction leaves nothing, and
// ingesting again gives the figures of an ingest never stopped.
func TestIdempotentAndCrashSafe(t *testing.T) {
	weeks := weeklySequence(t)
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			clean := e.Open(t)
			want := make([]Result, 0, 3)
			for i, w := range weeks[:3] {
				want = append(want, ingestOK(t, clean, w, week(i)))
			}

			st := e.Open(t)
			ingestOK(t, st, weeks[0], week(0))
			ingestOK(t, st, weeks[1], week(1))
			before := tableCounts(t, st)
			if res := ingestOK(t, st, weeks[1], week(1)); !res.AlreadyStored {
				t.Errorf("the same scan again: %+v", res)
			}
			if after := tableCounts(t, st); !sameCounts(before, after) {
				t.Errorf("ingesting a scan again changed the store: %v → %v", before, after)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Cancelled at the second read of the results: in the middle
			// of the transaction, after the matching.
			fsys := &countingOpens{FS: weeks[2], file: axeCSV, opened: func(n int) {
				if n == 2 {
					cancel()
				}
			}}
			_, err := Ingest(ctx, st, fsys, week(2), Options{})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("an ingest cancelled mid-transaction: %v", err)
			}
			if fsys.opens != 2 {
				t.Fatalf("the results were opened %d times, want the cancel in the second read", fsys.opens)
			}
			if after := tableCounts(t, st); !sameCounts(before, after) {
				t.Errorf("a cancelled ingest left rows: %v → %v", before, after)
			}
			if ok, _ := st.HasScan(context.Background(), week(2).UID); ok {
				t.Error("a cancelled scan is stored")
			}
			if got := ingestOK(t, st, weeks[2], week(2)); !reflect.DeepEqual(got, want[2]) {
				t.Errorf("after the crash: %+v, want %+v", got, want[2])
			}
			a, _ := clean.OrganisationTrend(context.Background(), testNamespaces, org, "")
			b, _ := st.OrganisationTrend(context.Background(), testNamespaces, org, "")
			if len(a) != 3 || len(b) != 3 || a[2].Open != b[2].Open || a[2].Reopened != b[2].Reopened || a[2].Fixed != b[2].Fixed {
				t.Errorf("trends differ after the crash:\n%+v\n%+v", a, b)
			}
			if !sameCounts(tableCounts(t, clean), tableCounts(t, st)) {
				t.Errorf("stores differ after the crash: %v, %v", tableCounts(t, clean), tableCounts(t, st))
			}
		})
	}
}

// failingDir is a results directory that cannot be listed.
type failingDir struct{}

func (failingDir) Open(string) (fs.File, error) { return nil, fs.ErrPermission }

// TestBadInput: what cannot be read fails with a clear error naming what,
// and writes nothing.
func TestBadInput(t *testing.T) {
	realFS := loadReal(t).fs()
	truncated := loadReal(t).fs()
	data := truncated[axeCSV].Data
	truncated[axeCSV] = &fstest.MapFile{Data: append(append([]byte{}, data[:len(data)-40]...), []byte(`,"<img unterminated`)...)}
	badWidth := loadReal(t)
	badWidth.set(where{"url": home}, "viewport_size", "{'width': 'wide'}")
	badCount := loadReal(t)
	badCount.set(where{"url": home}, "num_issues", "many")
	tooMany := loadReal(t)
	tooMany.set(where{"url": home}, "num_issues", "4294967296")
	tooWide := loadReal(t)
	tooWide.set(where{"url": home}, "viewport_size", "{'width': 65536, 'height': 450}")
	huge := loadReal(t).fs()
	huge[axeCSV] = &fstest.MapFile{Data: append(append([]byte{}, data...), []byte(`"`+strings.Repeat("x", results.MaxRecordBytes+1)+`"`+"\n")...)}
	cases := []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"unreadable directory", failingDir{}, "permission denied"},
		{"empty directory", fstest.MapFS{}, "no CWAC results"},
		{"truncated CSV", truncated, axeCSV},
		{"viewport that is not one", badWidth.fs(), axeCSV},
		{"num_issues that is not a number", badCount.fs(), "num_issues"},
		{"num_issues past 32 bits", tooMany.fs(), "num_issues 4294967296 is out of range"},
		{"viewport wider than any window", tooWide.fs(), "viewport width 65536 is out of range"},
		{"a record past the reader's cap", huge, "larger than the reader allows"},
	}
	for _, e := range storetest.Engines() {
		for _, tc := range cases {
			t.Run(e.Name+"/"+tc.name, func(t *testing.T) {
				st := e.Open(t)
				ingestOK(t, st, realFS, week(0))
				before := tableCounts(t, st)
				_, err := Ingest(context.Background(), st, tc.fsys, week(1), Options{})
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "reading the results") {
					t.Errorf("error %v, want one reading the results about %q", err, tc.want)
				}
				if after := tableCounts(t, st); !sameCounts(before, after) {
					t.Errorf("bad input changed the store: %v → %v", before, after)
				}
			})
		}
	}
}

// TestHostileCells: markup, formulas, control characters, kilobytes of
// HTML and an unreasonable URL are stored as text, capped, never
// interpreted; the help URL is kept only when it is a web link.
func TestHostileCells(t *testing.T) {
	d := loadReal(t)
	long := "<div onclick=\"alert(1)\">" + strings.Repeat("é", 5000) + "</div>"
	d.set(where{"url": home, "id": "image-alt", "width": "320"}, "html", long)
	d.set(where{"url": home, "id": "image-alt", "width": "320"}, "helpUrl", "javascript:alert(1)")
	d.set(where{"url": home, "id": "image-alt", "width": "320"}, "id", "=cmd|' /C calc'!A0\x00\x1b[31m")
	d.set(where{"url": nolang}, "url", nolang+"?q="+strings.Repeat("a", 5000))
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			ingestOK(t, st, d.fs(), week(0))
			all, err := st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: testNamespaces, Limit: store.MaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, is := range all.Issues {
				if len(is.ElementHTML) > 2000+len("…") || len(is.Page) > maxURLBytes || len(is.Rule) > maxNameBytes {
					t.Errorf("a cell was not capped: html %d, page %d, rule %d bytes", len(is.ElementHTML), len(is.Page), len(is.Rule))
				}
				if strings.HasPrefix(is.Rule, "=cmd") {
					found = true
					if is.HelpURL != "" || !strings.HasPrefix(is.ElementHTML, "<div onclick") {
						t.Errorf("hostile row stored as %+v", is)
					}
				}
			}
			if !found {
				t.Errorf("the hostile row is missing: %+v", all.Issues)
			}
		})
	}
}

// TestStoreDown: a store that cannot be reached fails the ingest with the
// store's error, and the results are not touched.
func TestStoreDown(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			_ = st.Close()
			_, err := Ingest(context.Background(), st, loadReal(t).fs(), week(0), Options{})
			if err == nil || !strings.Contains(err.Error(), "store:") || !strings.Contains(err.Error(), "closed") {
				t.Errorf("error %v, want the store's", err)
			}
		})
	}
}

// TestStoreFull: SQLite with no room left fails mid-transaction and keeps
// nothing of the scan.
func TestStoreFull(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ingestOK(t, st, loadReal(t).fs(), week(0))
	st.DB().SetMaxOpenConns(1) // the page limit is per connection
	var pages int
	if err := st.DB().QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec("PRAGMA max_page_count = " + itoa(pages+1)); err != nil {
		t.Fatal(err)
	}
	before := tableCounts(t, st)
	big := loadReal(t)
	for i := range 300 {
		big.add(t, axeCSV, where{"url": home, "id": "image-alt", "width": "320"}, map[string]string{"html": "<img " + itoa(i) + strings.Repeat(" x", 200) + ">"})
	}
	_, err := Ingest(context.Background(), st, big.fs(), week(1), Options{})
	if err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("error %v, want the store's 'full'", err)
	}
	if after := tableCounts(t, st); !sameCounts(before, after) {
		t.Errorf("a full store kept part of the scan: %v → %v", before, after)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestSkippedFilesAreSaid: a result CSV that is a link or a pipe is not
// read, the scan is recorded without its rows, and the result names each
// such file and why, the first ten and then how many more.
func TestSkippedFilesAreSaid(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			st := e.Open(t)
			m := loadReal(t).fs()
			m[axeCSV] = &fstest.MapFile{Data: m[axeCSV].Data, Mode: fs.ModeSymlink}
			m["zz_pipe.csv"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
			res, err := Ingest(context.Background(), st, m, week(0), Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{axeCSV + " is not a regular file (L---------)", "zz_pipe.csv is not a regular file (p---------)"}
			if !slices.Equal(res.Skipped, want) || res.IssueRows == 0 {
				t.Errorf("skipped %q with %d issue rows, want %q and the other audits' rows", res.Skipped, res.IssueRows, want)
			}
			many := loadReal(t).fs()
			for i := range maxSkippedNamed + 3 {
				many[fmt.Sprintf("link%02d.csv", i)] = &fstest.MapFile{Mode: fs.ModeSymlink}
			}
			res, err = Ingest(context.Background(), st, many, week(1), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Skipped) != maxSkippedNamed+1 || res.Skipped[maxSkippedNamed] != "and 3 more result files that are not regular files" {
				t.Errorf("skipped %q", res.Skipped)
			}
			clean, err := Ingest(context.Background(), st, loadReal(t).fs(), week(2), Options{})
			if err != nil || clean.Skipped != nil {
				t.Errorf("a whole scan: skipped %q, %v", clean.Skipped, err)
			}
		})
	}
}
