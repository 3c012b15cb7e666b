// Package textcap cuts text to a size in bytes. Every text the operator, the
// runner, the MCP server and the plugin bound — status messages, Event
// notes, the 4 KiB termination report, error messages quoting input, table
// cells — is cut here, under one contract: the result is at most n bytes
// with the marker that says it was cut included, and the cut falls between
// characters, never inside one, so a valid UTF-8 text stays valid. Limits
// elsewhere are counted in bytes (the API server's, the kubelet's), so
// counting characters would overrun them.
package textcap

import "unicode/utf8"

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Head keeps the start of s: s itself when it fits in n bytes, else its
// longest start that fits in n bytes followed by Ellipsis.
func Head(s string, n int) string { return HeadMarked(s, n, Ellipsis) }

// HeadMarked is Head with marker in place of Ellipsis ("" for none). A
// marker longer than n does not fit: the result is then the longest start
// of s that does, unmarked.
func HeadMarked(s string, n int, marker string) string {
	if len(s) <= n {
		return s
	}
	if len(marker) > n {
		marker = ""
	}
	cut := max(n-len(marker), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}

// Tail keeps the end of s: s itself when it fits in n bytes, else Ellipsis
// followed by its longest end that fits in n bytes (for a log's tail, where
// the last lines matter). An Ellipsis longer than n does not fit: the result
// is then the longest end of s that does, unmarked.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	marker := Ellipsis
	if len(marker) > n {
		marker = ""
	}
	from := len(s) - max(n-len(marker), 0)
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return marker + s[from:]
}
