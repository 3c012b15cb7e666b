package results

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePyLiteral(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{"{'width': 320, 'height': 450}", map[string]any{"width": int64(320), "height": int64(450)}},
		{"['cat.color', 'wcag2aa', 'wcag143']", []any{"cat.color", "wcag2aa", "wcag143"}},
		{`["it's", 'say "hi"']`, []any{"it's", `say "hi"`}},
		{`'a\'b\\c\nd\x41\u0101'`, "a'b\\c\ndAā"},
		{"True", true},
		{"None", nil},
		{"(1, -2.5, 1e3)", []any{int64(1), -2.5, 1000.0}},
		{"[]", []any{}},
		{"{'a': [1, {'b': False}],}", map[string]any{"a": []any{int64(1), map[string]any{"b": false}}}},
	}
	for _, tt := range tests {
		got, err := ParsePyLiteral(tt.in)
		if err != nil {
			t.Errorf("ParsePyLiteral(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePyLiteral(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParsePyLiteralErrors(t *testing.T) {
	for _, in := range []string{"", "{", "{'a' 1}", "['a'", "'open", "nope", "[1] x", strings.Repeat("[", 100) + strings.Repeat("]", 100), `'\x4'`} {
		if v, err := ParsePyLiteral(in); err == nil {
			t.Errorf("ParsePyLiteral(%q) = %v, want an error", in, v)
		}
	}
}

func TestParseTagsAndViewport(t *testing.T) {
	tags, err := ParseTags("['cat.text-alternatives', 'wcag2a', 'wcag111']")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"cat.text-alternatives", "wcag2a", "wcag111"}, tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if _, err := ParseTags("[1, 2]"); err == nil {
		t.Error("a list of ints was accepted as tags")
	}
	if _, err := ParseViewport("{'width': '320'}"); err == nil {
		t.Error("a string width was accepted")
	}
}

func FuzzParsePyLiteral(f *testing.F) {
	for _, s := range []string{"{'width': 320, 'height': 450}", "['a', 'b']", `'\u00e9'`, "((((", "1e999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParsePyLiteral(s) // must not panic or hang
		_, _ = ParseTags(s)
		_, _ = ParseViewport(s)
	})
}
