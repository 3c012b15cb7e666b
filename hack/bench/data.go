package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// The real CWAC run every generated file derives from.
const realScan = "testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

// dataVersion changes when the generated data would differ; data of
// another version (or size) is generated again.
const dataVersion = "1"

// dataset is where the generated data lives.
type dataset struct {
	root    string // e.g. bin/bench
	rows    int
	bigDir  string // a results directory whose axe_core_audit.csv has `rows` rows
	rawDir  string // the same CSVs with no row index: results of CWAC run by hand
	scanDir func(i int) string
}

func newDataset(root string, rows int) *dataset {
	d := &dataset{root: root, rows: rows}
	d.bigDir = filepath.Join(root, "big", "2026-11-21_23-18-23_big")
	d.rawDir = filepath.Join(root, "big", "2026-11-21_23-18-24_raw")
	d.scanDir = func(i int) string {
		return fmt.Sprintf("bench/scan-%04d/2026-11-21_23-18-23_scan-%04d", i, i)
	}
	return d
}

// volume is a results volume holding n result directories, d.scanDir(0)
// to d.scanDir(n-1), generated when missing or stale: links to one copy
// of the real run, as they are only read.
func (d *dataset) volume(n int) (string, error) {
	dir := filepath.Join(d.root, fmt.Sprintf("volume-%d", n))
	stamp := dir + ".stamp"
	want := fmt.Sprintf("version %s scans %d\n", dataVersion, n)
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return dir, nil
	}
	fmt.Fprintf(os.Stderr, "bench: generating %d result directories under %s\n", n, dir)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	seed := filepath.Join(d.root, "big", "seed")
	for i := range n {
		if err := copyDir(seed, filepath.Join(dir, d.scanDir(i)), true); err != nil {
			return "", err
		}
	}
	return dir, os.WriteFile(stamp, []byte(want), 0o644)
}

// ensure generates whatever is missing or stale.
func (d *dataset) ensure() error {
	stamp := filepath.Join(d.root, "data.stamp")
	want := fmt.Sprintf("version %s rows %d\n", dataVersion, d.rows)
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return nil
	}
	fmt.Fprintf(os.Stderr, "bench: generating %d axe rows under %s\n", d.rows, d.root)
	for _, dir := range []string{filepath.Join(d.root, "big"), filepath.Join(d.root, "volume")} {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	// Copies, never links, of the checked-in files: the runner writes
	// into the big directory, and must not write through a link into testdata.
	for _, dir := range []string{d.bigDir, d.rawDir} {
		if err := copyDir(realScan, dir, false); err != nil {
			return err
		}
	}
	big := filepath.Join(d.bigDir, "axe_core_audit.csv")
	if err := writeAxeRows(filepath.Join(realScan, "axe_core_audit.csv"), big, d.rows); err != nil {
		return err
	}
	if err := replaceWithLink(big, filepath.Join(d.rawDir, "axe_core_audit.csv")); err != nil {
		return err
	}
	// The seed of the volumes' directories (volume).
	if err := copyDir(realScan, filepath.Join(d.root, "big", "seed"), false); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(want), 0o644)
}

// writeAxeRows writes n rows made from the real CSV's rows, each on a page
// of its own every len(rows) rows, with CWAC's byte-order mark and quoting.
func writeAxeRows(src, dst string, n int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	br := bufio.NewReader(in)
	if _, err := br.Discard(3); err != nil { // the byte-order mark
		return err
	}
	records, err := csv.NewReader(br).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	header, rows := records[0], records[1:]
	col := func(name string) int {
		for i, h := range header {
			if h == name {
				return i
			}
		}
		panic("no column " + name)
	}
	urlCol, pageCol, issueCol := col("url"), col("page_id"), col("issue_id")
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	_, _ = bw.WriteString("\xef\xbb\xbf")
	w := csv.NewWriter(bw)
	if err := w.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	for i := range n {
		copy(rec, rows[i%len(rows)])
		page := i / len(rows)
		rec[urlCol] = "https://www.example.govt.nz/section-" + strconv.Itoa(page%97) + "/page-" + strconv.Itoa(page)
		rec[pageCol] = strconv.Itoa(page)
		rec[issueCol] = fmt.Sprintf("%010x", i)
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return out.Close()
}

// copyDir copies a directory tree, with hard links where asked and the
// file system allows.
func copyDir(src, dst string, link bool) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if link {
			return replaceWithLink(p, target)
		}
		return copyFile(p, target)
	})
}

// replaceWithLink makes dst a hard link to src, else a copy.
func replaceWithLink(src, dst string) error {
	_ = os.Remove(dst)
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyFile(src, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
