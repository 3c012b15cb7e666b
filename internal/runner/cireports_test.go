package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// TestWriteResultsWritesCIReports: results.sarif and junit.xml are written
// beside summary.json, whole, with no temporary file left; one that cannot
// be written is logged and the rest stand.
func TestWriteResultsWritesCIReports(t *testing.T) {
	dir := t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	log, buf := captureLog()
	if _, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "real-scan-1"}, log); err != nil {
		t.Fatal(err)
	}
	sarif, err := os.ReadFile(filepath.Join(dir, cireport.SARIFFile))
	must(t, err)
	junit, err := os.ReadFile(filepath.Join(dir, cireport.JUnitFile))
	must(t, err)
	if !strings.Contains(string(sarif), `"version": "2.1.0"`) || !strings.Contains(string(sarif), `"scan": "real-scan-1"`) ||
		!strings.Contains(string(junit), `<testsuites name="cwac real-scan-1" tests="7" failures="6"`) {
		t.Errorf("CI reports:\n%.300s\n%.300s", sarif, junit)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if strings.Contains(buf.String(), "CI report") {
		t.Errorf("logged: %s", buf)
	}

	// A directory in junit.xml's place: logged, SARIF still written.
	dir = t.TempDir()
	must(t, files.CopyDir(realScanDir, dir))
	must(t, os.MkdirAll(filepath.Join(dir, cireport.JUnitFile, "keep"), 0o755))
	log, buf = captureLog()
	if _, err := WriteResults(context.Background(), dir, results.Options{}, report.Meta{Title: "t"}, log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, cireport.SARIFFile)); err != nil {
		t.Error(err)
	}
	if !strings.Contains(buf.String(), "writing a CI report") || !strings.Contains(buf.String(), cireport.JUnitFile) {
		t.Errorf("log %s", buf)
	}
	leftovers, _ = filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
