package plainjson

import (
	"bytes"
	"math"
	"testing"
)

type doc struct {
	HTML  string `json:"html"`
	Count int    `json:"count"`
}

func TestEncodersLeaveHTMLAsWritten(t *testing.T) {
	v := doc{HTML: `<a href="x?a=1&b=2">`, Count: 2}
	compact, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"html":"<a href=\"x?a=1&b=2\">","count":2}`; string(compact) != want {
		t.Errorf("Marshal = %s, want %s", compact, want)
	}
	indented, err := MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"html\": \"<a href=\\\"x?a=1&b=2\\\">\",\n  \"count\": 2\n}\n"; string(indented) != want {
		t.Errorf("MarshalIndent = %q, want %q", indented, want)
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode(v.HTML); err != nil {
		t.Fatal(err)
	}
	if want := "\"<a href=\\\"x?a=1&b=2\\\">\"\n"; buf.String() != want {
		t.Errorf("NewEncoder wrote %q, want %q", buf.String(), want)
	}
}

// A value JSON cannot hold is an error, not a partial document.
func TestUnencodableValue(t *testing.T) {
	if b, err := Marshal(math.NaN()); err == nil || b != nil {
		t.Errorf("Marshal(NaN) = %q, %v; want an error and nothing", b, err)
	}
	if b, err := MarshalIndent(math.Inf(1)); err == nil || b != nil {
		t.Errorf("MarshalIndent(+Inf) = %q, %v; want an error and nothing", b, err)
	}
}

// Only the one newline Encode adds is taken off: a string's own newline,
// escaped inside the value, stays.
func TestMarshalEndsAtTheValue(t *testing.T) {
	b, err := Marshal("line\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := `"line\n"`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
}
