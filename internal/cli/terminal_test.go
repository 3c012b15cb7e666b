package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestTerminalText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text and layout", "Ministry of Examples\t12\nnext line\r\n", "Ministry of Examples\t12\nnext line\r\n"},
		{"ESC and a CSI sequence", "org\x1b]0;owned\x07\x1b[2J", `org\u001b]0;owned\u0007\u001b[2J`},
		{"a carriage return that overwrites", "safe\rEVIL", `safe\u000dEVIL`},
		{"DEL and NUL", "a\x7fb\x00c", `a\u007fb\u0000c`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidirectional overrides", "abc\u202edcba\u2066x\u2069", `abc\u202edcba\u2066x\u2069`},
		{"letters of every script", "Māori — 日本 – ÄÖÜ", "Māori — 日本 – ÄÖÜ"},
		{"a byte that is not UTF-8", "a\xffb", `a\xffb`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := newTerminalText(&b)
			if n, err := w.Write([]byte(tc.in)); err != nil || n != len(tc.in) {
				t.Fatalf("Write = %d, %v", n, err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// A sequence split between writes is judged whole: a C1 control's two bytes
// and a carriage return before its newline.
func TestTerminalTextAcrossWrites(t *testing.T) {
	var b bytes.Buffer
	w := newTerminalText(&b)
	for _, part := range []string{"a\xc2", "\x9bb\r", "\nc\xe2\x80", "\xaed"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Flush()
	if want := `a\u009bb` + "\r\n" + `c\u202ed`; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	_, _ = w.Write([]byte("end\xe2\x80"))
	_ = w.Flush()
	if want := `end\xe2\x80`; b.String() != want {
		t.Errorf("an unfinished sequence at the end: %q, want %q", b.String(), want)
	}
}

// JSON through it stays JSON with the same values, hostile ones included.
func TestTerminalTextKeepsJSON(t *testing.T) {
	in := map[string]string{"organisation": "x\u009b\u202e\x1b[31m\x07y", "title": "Māori"}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := newTerminalText(&b)
	_, _ = w.Write(data)
	_ = w.Flush()
	var out map[string]string
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("not JSON any more: %v: %s", err, b.String())
	}
	if out["organisation"] != in["organisation"] || out["title"] != in["title"] {
		t.Errorf("values changed: %q", out)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b\u202e") {
		t.Errorf("a control reached the terminal: %q", b.String())
	}
}
