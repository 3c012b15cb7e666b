package history

import (
	"os"
	"path/filepath"
	"testing"
)

// realRun is a real CWAC run's results directory.
var realRun = filepath.Join("..", "..", "testdata", "cwac-results", "2026-11-21_23-18-23_real-scan-1")

// copyRun copies the real run's files (not its screenshots) to dir/name.
func copyRun(t *testing.T, dir, name string) {
	t.Helper()
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(realRun)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(realRun, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
