package cli

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// terminalText writes text that may come from a scan's data (organisation
// names, page titles, help texts, status messages) so that a terminal shows
// it and never acts on it: C0 controls but newline and tab (a carriage
// return only before a newline), DEL, C1 controls (U+0080–U+009F) and
// bidirectional formatting characters are written as \uXXXX, and a byte
// that is not UTF-8 as \xNN. \uXXXX is what JSON would write, so JSON output
// stays valid JSON with the same meaning. Every stream kubectl cwac prints
// to goes through one (Options.out, Options.errOut), so no command can
// forget it; only the progress line's own cursor controls, and documents
// written to a file or a pipe (Options.docOut), bypass it.
type terminalText struct {
	w io.Writer
	// pending holds the start of a UTF-8 sequence, or a carriage return,
	// that the next write completes.
	pending []byte
}

func newTerminalText(w io.Writer) *terminalText { return &terminalText{w: w} }

// Write escapes p and writes it; it reports all of p written when the
// underlying writer took the escaped text.
func (t *terminalText) Write(p []byte) (int, error) {
	buf := append(t.pending, p...)
	t.pending = nil
	out := make([]byte, 0, len(buf)+16)
	for i := 0; i < len(buf); {
		c := buf[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && i+1 == len(buf):
				t.pending = append(t.pending, c) // a newline may follow
			case c == '\n' || c == '\t' || (c == '\r' && buf[i+1] == '\n'):
				out = append(out, c)
			case c < 0x20 || c == 0x7f:
				out = fmt.Appendf(out, `\u%04x`, c)
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(buf[i:]) {
				t.pending = append(t.pending, buf[i:]...) // the rest comes next
				break
			}
			out = fmt.Appendf(out, `\x%02x`, c)
			i++
			continue
		}
		if hiddenRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, buf[i:i+size]...)
		}
		i += size
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a write left pending (an unfinished UTF-8 sequence is
// written escaped, a carriage return as \u000d).
func (t *terminalText) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	out := make([]byte, 0, 8*len(t.pending))
	for _, c := range t.pending {
		if c < utf8.RuneSelf {
			out = fmt.Appendf(out, `\u%04x`, c)
		} else {
			out = fmt.Appendf(out, `\x%02x`, c)
		}
	}
	t.pending = nil
	_, err := t.w.Write(out)
	return err
}

// hiddenRune reports whether a terminal would act on r rather than show
// it: C1 controls, and the bidirectional formatting characters that reorder
// what follows (Trojan Source).
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
