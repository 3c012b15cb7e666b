package diff

import (
	"io/fs"
	"slices"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// resultsDir is the real CWAC run of the project's test site (4 pages, 2
// viewports, 17 issues: 12 axe, 4 focus, 1 reflow) held as editable CSVs:
// the before and after of a known edit.
type resultsDir struct{ *realcwac.Results }

// table is one CSV of a resultsDir: its header, then its rows.
type table struct {
	header []string
	rows   [][]string
}

func loadReal(t testing.TB) resultsDir {
	t.Helper()
	r, err := realcwac.Load()
	if err != nil {
		t.Fatal(err)
	}
	return resultsDir{r}
}

func (d resultsDir) clone() resultsDir { return resultsDir{d.Clone()} }

func (d resultsDir) fs(testing.TB) fs.FS { return d.FS() }

// table returns file's CSV; set writes it back.
func (d resultsDir) table(file string) *table {
	rows := d.CSVs[file]
	return &table{header: rows[0], rows: rows[1:]}
}

func (d resultsDir) set(file string, tb *table) {
	d.CSVs[file] = append([][]string{tb.header}, tb.rows...)
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
	tb := d.table(file)
	kept := tb.rows[:0]
	for _, rec := range tb.rows {
		if fn(row{tb, rec}) {
			kept = append(kept, rec)
		}
	}
	tb.rows = kept
	d.set(file, tb)
}

// editAll edits every CSV that has the column.
func (d resultsDir) editAll(column string, fn func(row) bool) {
	for name, rows := range d.CSVs {
		if slices.Contains(rows[0], column) {
			d.edit(name, fn)
		}
	}
}

// add appends a copy of the first row matching like, changed by fn.
func (d resultsDir) add(file string, like func(row) bool, fn func(row)) {
	tb := d.table(file)
	for _, rec := range tb.rows {
		if like(row{tb, rec}) {
			c := slices.Clone(rec)
			fn(row{tb, c})
			tb.rows = append(tb.rows, c)
			d.set(file, tb)
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
	for name := range d.CSVs {
		tb := d.table(name)
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
		d.set(name, tb)
	}
}
