//go:build integration

package mcpserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// cwac_scan sets what a CwacScan can: sites with organisation and sector,
// timeout, thread count, baseline and the new-issues threshold.
func TestScanSitesAndOptions(t *testing.T) {
	h := newHarness(t)
	base := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "base"})["scan_id"].(string)
	h.completeScan(base)
	out := h.mustCall("cwac_scan", map[string]any{
		"urls": []any{"https://a.example/"},
		"sites": []any{
			map[string]any{"url": "https://b.example/", "organisation": "Ministry of B", "sector": "Central government"},
			map[string]any{"url": "https://c.example/"},
		},
		"timeout": "30m", "thread_count": 2, "baseline": base,
		"thresholds": map[string]any{"max_new_issues": 0},
	})
	spec := getScanObj(t, h.ns, out["scan_id"].(string)).Spec
	want := []cwacv1alpha1.Site{{URL: "https://b.example/", Organisation: "Ministry of B", Sector: "Central government"}, {URL: "https://c.example/"}}
	if diff := cmp.Diff(want, spec.Sites); diff != "" {
		t.Errorf("sites (-want +got):\n%s", diff)
	}
	if spec.Timeout != "30m" || spec.ThreadCount != 2 || spec.Baseline != base || !cmp.Equal(spec.Thresholds.MaxNewIssues, ptr.To[int64](0)) {
		t.Errorf("spec = %+v", spec)
	}
	if diff := cmp.Diff([]string{"https://a.example/"}, spec.URLs); diff != "" {
		t.Errorf("urls (-want +got):\n%s", diff)
	}
}

func TestScanSitesRefusals(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.MaxURLs = 2
		c.Policy = urlpolicy.New(urlpolicy.Config{Resolver: anyPublic{}})
	})
	site := func(url, org string) map[string]any { return map[string]any{"url": url, "organisation": org} }
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"only sites, one bad url", map[string]any{"sites": []any{site("https://ok.example/", ""), site("ftp://x/", "")}}, "Invalid URL: ftp://x/: "},
		{"formula organisation", map[string]any{"sites": []any{site("https://ok.example/", "=HYPERLINK(1)")}}, "sites[0].organisation: "},
		{"formula after a semicolon", map[string]any{"sites": []any{site("https://ok.example/", "x;=1+2")}}, "sites[0].organisation: "},
		{"site without url", map[string]any{"sites": []any{map[string]any{"organisation": "x"}}}, `sites/items: required: missing properties: ["url"]`},
		{"timeout too long", map[string]any{"urls": []any{"https://a.example/"}, "timeout": "25h"}, "timeout: "},
		{"timeout not a duration", map[string]any{"urls": []any{"https://a.example/"}, "timeout": "soon"}, "timeout: "},
		{"too many threads", map[string]any{"urls": []any{"https://a.example/"}, "thread_count": 17}, "thread_count: "},
		{"baseline not a name", map[string]any{"urls": []any{"https://a.example/"}, "baseline": "../x"}, "baseline: "},
		{"urls and sites over the cap", map[string]any{"urls": []any{"https://a.example/", "https://b.example/"}, "sites": []any{site("https://c.example/", "")}},
			"Too many URLs: 3 (at most 2 per scan)"},
		{"a site the policy refuses", map[string]any{"sites": []any{site("http://127.0.0.1/", "")}}, "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errText := h.call("cwac_scan", tt.args)
			if !strings.Contains(errText, tt.want) {
				t.Errorf("error %q, want it to contain %q", errText, tt.want)
			}
			if strings.Contains(errText, "spec.") {
				t.Errorf("error %q names API fields, not the tool's arguments", errText)
			}
		})
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Errorf("refused calls created %d scans", n)
	}
}
