package cwacconfig

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// A base URL is held to urlpolicy.MaxURLLength characters, as the CRD's
// maxLength counts them (not bytes: these URLs are mostly two-byte
// characters): one below, at and one above; the error quotes the URL's
// first maxURLShown bytes.
func TestParseBaseURLLengthBoundary(t *testing.T) {
	const prefix = "https://a.example/"
	for _, n := range []int{urlpolicy.MaxURLLength - 1, urlpolicy.MaxURLLength, urlpolicy.MaxURLLength + 1} {
		raw := prefix + strings.Repeat("é", n-len(prefix))
		if c := utf8.RuneCountInString(raw); c != n || len(raw) <= urlpolicy.MaxURLLength+1 {
			t.Fatalf("built %d characters in %d bytes, want %d characters in more bytes than the limit", c, len(raw), n)
		}
		_, err := ParseBaseURL(raw)
		if n <= urlpolicy.MaxURLLength {
			if err != nil {
				t.Errorf("%d characters refused: %v", n, err)
			}
			continue
		}
		// 200 bytes less the 3-byte ellipsis and the 18-byte prefix leave
		// 179: 89 two-byte characters, the cut falling inside the 90th.
		want := "Invalid URL: " + prefix + strings.Repeat("é", 89) + "…: longer than 2048 characters"
		if err == nil || err.Error() != want {
			t.Errorf("%d characters: %v, want %q", n, err, want)
		}
	}
}

func viewports(v Viewport) Scan {
	return Scan{AuditName: "a", ViewportSizes: map[string]Viewport{"v": v}}
}

// What a scan sets of max_links_per_domain, thread_count and viewports, at
// the edges: negative is refused, zero leaves CWAC's default, one is written.
func TestRenderOverridesNumberBoundaries(t *testing.T) {
	tests := []struct {
		name    string
		scan    Scan
		want    string // compact JSON
		wantErr string
	}{
		{name: "links -1", scan: Scan{AuditName: "a", MaxLinksPerDomain: -1}, wantErr: "must not be negative"},
		{name: "threads -1", scan: Scan{AuditName: "a", ThreadCount: -1}, wantErr: "must not be negative"},
		{name: "zeros leave the defaults", scan: Scan{AuditName: "a"}, want: `{"audit_name":"a"}`},
		{
			name: "ones are written", scan: Scan{AuditName: "a", MaxLinksPerDomain: 1, ThreadCount: 1},
			want: `{"audit_name":"a","max_links_per_domain":1,"thread_count":1}`,
		},
		{name: "viewport 1 by 1", scan: Scan{AuditName: "a", ViewportSizes: map[string]Viewport{"v": {Width: 1, Height: 1}}},
			want: `{"audit_name":"a","viewport_sizes":{"v":{"width":1,"height":1}}}`},
		{name: "viewport width 0", scan: viewports(Viewport{Width: 0, Height: 1}), wantErr: `viewport "v": width and height must be positive`},
		{name: "viewport height 0", scan: viewports(Viewport{Width: 1, Height: 0}), wantErr: `viewport "v": width and height must be positive`},
		{name: "viewport width -1", scan: Scan{AuditName: "a", ViewportSizes: map[string]Viewport{"v": {Width: -1, Height: 1}}}, wantErr: "must be positive"},
		{
			name: "viewports narrowest first, equal widths by name",
			scan: Scan{AuditName: "a", ViewportSizes: map[string]Viewport{
				"b": {Width: 320, Height: 2}, "a": {Width: 320, Height: 1}, "c": {Width: 319, Height: 3}, "d": {Width: 321, Height: 4},
			}},
			want: `{"audit_name":"a","viewport_sizes":{` +
				`"c":{"width":319,"height":3},"a":{"width":320,"height":1},"b":{"width":320,"height":2},"d":{"width":321,"height":4}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderOverrides(tt.scan)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(compactJSON(t, tt.want), compactJSON(t, string(got))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Finalize's reflow repair: kept when it names one of the scan's
// viewports, else the narrowest (equal widths: the first name), whatever
// type the widths were decoded as; nothing to repair without reflow or
// viewports.
func TestFinalizeReflowViewport(t *testing.T) {
	tests := []struct {
		name, config, want string
		notes              int
	}{
		{
			name:   "kept",
			config: `{"viewport_sizes":{"w":{"width":900,"height":1},"n":{"width":300,"height":1}},"audit_plugins":{"reflow_audit":{"viewport_to_test":"w"}}}`,
			want:   "w",
		},
		{
			name:   "narrowest, though last by name",
			config: `{"viewport_sizes":{"a":{"width":301,"height":1},"b":{"width":300,"height":1}},"audit_plugins":{"reflow_audit":{"viewport_to_test":"gone"}}}`,
			want:   "b", notes: 1,
		},
		{
			name:   "equal widths: the first name",
			config: `{"viewport_sizes":{"y":{"width":300,"height":1},"x":{"width":300,"height":1}},"audit_plugins":{"reflow_audit":{}}}`,
			want:   "x", notes: 1,
		},
		{name: "no reflow audit", config: `{"viewport_sizes":{"v":{"width":1,"height":1}},"audit_plugins":{}}`},
		{name: "no viewports", config: `{"audit_plugins":{"reflow_audit":{"viewport_to_test":"gone"}}}`, want: "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Decode([]byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			notes := Finalize(cfg)
			got, _ := cfg.Object("audit_plugins").Object("reflow_audit").Get("viewport_to_test")
			if s, _ := got.(string); s != tt.want || len(notes) != tt.notes {
				t.Errorf("viewport_to_test %v, notes %q; want %q and %d note(s)", got, notes, tt.want, tt.notes)
			}
		})
	}
}

func TestWidthOfEachNumberType(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want float64
	}{{float64(2.5), 2.5}, {3, 3}, {json.Number("4"), 4}, {"5", 0}, {nil, 0}} {
		o := NewObject()
		o.Set("width", tt.v)
		if got := width(o); got != tt.want {
			t.Errorf("width(%#v) = %v, want %v", tt.v, got, tt.want)
		}
	}
	if got := width(nil); got != 0 {
		t.Errorf("width(nil) = %v", got)
	}
}

// An Object's zero value and nil pointer behave as empty.
func TestObjectZeroAndNil(t *testing.T) {
	var nilObj *Object
	if nilObj.Len() != 0 || nilObj.Keys() != nil || nilObj.Object("x") != nil {
		t.Error("a nil Object is not empty")
	}
	if _, ok := nilObj.Get("x"); ok {
		t.Error("a nil Object has a key")
	}
	var zero Object
	zero.Set("b", 1)
	zero.Set("a", 2)
	zero.Set("b", 3) // in place
	zero.Reorder("a", "missing")
	if diff := cmp.Diff([]string{"a", "b"}, zero.Keys()); diff != "" || zero.Len() != 2 {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if v, _ := zero.Get("b"); v != 3 {
		t.Errorf("b = %v, want 3", v)
	}
}

// Values JSON cannot hold are an error naming the key, not a broken file.
func TestEncodeRefusesWhatJSONCannotHold(t *testing.T) {
	inner := NewObject()
	inner.Set("ratio", math.NaN())
	cfg := NewObject()
	cfg.Set("first", 1)
	cfg.Set("outer", inner)
	_, err := Encode(cfg)
	if err == nil || !strings.Contains(err.Error(), "outer: ") || !strings.Contains(err.Error(), "ratio: ") || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("Encode = %v, want an error naming outer, ratio and NaN", err)
	}
}

// Merge onto nothing is the overrides; an object replaces a scalar and a
// scalar an object.
func TestMergeEdges(t *testing.T) {
	ov, _ := Decode([]byte(`{"a":{"x":1},"b":2}`))
	if got := encodeCompact(t, Merge(nil, ov)); got != `{"a":{"x":1},"b":2}` {
		t.Errorf("Merge(nil) = %s", got)
	}
	base, _ := Decode([]byte(`{"a":1,"b":{"y":1}}`))
	if got := encodeCompact(t, Merge(base, ov)); got != `{"a":{"x":1},"b":2}` {
		t.Errorf("Merge = %s", got)
	}
}

func TestReadBaseURLCSV(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Site
		wantErr  string
	}{
		{name: "with CWAC's byte-order mark", in: "\xef\xbb\xbforganisation,url,sector\nO,https://a.example/,S\n", want: []Site{{"O", "https://a.example/", "S"}}},
		{name: "header only", in: "organisation,url,sector\n", want: []Site{}},
		{name: "empty", in: "", wantErr: "header must be organisation,url,sector"},
		{name: "another header", in: "org,url,sector\n", wantErr: "header must be organisation,url,sector"},
		{
			name: "a row of two fields", in: "organisation,url,sector\nO,https://a.example/\n",
			wantErr: "reading base URL CSV: record on line 2: wrong number of fields",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadBaseURLCSV([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); err != nil || diff != "" {
				t.Errorf("err %v, rows (-want +got):\n%s", err, diff)
			}
		})
	}
}

// Sites alone, without plain URLs, and plain URLs alone.
func TestNormalizeSitesOneKindOnly(t *testing.T) {
	got, err := NormalizeSites(nil, []Site{{URL: "https://a.example/"}, {URL: "https://b.example/", Sector: "S"}})
	want := []Site{
		{Organisation: "a.example", URL: "https://a.example/", Sector: DefaultSector},
		{Organisation: "b.example", URL: "https://b.example/", Sector: "S"},
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("sites only: %v (-want +got):\n%s", err, diff)
	}
	got, err = NormalizeSites([]string{"https://a.example/"}, nil)
	if err != nil || len(got) != 1 || got[0].Organisation != "a.example" {
		t.Errorf("URLs only: %v, %v", got, err)
	}
}

// A refused URL's error shows its first maxURLShown bytes, quoted when it
// holds white space: one below, at and one above the cut.
func TestParseBaseURLErrorShowsTheURL(t *testing.T) {
	ftp := func(n int) string { return "ftp://a.example/" + strings.Repeat("x", n-len("ftp://a.example/")) }
	tests := []struct{ raw, want string }{
		{ftp(maxURLShown - 1), "Invalid URL: " + ftp(maxURLShown-1) + ": only http and https URLs can be scanned"},
		{ftp(maxURLShown), "Invalid URL: " + ftp(maxURLShown) + ": only http and https URLs can be scanned"},
		{ftp(maxURLShown + 1), "Invalid URL: " + ftp(maxURLShown-len("…")) + "…: only http and https URLs can be scanned"},
		{"https://a.example/a b", `Invalid URL: "https://a.example/a b": contains white space`},
		{"https://a.example?q", "Invalid URL: https://a.example?q: must be http:// or https:// in lower case and a host, then nothing or a path starting with /"},
	}
	for _, tt := range tests {
		if _, err := ParseBaseURL(tt.raw); err == nil || err.Error() != tt.want {
			t.Errorf("ParseBaseURL(%q) = %v, want %q", tt.raw, err, tt.want)
		}
	}
}
