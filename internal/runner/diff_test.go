package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

const realScanDir = "../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1"

// twoScans copies the real scan as a baseline and as a later scan in which
// the home page's image got its alt text (2 issues fixed, at 2 widths).
func twoScans(t *testing.T) (baseline, current string) {
	t.Helper()
	root := t.TempDir()
	baseline, current = filepath.Join(root, "monday"), filepath.Join(root, "tuesday")
	for _, d := range []string{baseline, current} {
		if err := files.CopyDir(realScanDir, d); err != nil {
			t.Fatal(err)
		}
	}
	axe := filepath.Join(current, "axe_core_audit.csv")
	data, err := os.ReadFile(axe)
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`<img src=""logo.png""`)) {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(axe, bytes.Join(kept, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return baseline, current
}

func TestCompareWithBaseline(t *testing.T) {
	baseline, current := twoScans(t)
	res, err := compareWithBaseline(context.Background(), baseline, current, "monday", "a11y", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := res.Counts
	if counts.Baseline != "monday" || counts.Fixed != 2 || counts.FixedElements != 1 || counts.New != 0 || counts.Unchanged != 15 ||
		counts.FixedByImpact["critical"] != 2 {
		t.Errorf("counts = %+v, want the home page's image fixed at 2 widths and 15 unchanged", counts)
	}
	path := filepath.Join(current, results.DiffFile)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("diff.json mode = %v, want 0644", info.Mode().Perm())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	fixed := 0
	doc, err := diff.ReadDocument(f, func(r *diff.Row) error {
		if r.Change == diff.ChangeFixed {
			fixed++
			if r.Rule != "image-alt" || !strings.Contains(r.HTML, "logo.png") {
				t.Errorf("fixed row = %+v", r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fixed != 2 || doc.Counts.Fixed != 2 || doc.Baseline != "monday" {
		t.Errorf("diff.json: %d fixed rows, counts %+v", fixed, doc.Counts)
	}
	assertNoScratch(t, current)
}

// TestCompareWithBaselineFails: a missing baseline or a cancelled context
// is an error naming what failed, and leaves no diff.json or scratch file.
func TestCompareWithBaselineFails(t *testing.T) {
	tests := []struct {
		name   string
		ctx    func() context.Context
		gone   bool
		want   string
		wantIs error
	}{
		{name: "baseline results gone", ctx: context.Background, gone: true, want: "opening the baseline's results"},
		{name: "cancelled", ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, want: "comparing with baseline monday", wantIs: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			baseline, current := twoScans(t)
			if tc.gone {
				if err := os.RemoveAll(baseline); err != nil {
					t.Fatal(err)
				}
			}
			_, err := compareWithBaseline(tc.ctx(), baseline, current, "monday", "a11y", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(current, results.DiffFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("diff.json written after a failure: %v", err)
			}
			assertNoScratch(t, current)
		})
	}
}

func assertNoScratch(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".diff") || strings.HasPrefix(e.Name(), "."+cireport.SARIFFile) {
			t.Errorf("scratch file %s left in the results directory", e.Name())
		}
	}
}
