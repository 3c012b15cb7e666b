package ingest

import (
	"context"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// testNamespace is the namespace of every test scan; testNamespaces
// scopes the reads to it.
const testNamespace = "a11y"

var testNamespaces = []string{testNamespace}

// resultsDir is the real run held in memory, edited week by week.
type resultsDir struct{ *realcwac.Results }

// loadReal reads the real run into memory.
func loadReal(t *testing.T) *resultsDir {
	t.Helper()
	r, err := realcwac.Load()
	if err != nil {
		t.Fatal(err)
	}
	return &resultsDir{r}
}

// clone copies the directory, so each week edits its own.
func (d *resultsDir) clone() *resultsDir { return &resultsDir{d.Clone()} }

// fs renders the directory as CWAC writes it.
func (d *resultsDir) fs() fstest.MapFS { return d.FS() }

// col is a column's index in a CSV.
func (d *resultsDir) col(file, name string) int {
	for i, h := range d.CSVs[file][0] {
		if h == name {
			return i
		}
	}
	return -1
}

// where selects rows of a CSV by cells (column → value; "url" is compared
// exactly, "viewport" matches the width in viewport_size).
type where map[string]string

func (d *resultsDir) match(file string, row []string, w where) bool {
	for k, v := range w {
		if k == "width" {
			if !strings.Contains(row[d.col(file, "viewport_size")], "'width': "+v+",") {
				return false
			}
			continue
		}
		i := d.col(file, k)
		if i < 0 || row[i] != v {
			return false
		}
	}
	return true
}

// drop removes the rows of a CSV that match, and returns how many.
func (d *resultsDir) drop(file string, w where) int {
	rows := d.CSVs[file]
	out := rows[:1]
	n := 0
	for _, r := range rows[1:] {
		if d.match(file, r, w) {
			n++
			continue
		}
		out = append(out, r)
	}
	d.CSVs[file] = out
	return n
}

// set changes a column of axe_core_audit.csv's rows that match.
func (d *resultsDir) set(w where, column, value string) int {
	const file = axeCSV
	n := 0
	for _, r := range d.CSVs[file][1:] {
		if d.match(file, r, w) {
			r[d.col(file, column)] = value
			n++
		}
	}
	return n
}

// add appends a copy of the first row that matches, with cells changed.
func (d *resultsDir) add(t *testing.T, file string, w where, cells map[string]string) {
	t.Helper()
	for _, r := range d.CSVs[file][1:] {
		if d.match(file, r, w) {
			cp := append([]string(nil), r...)
			for k, v := range cells {
				cp[d.col(file, k)] = v
			}
			d.CSVs[file] = append(d.CSVs[file], cp)
			return
		}
	}
	t.Fatalf("no row of %s matches %v", file, w)
}

// dropPage removes a page from every CSV (CWAC did not visit it) and
// counts one page fewer in pages_scanned.csv.
func (d *resultsDir) dropPage(url string) {
	for n := range d.CSVs {
		if d.col(n, "url") >= 0 {
			d.drop(n, where{"url": url})
		}
	}
	i := d.col("pages_scanned.csv", "number_of_pages")
	for _, r := range d.CSVs["pages_scanned.csv"][1:] {
		n, _ := strconv.Atoi(r[i])
		r[i] = strconv.Itoa(n - 1)
	}
}

const (
	home   = "http://127.0.0.1:8765/"
	form   = "http://127.0.0.1:8765/form.html"
	nolang = "http://127.0.0.1:8765/nolang.html"
	clean  = "http://127.0.0.1:8765/clean.html"
	axeCSV = "axe_core_audit.csv"
	focCSV = "focus_indicator_audit.csv"
	org    = "CWAC Test Org"
)

// week is a scan of the weekly sequence: its uid is its name, and it
// finished a week after the one before.
func week(n int) store.Scan {
	name := "week-" + strconv.Itoa(n)
	return store.Scan{UID: "uid-" + name, Namespace: testNamespace, Name: name, Schedule: "weekly", Phase: "Complete",
		FinishedAt: time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC).AddDate(0, 0, 7*n), ResultsPath: "/results/" + name}
}

func ingestOK(t *testing.T, st *store.Store, fsys fs.FS, scan store.Scan) Result {
	t.Helper()
	res, err := Ingest(context.Background(), st, fsys, scan, Options{Holder: "test"})
	if err != nil {
		t.Fatalf("ingesting %s: %v", scan.Name, err)
	}
	return res
}
