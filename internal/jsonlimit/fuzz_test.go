package jsonlimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// referenceValues counts a valid document's values (keys included) with
// encoding/json's own tokenizer; numbers stay text, as a number beyond
// float64's range is still one value of a valid document.
func referenceValues(data []byte) (int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var n int64
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			continue
		}
		n++
	}
}

// FuzzCounter checks the Counter against encoding/json on any input: it
// never panics; on a valid document it counts exactly the values
// encoding/json's tokenizer sees; and a document within its limits decodes
// with at most a bounded multiple of its decoded-size estimate allocated,
// the memory bound the limits exist for.
func FuzzCounter(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `[{},{},{}]`, `{"a":[1,2,{"b":"c\"d"}],"e":null}`, `"\u00e9\\"`, `-1.5e10`, `[[[[[[]]]]]]`,
		`{"k":"v"`, `]]`, `"unterminated`, `[tru]`, "[\"\xff\"]", `{"a":{"b":{"c":{}}}}`,
		"2" + strings.Repeat("0", 310),
	} {
		f.Add([]byte(seed))
	}
	lim := Limits{MaxDepth: 32, MaxValues: 4096, MaxString: 1024, MaxDecoded: 256 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := New(lim)
		_, err := c.Write(data)
		if !json.Valid(data) {
			return
		}
		want, rerr := referenceValues(data)
		if rerr != nil {
			t.Fatalf("encoding/json's tokenizer failed on a valid document: %v", rerr)
		}
		if err != nil {
			var e *Exceeded
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Exceeded", err)
			}
			return
		}
		if c.Values() != want {
			t.Fatalf("counted %d values, encoding/json sees %d in %q", c.Values(), want, data)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			// A number beyond float64's range: encoding/json refuses the
			// document, clearly, and has nothing left to measure.
			var tooBig *json.UnmarshalTypeError
			if errors.As(err, &tooBig) && strings.HasPrefix(tooBig.Value, "number") {
				return
			}
			t.Fatalf("a valid document did not decode: %v", err)
		}
		runtime.ReadMemStats(&after)
		// A map, its group of slots and the boxes of its values take a few
		// times ValueCost for a one-key object: 8× the estimate plus the
		// decoder's own few kilobytes bounds what decoding any document
		// within the limits allocates.
		if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(8*c.Decoded()+16<<10); got > bound {
			t.Fatalf("decoding allocated %d bytes, more than %d (8× the estimate %d plus 16 KiB)", got, bound, c.Decoded())
		}
	})
}
