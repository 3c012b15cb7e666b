//go:build integration

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
)

// TestCIResourcesFailAt reads the CI reports through an MCP session, as
// kubectl cwac results does: the runner's junit.xml is served as it is
// unless another fail_at is asked for, when the report is built from the
// results with the scan's name and thresholds; a bad fail_at is refused
// naming the parameter and its values.
func TestCIResourcesFailAt(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	id := h.mustCall("cwac_scan", map[string]any{
		"urls": []any{"https://a.example/"}, "audit_name": "failat",
		"thresholds": map[string]any{"max_total_issues": 10, "max_issues_by_impact": map[string]any{"critical": 0}},
	})["scan_id"].(string)
	dir := filepath.Join(h.root, h.completeScan(id))
	runners := "<testsuites>the runner's</testsuites>"
	if err := os.WriteFile(filepath.Join(dir, cireport.JUnitFile), []byte(runners), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "cwac://scans/" + h.ns + "/" + id + "/"
	read := func(uri string) (string, error) {
		got, err := h.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		if len(got.Contents) != 1 {
			t.Fatalf("%s: %d contents", uri, len(got.Contents))
		}
		return got.Contents[0].Text, nil
	}

	for _, uri := range []string{base + cireport.JUnitFile, base + cireport.JUnitFile + "?fail_at=serious"} {
		if got, err := read(uri); err != nil || got != runners {
			t.Errorf("%s = %.200q, %v; want the runner's file", uri, got, err)
		}
	}
	got, err := read(base + cireport.JUnitFile + "?fail_at=moderate")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<testsuites name="cwac ` + id + `"`, `<property name="cwac.failAt" value="moderate">`,
		`<property name="cwac.threshold.maxTotalIssues" value="10">`, `<property name="cwac.threshold.maxIssuesByImpact.critical" value="0">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("junit.xml?fail_at=moderate lacks %s:\n%.900s", want, got)
		}
	}
	if got, err := read(base + cireport.SARIFFile + "?fail_at=critical"); err != nil || !strings.Contains(got, `"failAt": "critical"`) {
		t.Errorf("results.sarif?fail_at=critical = %.300q, %v", got, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, cireport.JUnitFile)); string(data) != runners {
		t.Errorf("the runner's junit.xml was replaced: %.200q", data)
	}
	for uri, want := range map[string]string{
		base + cireport.JUnitFile + "?fail_at=high": "fail_at=high: must be given once, as one of critical, serious, moderate, minor",
		base + cireport.JUnitFile + "?x=1":          `query parameter "x"`,
		base + "report.html?fail_at=minor":          "fail_at applies only to junit.xml and results.sarif",
	} {
		if _, err := read(uri); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("read %s: %v, want an error containing %q", uri, err, want)
		}
	}
}
