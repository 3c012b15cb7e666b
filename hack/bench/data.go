package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// The real CWAC run every generated file derives from.
var realScan = realcwac.Dir()

// dataVersion changes when the generated data would differ; data of
// another version (or size) is generated again.
const dataVersion = "2"

// dataset is where the generated data lives.
type dataset struct {
	root   string // e.g. bin/bench
	rows   int
	bigDir string // a results directory whose axe_core_audit.csv has `rows` rows
	rawDir string // the same CSVs with no row index: results of CWAC run by hand
	// pagesDir holds CWAC's files alone, the same number of axe rows on
	// the real run's pages, each kept apart (realcwac.GrowPagesApart): a few rows a
	// page, where bigDir has a whole turn of the real rows on one.
	pagesDir string
	scanDir  func(i int) string
}

func newDataset(root string, rows int) *dataset {
	d := &dataset{root: root, rows: rows}
	d.bigDir = filepath.Join(root, "big", "2026-11-21_23-18-23_big")
	d.rawDir = filepath.Join(root, "big", "2026-11-21_23-18-24_raw")
	d.pagesDir = filepath.Join(root, "pages", "2026-11-21_23-18-25_pages")
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
	for _, dir := range []string{filepath.Join(d.root, "big"), filepath.Join(d.root, "volume"), filepath.Join(d.root, "pages")} {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	// Copies, never links, of the checked-in files: the runner writes
	// into the big directory, and must not write through a link into testdata.
	if err := realcwac.Grow(d.bigDir, d.rows); err != nil {
		return err
	}
	if err := copyDir(realScan, d.rawDir, false); err != nil {
		return err
	}
	if err := replaceWithLink(filepath.Join(d.bigDir, results.AxeCoreAuditFile), filepath.Join(d.rawDir, results.AxeCoreAuditFile)); err != nil {
		return err
	}
	if err := realcwac.GrowPagesApart(d.pagesDir, d.rows); err != nil {
		return err
	}
	// The seed of the volumes' directories (volume).
	if err := copyDir(realScan, filepath.Join(d.root, "big", "seed"), false); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(want), 0o644)
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
