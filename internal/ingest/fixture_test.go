package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// realRun is the real CWAC run the project keeps in testdata.
// testNamespace is the namespace of every test scan; testNamespaces
// scopes the reads to it.
const testNamespace = "a11y"

var testNamespaces = []string{testNamespace}

var realRun = realcwac.Dir()

// results is a results directory being edited: CSVs as rows (header
// first), other files as bytes.
type resultsDir struct {
	csvs  map[string][][]string
	files map[string][]byte
}

// loadReal reads the real run into memory.
func loadReal(t *testing.T) *resultsDir {
	t.Helper()
	d := &resultsDir{csvs: map[string][][]string{}, files: map[string][]byte{}}
	entries, err := os.ReadDir(realRun)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(realRun, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(e.Name(), ".csv") {
			d.files[e.Name()] = b
			continue
		}
		r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		d.csvs[e.Name()] = rows
	}
	return d
}

// clone copies the directory, so each week edits its own.
func (d *resultsDir) clone() *resultsDir {
	c := &resultsDir{csvs: map[string][][]string{}, files: map[string][]byte{}}
	for n, rows := range d.csvs {
		cp := make([][]string, len(rows))
		for i, r := range rows {
			cp[i] = append([]string(nil), r...)
		}
		c.csvs[n] = cp
	}
	for n, b := range d.files {
		c.files[n] = b
	}
	return c
}

// fs renders the directory as CWAC writes it (byte-order mark, CRLF-free).
func (d *resultsDir) fs() fstest.MapFS {
	m := fstest.MapFS{}
	for n, rows := range d.csvs {
		var b bytes.Buffer
		b.WriteString("\xef\xbb\xbf")
		w := csv.NewWriter(&b)
		_ = w.WriteAll(rows)
		m[n] = &fstest.MapFile{Data: b.Bytes()}
	}
	for n, b := range d.files {
		m[n] = &fstest.MapFile{Data: b}
	}
	return m
}

// col is a column's index in a CSV.
func (d *resultsDir) col(file, name string) int {
	for i, h := range d.csvs[file][0] {
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
	rows := d.csvs[file]
	out := rows[:1]
	n := 0
	for _, r := range rows[1:] {
		if d.match(file, r, w) {
			n++
			continue
		}
		out = append(out, r)
	}
	d.csvs[file] = out
	return n
}

// set changes a column of axe_core_audit.csv's rows that match.
func (d *resultsDir) set(w where, column, value string) int {
	const file = axeCSV
	n := 0
	for _, r := range d.csvs[file][1:] {
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
	for _, r := range d.csvs[file][1:] {
		if d.match(file, r, w) {
			cp := append([]string(nil), r...)
			for k, v := range cells {
				cp[d.col(file, k)] = v
			}
			d.csvs[file] = append(d.csvs[file], cp)
			return
		}
	}
	t.Fatalf("no row of %s matches %v", file, w)
}

// dropPage removes a page from every CSV (CWAC did not visit it) and
// counts one page fewer in pages_scanned.csv.
func (d *resultsDir) dropPage(url string) {
	for n := range d.csvs {
		if d.col(n, "url") >= 0 {
			d.drop(n, where{"url": url})
		}
	}
	i := d.col("pages_scanned.csv", "number_of_pages")
	for _, r := range d.csvs["pages_scanned.csv"][1:] {
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
