package cwacconfig

import (
	"bytes"
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
			"configOverrides.base_urls_visit_path: set by the operator",
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
			name: "plugin flags merge into plugin objects in place; scalars replace; new keys go last",
			overrides: `{"audit_name":"s1","only_allow_https":false,"extra_key":1,` +
				`"audit_plugins":{"focus_indicator_audit":{"enabled":true,"root_element_css_selector":"body"}}}`,
			want: `{"audit_name":"s1","max_links_per_domain":100,"thread_count":8,"only_allow_https":false,
			  "base_urls_visit_path":"./base_urls/visit/",
			  "viewport_sizes":{"small":{"width":320,"height":450},"medium":{"width":1280,"height":800}},
			  "audit_plugins":{"axe_core_audit":{"class_name":"AxeCoreAudit","best-practice":false,"enabled":true},
			    "reflow_audit":{"class_name":"ReflowAudit","enabled":true,"viewport_to_test":"small"},
			    "focus_indicator_audit":{"class_name":"FocusIndicatorAudit","enabled":true,"root_element_css_selector":"body"}},
			  "extra_key":1,"base_urls_nohead_path":"./base_urls/nohead/"}`,
		},
		{
			name:      "viewports replace the defaults and reflow follows the narrowest",
			overrides: `{"audit_name":"s2","viewport_sizes":{"wide":{"width":1920,"height":1080},"phone":{"height":667,"width":375}}}`,
			want: `{"audit_name":"s2","max_links_per_domain":100,"thread_count":8,"only_allow_https":true,
			  "base_urls_visit_path":"./base_urls/visit/",
			  "viewport_sizes":{"wide":{"width":1920,"height":1080},"phone":{"width":375,"height":667}},
			  "audit_plugins":{"axe_core_audit":{"class_name":"AxeCoreAudit","best-practice":false,"enabled":true},
			    "reflow_audit":{"class_name":"ReflowAudit","enabled":true,"viewport_to_test":"phone"},
			    "focus_indicator_audit":{"class_name":"FocusIndicatorAudit","enabled":false,"root_element_css_selector":"main"}},
			  "base_urls_nohead_path":"./base_urls/nohead/"}`,
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
			if diff := cmp.Diff(compactJSON(t, tt.want), encodeCompact(t, got)); diff != "" {
				t.Errorf("merged config mismatch, keys in order (-want +got):\n%s", diff)
			}
			if len(notes) != tt.wantNotes {
				t.Errorf("notes = %q, want %d", notes, tt.wantNotes)
			}
		})
	}
}

// cwacDefaultViewports is CWAC's own config_default.json's viewport_sizes,
// byte for byte once compacted: CWAC hashes str(viewport) — "{'width': 320,
// 'height': 450}" — into each axe-core issue_id, so the order is part of
// every issue id.
const cwacDefaultViewports = `"viewport_sizes":{"small":{"width":320,"height":450},"medium":{"width":1280,"height":800}}`

// TestViewportsInCWACKeyOrder: wherever viewports are written — the scan's
// own (rendered into scan.json), and the merged config the runner writes,
// from CWAC's defaults or from a scan.json written height first — each is
// width then height, and CWAC's default viewports come out exactly as CWAC
// lays them out.
func TestViewportsInCWACKeyOrder(t *testing.T) {
	rendered, err := RenderOverrides(Scan{AuditName: "v", ViewportSizes: map[string]Viewport{
		"medium": {Width: 1280, Height: 800}, "small": {Width: 320, Height: 450},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(t, rendered); !strings.Contains(got, cwacDefaultViewports) {
		t.Errorf("rendered scan.json %s\ndoes not hold CWAC's viewport layout %s", got, cwacDefaultViewports)
	}
	tests := []struct{ name, defaults, overrides string }{
		{"CWAC's defaults untouched", defaultsForTest, `{"audit_name":"a"}`},
		{"the scan's viewports", defaultsForTest, string(rendered)},
		{
			"defaults and scan.json written height first",
			strings.NewReplacer(`"width": 320, "height": 450`, `"height": 450, "width": 320`, `"width": 1280, "height": 800`, `"height": 800, "width": 1280`).
				Replace(defaultsForTest),
			`{"audit_name":"a","viewport_sizes":{"small":{"height":450,"width":320},"medium":{"height":800,"width":1280}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := Decode([]byte(tt.defaults))
			if err != nil {
				t.Fatal(err)
			}
			ov, err := Decode([]byte(tt.overrides))
			if err != nil {
				t.Fatal(err)
			}
			merged := Merge(base, ov)
			Finalize(merged)
			if got := encodeCompact(t, merged); !strings.Contains(got, cwacDefaultViewports) {
				t.Errorf("merged config %s\ndoes not hold CWAC's viewport layout %s", got, cwacDefaultViewports)
			}
		})
	}
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func compactJSON(t *testing.T, s string) string { return compact(t, []byte(s)) }

func encodeCompact(t *testing.T, o *Object) string {
	t.Helper()
	data, err := Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	return compact(t, data)
}

func TestDecodeKeepsOrderAndNumbers(t *testing.T) {
	in := `{"z":1,"a":{"y":0.10,"b":[1,{"k":null,"c":true}]},"m":"<&>","z":2}`
	o, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	// A repeated key keeps its first place and its last value, as in Python.
	if got, want := encodeCompact(t, o), `{"z":2,"a":{"y":0.10,"b":[1,{"k":null,"c":true}]},"m":"<&>"}`; got != want {
		t.Errorf("round trip = %s, want %s", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{"", "[1]", "null", `{"a":`, `{"a":1} {}`, `{"a" 1}`, `{1:2}`} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) accepted", in)
		}
	}
}
