package runner

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDeleteResults(t *testing.T) {
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep.csv")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	results := filepath.Join(dir, "2026-11-21_23-18-23_weekly")
	if err := os.MkdirAll(filepath.Join(results, "screenshots"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"axe_core_audit.csv", "screenshots/a.png"} {
		if err := os.WriteFile(filepath.Join(results, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Links planted by a scan pod point outside: removed, never followed.
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keep, filepath.Join(results, "keep-link.csv")); err != nil {
		t.Fatal(err)
	}
	n, err := DeleteResults(dir)
	if err != nil || n != 2 {
		t.Fatalf("DeleteResults = %d, %v; want 2 entries", n, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a file outside the directory was touched: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the mount point itself must stay: %v", err)
	}
	if _, err := DeleteResults(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory is an error")
	}
}
