//go:build integration

package mcpserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestScanCreatesCwacScan(t *testing.T) {
	h := newHarness(t)
	out := h.mustCall("cwac_scan", map[string]any{
		"urls": []any{"https://www.example.govt.nz/", "https://a.example.org/"}, "audit_name": "Weekly_Check.1",
		"plugins": map[string]any{"axe_core_audit": true, "language_audit": false}, "max_links_per_domain": 10,
		"viewport_sizes":   map[string]any{"phone": map[string]any{"width": 375, "height": 667}},
		"only_allow_https": false,
	})
	if out["status"] != "started" || out["audit_name"] != "Weekly_Check.1" || !strings.HasPrefix(out["scan_id"].(string), "weekly-check-1-") {
		t.Fatalf("answer = %v", out)
	}
	scan := getScanObj(t, h.ns, out["scan_id"].(string))
	want := cwacv1alpha1.CwacScanSpec{
		URLs: []string{"https://www.example.govt.nz/", "https://a.example.org/"}, AuditName: "Weekly_Check.1",
		Plugins: map[string]bool{"axe_core_audit": true, "language_audit": false}, MaxLinksPerDomain: 10,
		ViewportSizes: map[string]cwacv1alpha1.Viewport{"phone": {Width: 375, Height: 667}},
		Timeout:       "1h", ThreadCount: 1, ResultsPolicy: cwacv1alpha1.ResultsRetain,
		ConfigOverrides: map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte("false")}},
	}
	if diff := cmp.Diff(want, scan.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if scan.Annotations[AnnotationCreatedBy] != CreatedByMCP || scan.Annotations[AnnotationCaller] != "stdio" {
		t.Errorf("annotations = %v", scan.Annotations)
	}
	if n := scanCount(t, h.ns); n != 1 {
		t.Errorf("%d scans after one call (the dry run must create nothing)", n)
	}
}

func TestScanInputForms(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name      string
		args      map[string]any
		plugins   map[string]bool
		viewports map[string]cwacv1alpha1.Viewport
	}{
		{"one {width, height}, as the original server took it", map[string]any{"viewport_sizes": map[string]any{"width": 1280, "height": 800}}, nil,
			map[string]cwacv1alpha1.Viewport{"1280x800": {Width: 1280, Height: 800}}},
		{"list of {width, height}", map[string]any{"viewport_sizes": []any{
			map[string]any{"width": 320, "height": 450},
			map[string]any{"width": 1280, "height": 800, "name": "desk"},
		}}, nil,
			map[string]cwacv1alpha1.Viewport{"320x450": {Width: 320, Height: 450}, "desk": {Width: 1280, Height: 800}}},
		{"plugins as a list", map[string]any{"plugins": []any{"axe_core_audit", "reflow_audit"}},
			map[string]bool{
				"axe_core_audit": true, "reflow_audit": true, "language_audit": false, "title_audit": false,
				"focus_indicator_audit": false, "screenshot_audit": false, "element_audit": false,
			}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["urls"] = []any{"https://a.example/"}
			out := h.mustCall("cwac_scan", tt.args)
			scan := getScanObj(t, h.ns, out["scan_id"].(string))
			if diff := cmp.Diff(tt.plugins, scan.Spec.Plugins); diff != "" {
				t.Errorf("plugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.viewports, scan.Spec.ViewportSizes); diff != "" {
				t.Errorf("viewports (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScanRefusals: what the CRD refuses is refused by the API server's dry
// run, with the argument named; shapes cwac_scan cannot translate are
// refused before. Nothing is created either way.
func TestScanRefusals(t *testing.T) {
	h := newHarness(t)
	url := []any{"https://a.example/"}
	elevenViewports := map[string]any{}
	for _, n := range strings.Split("a b c d e f g h i j k", " ") {
		elevenViewports[n] = map[string]any{"width": 300, "height": 400}
	}
	tests := []struct {
		name string
		args map[string]any
		want []string // each must be in the error
	}{
		{"plugin the original server had", map[string]any{"urls": url, "plugins": map[string]any{"seo_audit": true}},
			[]string{"plugins: ", "valid plugins are: " +
				"axe_core_audit, language_audit, reflow_audit, title_audit, focus_indicator_audit, screenshot_audit, element_audit"}},
		{"plugins in a list", map[string]any{"urls": url, "plugins": []any{"html_validation", "crawl_audit"}},
			[]string{"plugins", "valid plugins are: axe_core_audit"}},
		{"bad audit name", map[string]any{"urls": url, "audit_name": "../etc"}, []string{"audit_name: "}},
		{"long audit name", map[string]any{"urls": url, "audit_name": strings.Repeat("a", 51)}, []string{"audit_name: "}},
		{"negative max links", map[string]any{"urls": url, "max_links_per_domain": -1}, []string{"max_links_per_domain: ", "-1", "greater than or equal to 1"}},
		{"too many max links", map[string]any{"urls": url, "max_links_per_domain": 100001}, []string{"max_links_per_domain: ", "less than or equal to 100000"}},
		{"max links beyond 32 bits", map[string]any{"urls": url, "max_links_per_domain": 1 << 40}, []string{"invalid max_links_per_domain"}},
		{"tiny viewport", map[string]any{"urls": url, "viewport_sizes": map[string]any{"width": 10, "height": 10}},
			[]string{"viewport_sizes", "width", "greater than or equal to 100"}},
		{"huge viewport", map[string]any{"urls": url, "viewport_sizes": []any{map[string]any{"width": 300, "height": 20000}}},
			[]string{"viewport_sizes", "height", "less than or equal to 10000"}},
		{"viewport name", map[string]any{"urls": url, "viewport_sizes": map[string]any{"../x": map[string]any{"width": 300, "height": 400}}},
			[]string{"viewport_sizes: ", "viewport names must be"}},
		{"eleven viewports", map[string]any{"urls": url, "viewport_sizes": elevenViewports}, []string{"viewport_sizes: ", "10"}},
		{"no viewport", map[string]any{"urls": url, "viewport_sizes": []any{}}, []string{"invalid viewport_sizes: give at least one viewport"}},
		{"fractional viewport", map[string]any{"urls": url, "viewport_sizes": map[string]any{"width": 300.5, "height": 400}}, []string{"whole-number"}},
		{"plugin flag not a bool", map[string]any{"urls": url, "plugins": map[string]any{"axe_core_audit": "yes"}}, []string{"invalid plugins"}},
		{"unknown argument", map[string]any{"urls": url, "shell": "rm -rf /"}, []string{"shell"}},
		{"wrong type", map[string]any{"urls": "https://a.example/"}, []string{"urls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errText := h.call("cwac_scan", tt.args)
			for _, want := range tt.want {
				if !strings.Contains(strings.ToLower(errText), strings.ToLower(want)) {
					t.Errorf("error %q, want it to contain %q", errText, want)
				}
			}
			if strings.Contains(errText, "spec.") && !strings.Contains(errText, "set spec.urls") {
				t.Errorf("error %q names API fields, not the tool's arguments", errText)
			}
		})
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Errorf("refused calls created %d scans", n)
	}
}

// TestScanRefusalsInTheOriginalWords: what the original CWAC MCP server
// refused is refused with its text at the start of the error, word for word
// and in its case (clients match it case-sensitively), before the dry run.
func TestScanRefusalsInTheOriginalWords(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name   string
		args   map[string]any
		prefix string
	}{
		{"no urls", map[string]any{}, "At least one URL is required"},
		{"empty urls", map[string]any{"urls": []any{}}, "At least one URL is required"},
		{"empty sites", map[string]any{"urls": []any{}, "sites": []any{}}, "At least one URL is required"},
		{"ftp", map[string]any{"urls": []any{"https://ok.example/", "ftp://example.org/"}},
			"Invalid URL: ftp://example.org/: only http and https URLs can be scanned"},
		{"javascript", map[string]any{"urls": []any{"javascript:alert(1)"}}, "Invalid URL: javascript:alert(1): "},
		{"userinfo", map[string]any{"urls": []any{"http://public@example.org/"}},
			"Invalid URL: http://public@example.org/: user-info (user@host) is not allowed"},
		{"a site's URL", map[string]any{"sites": []any{map[string]any{"url": "file:///etc/passwd"}}}, "Invalid URL: file:///etc/passwd: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, errText := h.call("cwac_scan", tt.args); !strings.HasPrefix(errText, tt.prefix) {
				t.Errorf("error %q, want it to start with %q", errText, tt.prefix)
			}
		})
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Errorf("refused calls created %d scans", n)
	}
}

// TestRefusedScansCostNoRate: only a scan that would be created counts
// against the caller's rate.
func TestRefusedScansCostNoRate(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.ScansPerMinute = 1; c.ScanBurst = 1 })
	for i := 0; i < 3; i++ {
		_, errText := h.call("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "max_links_per_domain": -1})
		if !strings.Contains(errText, "Invalid scan") {
			t.Fatalf("refused call %d: %q", i, errText)
		}
	}
	h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}})
}

// cwac_scan's thresholds become the scan's spec.thresholds; the API server's
// own rules refuse bad ones, named as the caller wrote them.
func TestScanThresholds(t *testing.T) {
	h := newHarness(t)
	out := h.mustCall("cwac_scan", map[string]any{
		"urls":       []any{"https://a.example/"},
		"thresholds": map[string]any{"max_issues_by_impact": map[string]any{"critical": 0}, "max_total_issues": 20, "min_pages_scanned": 3},
	})
	got := getScanObj(t, h.ns, out["scan_id"].(string)).Spec.Thresholds
	total, pages := int64(20), int32(3)
	want := &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"critical": 0}, MaxTotalIssues: &total, MinPagesScanned: &pages}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec.thresholds (-want +got):\n%s", diff)
	}
	before := scanCount(t, h.ns)
	for args, wantErr := range map[string]map[string]any{
		"thresholds.max_issues_by_impact": {"max_issues_by_impact": map[string]any{"urgent": 1}},
		"thresholds.max_total_issues":     {"max_total_issues": -1},
	} {
		_, errText := h.call("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "thresholds": wantErr})
		if !strings.Contains(errText, args) {
			t.Errorf("thresholds %v: error %q does not name %s", wantErr, errText, args)
		}
	}
	if n := scanCount(t, h.ns); n != before {
		t.Errorf("refused thresholds created %d scans", n-before)
	}
}
