// Package realcwac gives tests the results of a real CWAC run, checked in
// under testdata/cwac-results: its path, a copy, and copies grown to any
// number of axe-core issue rows made of its real rows.
package realcwac

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// Name is the real run's results directory name, as CWAC writes it
// (<time>_<audit name>).
const Name = "2026-11-21_23-18-23_real-scan-1"

// Dir is the absolute path of the real run's results directory.
func Dir() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "cwac-results", Name)
}

// Copy copies the real run's results directory to dst (created).
func Copy(dst string) error { return files.CopyDir(Dir(), dst) }

// Grow copies the real run to dst and rewrites its axe_core_audit.csv with
// n issue rows: the real rows in turn, each turn on a page of its own
// (new url and page_id) and every row with its own issue_id, written as
// CWAC writes (a byte-order mark, then csv quoting).
func Grow(dst string, n int) error { return grow(dst, n, false) }

// GrowPagesApart is Grow with each turn's rows on pages of their own, one
// for each page of the real run, so that a page has as many rows as the
// real run's pages have (a few issue rows each) where Grow puts a whole
// turn on one: the same rows on several times the pages, for whatever
// keeps a table of a scan's pages.
func GrowPagesApart(dst string, n int) error { return grow(dst, n, true) }

func grow(dst string, n int, pagesApart bool) error {
	if err := Copy(dst); err != nil {
		return err
	}
	in, err := os.Open(filepath.Join(Dir(), "axe_core_audit.csv"))
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read only
	br := bufio.NewReader(in)
	if _, err := br.Discard(len(bom)); err != nil {
		return err
	}
	records, err := csv.NewReader(br).ReadAll()
	if err != nil {
		return fmt.Errorf("the real axe_core_audit.csv: %w", err)
	}
	header, rows := records[0], records[1:]
	urlCol, pageCol, issueCol := column(header, "url"), column(header, "page_id"), column(header, "issue_id")
	if urlCol < 0 || pageCol < 0 || issueCol < 0 {
		return fmt.Errorf("the real axe_core_audit.csv lacks url, page_id or issue_id")
	}
	realPage := map[string]int{} // each real URL's place among the real pages
	for _, r := range rows {
		if _, ok := realPage[r[urlCol]]; !ok {
			realPage[r[urlCol]] = len(realPage)
		}
	}
	out, err := os.Create(filepath.Join(dst, "axe_core_audit.csv"))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	_, _ = bw.WriteString(bom)
	w := csv.NewWriter(bw)
	_ = w.Write(header)
	rec := make([]string, len(header))
	for i := range n {
		row := rows[i%len(rows)]
		copy(rec, row)
		page := i / len(rows)
		if pagesApart {
			page = page*len(realPage) + realPage[row[urlCol]]
		}
		rec[urlCol] = "https://www.example.govt.nz/section-" + strconv.Itoa(page%97) + "/page-" + strconv.Itoa(page)
		rec[pageCol] = strconv.Itoa(page)
		rec[issueCol] = fmt.Sprintf("%010x", i)
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		_ = out.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func column(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}
