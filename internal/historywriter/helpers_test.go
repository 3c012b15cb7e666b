package historywriter

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// realRun is a real CWAC run's results directory.
var realRun = realcwac.Dir()

// realOrganisation is the organisation the real run scanned.
const realOrganisation = "CWAC Test Org"

// copyRun copies the real run's files (not its screenshots) to dir/name.
func copyRun(t *testing.T, dir, name string) {
	t.Helper()
	copyRunAs(t, dir, name, realOrganisation)
}

// copyRunAs is copyRun with the organisation renamed.
func copyRunAs(t *testing.T, dir, name, organisation string) {
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
		data = bytes.ReplaceAll(data, []byte(realOrganisation), []byte(organisation))
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
