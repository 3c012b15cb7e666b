package diff

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// realScan is a real CWAC run of the project's test site: 4 pages, 2
// viewports, 17 issues (12 axe, 4 focus, 1 reflow).
const realScan = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

// results is a results directory held as editable CSVs, written back with
// CWAC's byte-order mark: the before and after of a known edit.
type resultsDir map[string]*table

type table struct {
	header []string
	rows   [][]string
}

func loadReal(t testing.TB) resultsDir {
	t.Helper()
	entries, err := os.ReadDir(realScan)
	if err != nil {
		t.Fatal(err)
	}
	d := resultsDir{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".csv") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(realScan, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		d[e.Name()] = &table{header: recs[0], rows: recs[1:]}
	}
	return d
}

func (d resultsDir) clone() resultsDir {
	out := resultsDir{}
	for name, tb := range d {
		c := &table{header: slices.Clone(tb.header)}
		for _, r := range tb.rows {
			c.rows = append(c.rows, slices.Clone(r))
		}
		out[name] = c
	}
	return out
}

func (d resultsDir) fs(t testing.TB) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	for name, tb := range d {
		var buf bytes.Buffer
		buf.WriteString("\xef\xbb\xbf")
		w := csv.NewWriter(&buf)
		if err := w.Write(tb.header); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteAll(tb.rows); err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: buf.Bytes(), Mode: 0o644}
	}
	return m
}

func (tb *table) col(name string) int {
	i := slices.Index(tb.header, name)
	if i < 0 {
		panic("no column " + name)
	}
	return i
}

// row is one CSV row with named access, for edits.
type row struct {
	tb  *table
	rec []string
}

func (r row) get(c string) string { return r.rec[r.tb.col(c)] }
func (r row) set(c, v string)     { r.rec[r.tb.col(c)] = v }
func (r row) has(c string) bool   { return slices.Contains(r.tb.header, c) }
func (r row) is(url, vp string) bool {
	return r.get("url") == url && (vp == "" || r.get("viewport_size") == vp)
}

// edit calls fn on every row of file; fn returning false drops the row.
func (d resultsDir) edit(file string, fn func(row) bool) {
	tb := d[file]
	kept := tb.rows[:0]
	for _, rec := range tb.rows {
		if fn(row{tb, rec}) {
			kept = append(kept, rec)
		}
	}
	tb.rows = kept
}

// editAll edits every CSV that has the column.
func (d resultsDir) editAll(column string, fn func(row) bool) {
	for name, tb := range d {
		if slices.Contains(tb.header, column) {
			d.edit(name, fn)
		}
	}
}

// add appends a copy of the first row matching like, changed by fn.
func (d resultsDir) add(file string, like func(row) bool, fn func(row)) {
	tb := d[file]
	for _, rec := range tb.rows {
		if like(row{tb, rec}) {
			c := slices.Clone(rec)
			fn(row{tb, c})
			tb.rows = append(tb.rows, c)
			return
		}
	}
	panic("no row to copy in " + file)
}

const (
	home   = "http://127.0.0.1:8765/"
	form   = "http://127.0.0.1:8765/form.html"
	clean  = "http://127.0.0.1:8765/clean.html"
	nolang = "http://127.0.0.1:8765/nolang.html"
	small  = "{'width': 320, 'height': 450}"
	medium = "{'width': 1280, 'height': 800}"
)

// copyPage adds a page to every CSV as a copy of another page's rows.
func (d resultsDir) copyPage(from, to, title string) {
	for _, tb := range d {
		if !slices.Contains(tb.header, "url") {
			continue
		}
		var added [][]string
		for _, rec := range tb.rows {
			r := row{tb, rec}
			if r.get("url") == from {
				c := slices.Clone(rec)
				cr := row{tb, c}
				cr.set("url", to)
				if cr.has("page_title") {
					cr.set("page_title", title)
				}
				added = append(added, c)
			}
		}
		tb.rows = append(tb.rows, added...)
	}
}
