package results

import (
	"fmt"
	"strings"
	"testing"
)

// TestPyLiteralDepthLimit: values nest at most maxPyDepth deep, through
// lists, tuples, dict values and dict keys alike: at the limit a literal
// is read, one level more is refused.
func TestPyLiteralDepthLimit(t *testing.T) {
	if maxPyDepth != 32 {
		t.Fatalf("maxPyDepth = %d; the cases below are written for 32", maxPyDepth)
	}
	// Each builds a literal whose innermost value (1) is depth levels down.
	builders := map[string]func(depth int) string{
		"lists":       func(d int) string { return strings.Repeat("[", d) + "1" + strings.Repeat("]", d) },
		"tuples":      func(d int) string { return strings.Repeat("(", d) + "1" + strings.Repeat(")", d) },
		"dict values": func(d int) string { return strings.Repeat("{'k': ", d) + "1" + strings.Repeat("}", d) },
		"dict keys": func(d int) string {
			s := "1"
			for range d {
				s = "{" + s + ": 0}"
			}
			return s
		},
	}
	for name, build := range builders {
		for _, tt := range []struct {
			depth   int
			wantErr bool
		}{{31, false}, {32, false}, {33, true}} {
			_, err := ParsePyLiteral(build(tt.depth))
			if (err != nil) != tt.wantErr || tt.wantErr && !strings.Contains(err.Error(), "nested too deeply") {
				t.Errorf("%s %d deep: err = %v, want error %v", name, tt.depth, err, tt.wantErr)
			}
		}
	}
}

// TestPyLiteralEndsEarly: a literal cut anywhere is an error saying what
// was expected, never a read past its end.
func TestPyLiteralEndsEarly(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{'a'", "expected ':'"},
		{"{'a' ", "expected ':'"},
		{"{'a': 1", "expected ',' or '}'"},
		{"{'a': 1 ", "expected ',' or '}'"},
		{"{'a': 1,", "unexpected end"},
		{"[1", `expected ',' or ']'`},
		{"(1", `expected ',' or ')'`},
		{"[1,", "unexpected end"},
		{`'abc\`, "unterminated escape"},
		{`'\x4`, `short \x escape`},
		{`'\x41`, "unterminated string"},
		{`'\u010`, `short \u escape`},
		{`'\u0101`, "unterminated string"},
		{`'\U0001F600`, "unterminated string"},
		{`'\U0001F60`, `short \U escape`},
		{`'\xzz'`, `bad \x escape`},
	}
	for _, tt := range tests {
		_, err := ParsePyLiteral(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePyLiteral(%q): err = %v, want %q", tt.in, err, tt.want)
		}
	}
	// At the exact end, escapes still read.
	for in, want := range map[string]string{`'\x41'`: "A", `'\u0101'`: "ā", `'\U0001F600'`: "😀", `'a\\'`: `a\`} {
		if got, err := ParsePyLiteral(in); err != nil || got != want {
			t.Errorf("ParsePyLiteral(%q) = %v, %v; want %q", in, got, err, want)
		}
	}
}

// TestPyLiteralNumbers: a number takes every character a Python number
// literal may hold, a sign, exponent or underscore included.
func TestPyLiteralNumbers(t *testing.T) {
	for in, want := range map[string]any{
		"+5": int64(5), "-5": int64(-5), "1e+3": 1000.0, "1E-1": 0.1, "1_000": int64(1000), ".5": 0.5, "[+1, 2]": []any{int64(1), int64(2)},
	} {
		got, err := ParsePyLiteral(in)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("ParsePyLiteral(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
}
