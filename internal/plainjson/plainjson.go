// Package plainjson encodes JSON without HTML escaping. encoding/json writes
// <, > and & as \u003c, \u003e and \u0026, which is right for JSON put in a
// web page and wrong for what this project writes: CWAC's config (its CSS
// selectors and user agent must stay as written), the results' HTML snippets
// in diff.json and summary.json, which people read. Every such encoder is
// made here, so no writer forgets to turn the escaping off.
package plainjson

import (
	"bytes"
	"encoding/json"
	"io"
)

// NewEncoder is json.NewEncoder with HTML escaping off.
func NewEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// Marshal is json.Marshal without HTML escaping: compact, with no newline
// after the value.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MarshalIndent writes v indented by two spaces and ends it with a newline,
// as a file for people is written, without HTML escaping.
func MarshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
