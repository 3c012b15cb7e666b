package cwacconfig

import (
	"encoding/json"
	"strings"
	"testing"

	goldenfile "github.com/a11y-dev/cwac-operator/internal/testutil/golden"

	"github.com/google/go-cmp/cmp"
)

func TestRenderOverridesGolden(t *testing.T) {
	got, err := RenderOverrides(Scan{
		AuditName:         "nightly",
		MaxLinksPerDomain: 20,
		ThreadCount:       2,
		Plugins:           map[string]bool{"axe_core_audit": true, "language_audit": false},
		ViewportSizes:     map[string]Viewport{"phone": {Width: 375, Height: 667}},
		Overrides: map[string]json.RawMessage{
			"only_allow_https": json.RawMessage(`false`),
			"audit_plugins":    json.RawMessage(`{"focus_indicator_audit":{"root_element_css_selector":"body"},"language_audit":{"enabled":true}}`),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Assert(t, "overrides.json", got)
}

func TestRenderOverridesErrors(t *testing.T) {
	tests := []struct {
		name string
		scan Scan
		want string
	}{
		{"bad audit name", Scan{AuditName: "a/b"}, "invalid audit name"},
		{"unknown plugin", Scan{AuditName: "x", Plugins: map[string]bool{"seo_audit": true}}, "unknown plugin(s) seo_audit; valid plugins are"},
		{
			"owned key", Scan{AuditName: "x", Overrides: map[string]json.RawMessage{"base_urls_visit_path": json.RawMessage(`"/etc"`)}},
			`"base_urls_visit_path" is owned by the operator`,
		},
		{"bad json", Scan{AuditName: "x", Overrides: map[string]json.RawMessage{"headless": json.RawMessage(`{`)}}, `config override "headless"`},
		{"zero viewport", Scan{AuditName: "x", ViewportSizes: map[string]Viewport{"v": {}}}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RenderOverrides(tt.scan)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// defaultsForTest is a stand-in for the CWAC image's config_default.json,
// shaped like it (nested audit_plugins objects, named viewports).
const defaultsForTest = `{
  "audit_name": "default",
  "max_links_per_domain": 100,
  "thread_count": 8,
  "only_allow_https": true,
  "base_urls_visit_path": "./base_urls/visit/",
  "viewport_sizes": {"small": {"width": 320, "height": 450}, "medium": {"width": 1280, "height": 800}},
  "audit_plugins": {
    "axe_core_audit": {"class_name": "AxeCoreAudit", "best-practice": false, "enabled": true},
    "reflow_audit": {"class_name": "ReflowAudit", "enabled": true, "viewport_to_test": "small"},
    "focus_indicator_audit": {"class_name": "FocusIndicatorAudit", "enabled": false, "root_element_css_selector": "main"}
  }
}`

func TestMergeAndFinalize(t *testing.T) {
	tests := []struct {
		name      string
		overrides string
		want      string
		wantNotes int
	}{
		{
			name: "plugin flags merge into plugin objects; scalars replace",
			overrides: `{"audit_name":"s1","only_allow_https":false,` +
				`"audit_plugins":{"focus_indicator_audit":{"enabled":true,"root_element_css_selector":"body"}}}`,
			want: `{"audit_name":"s1","max_links_per_domain":100,"thread_count":8,"only_allow_https":false,
			  "base_urls_visit_path":"./base_urls/visit/","base_urls_nohead_path":"./base_urls/nohead/",
			  "viewport_sizes":{"small":{"width":320,"height":450},"medium":{"width":1280,"height":800}},
			  "audit_plugins":{"axe_core_audit":{"class_name":"AxeCoreAudit","best-practice":false,"enabled":true},
			    "reflow_audit":{"class_name":"ReflowAudit","enabled":true,"viewport_to_test":"small"},
			    "focus_indicator_audit":{"class_name":"FocusIndicatorAudit","enabled":true,"root_element_css_selector":"body"}}}`,
		},
		{
			name:      "viewports replace the defaults and reflow follows the narrowest",
			overrides: `{"audit_name":"s2","viewport_sizes":{"wide":{"width":1920,"height":1080},"phone":{"width":375,"height":667}}}`,
			want: `{"audit_name":"s2","max_links_per_domain":100,"thread_count":8,"only_allow_https":true,
			  "base_urls_visit_path":"./base_urls/visit/","base_urls_nohead_path":"./base_urls/nohead/",
			  "viewport_sizes":{"wide":{"width":1920,"height":1080},"phone":{"width":375,"height":667}},
			  "audit_plugins":{"axe_core_audit":{"class_name":"AxeCoreAudit","best-practice":false,"enabled":true},
			    "reflow_audit":{"class_name":"ReflowAudit","enabled":true,"viewport_to_test":"phone"},
			    "focus_indicator_audit":{"class_name":"FocusIndicatorAudit","enabled":false,"root_element_css_selector":"main"}}}`,
			wantNotes: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := Decode([]byte("\xef\xbb\xbf" + defaultsForTest))
			if err != nil {
				t.Fatal(err)
			}
			ov, err := Decode([]byte(tt.overrides))
			if err != nil {
				t.Fatal(err)
			}
			got := Merge(base, ov)
			notes := Finalize(got)
			want, err := Decode([]byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merged config mismatch (-want +got):\n%s", diff)
			}
			if len(notes) != tt.wantNotes {
				t.Errorf("notes = %q, want %d", notes, tt.wantNotes)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{"", "[1]", "null", `{"a":`} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) accepted", in)
		}
	}
}
