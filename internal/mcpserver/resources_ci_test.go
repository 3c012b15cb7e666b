package mcpserver

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
)

// TestReadScanFileCIReports: a CI report the volume holds is read as it is;
// one it lacks is built from the results, within the cap; other missing
// files stay missing.
func TestReadScanFileCIReports(t *testing.T) {
	axe, err := os.ReadFile("../../testdata/cwac-results/2026-11-21_23-18-23_real-scan-1/axe_core_audit.csv")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{cireport.AxeAuditFile: {Data: axe}, cireport.JUnitFile: {Data: []byte("<testsuites/>")}}
	ctx := context.Background()

	got, err := readScanFile(ctx, fsys, cireport.JUnitFile, "s", 1<<20)
	if err != nil || string(got) != "<testsuites/>" {
		t.Errorf("junit.xml on the volume: %q, %v", got, err)
	}
	got, err = readScanFile(ctx, fsys, cireport.SARIFFile, "scan-a", 1<<20)
	if err != nil || !strings.Contains(string(got), `"version": "2.1.0"`) || !strings.Contains(string(got), `"scan": "scan-a"`) {
		t.Errorf("results.sarif built: %.200q, %v", got, err)
	}
	whole := len(got)
	if _, err := readScanFile(ctx, fsys, cireport.SARIFFile, "scan-a", int64(whole)); err != nil {
		t.Errorf("at exactly its size: %v", err)
	}
	_, err = readScanFile(ctx, fsys, cireport.SARIFFile, "scan-a", int64(whole-1))
	if err == nil || !strings.Contains(err.Error(), "results.sarif is more than the") {
		t.Errorf("one byte past the cap: %v", err)
	}
	delete(fsys, cireport.JUnitFile)
	got, err = readScanFile(ctx, fsys, cireport.JUnitFile, "s", 1<<20)
	if err != nil || !strings.Contains(string(got), "<testsuites") || !strings.Contains(string(got), `failures="6"`) {
		t.Errorf("junit.xml built: %.200q, %v", got, err)
	}
	if _, err := readScanFile(ctx, fsys, "summary.json", "s", 1<<20); err == nil {
		t.Error("a missing summary.json was read")
	}
	if mimeType(cireport.SARIFFile) != mimeSARIF || mimeType(cireport.JUnitFile) != mimeXML {
		t.Error("the CI reports are not resources")
	}
}
