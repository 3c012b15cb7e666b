package jsonlimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// exceeded returns the limit err names ("" for none).
func exceeded(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Exceeded
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Exceeded", err)
	}
	return e.Limit
}

// Each limit at its value (accepted) and one past it (refused), and the
// counts the Counter reports.
func TestLimits(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		lim     Limits
		want    string // the limit passed, "" for none
		values  int64
		decoded int64
	}{
		{"depth at the limit", `[[{}]]`, Limits{MaxDepth: 3}, "", 3, 3 * ValueCost},
		{"depth one past", `[[{[]}]]`, Limits{MaxDepth: 3}, LimitDepth, 0, 0},
		{"depth counts open containers, not all containers", `[[],[],[[]]]`, Limits{MaxDepth: 3}, "", 5, 5 * ValueCost},
		{"closing brackets free a level", `[[]][[]]`, Limits{MaxDepth: 2}, "", 4, 4 * ValueCost},
		{"stray closing brackets do not go below zero", `]]]][[`, Limits{MaxDepth: 2}, "", 2, 2 * ValueCost},
		{"values at the limit", `{"a":1,"b":[true,null]}`, Limits{MaxValues: 7}, "", 7, 7*ValueCost + 1 + 1 + 1 + 4 + 4},
		{"values one past", `{"a":1,"b":[true,null,"x"]}`, Limits{MaxValues: 7}, LimitValues, 0, 0},
		{"an empty object is one value", `[{},{},{}]`, Limits{MaxValues: 4}, "", 4, 4 * ValueCost},
		{"string at the limit", `["abcd"]`, Limits{MaxString: 4}, "", 2, 2*ValueCost + 4},
		{"string one past", `["abcde"]`, Limits{MaxString: 4}, LimitString, 0, 0},
		{"escapes count as written", `["\"\\"]`, Limits{MaxString: 4}, "", 2, 2*ValueCost + 4},
		{"escaped quote does not end the string", `["\"abc"]`, Limits{MaxString: 4}, LimitString, 0, 0},
		{"a key is a string", `{"abcde":1}`, Limits{MaxString: 4}, LimitString, 0, 0},
		{"number at the limit", `[1234]`, Limits{MaxString: 4}, "", 2, 2*ValueCost + 4},
		{"number one past", `[-1234]`, Limits{MaxString: 4}, LimitString, 0, 0},
		{"each string counts from zero", `["abcd","efgh"]`, Limits{MaxString: 4}, "", 3, 3*ValueCost + 8},
		{"decoded at the limit", `["ab"]`, Limits{MaxDecoded: 2*ValueCost + 2}, "", 2, 2*ValueCost + 2},
		{"decoded one past", `["abc"]`, Limits{MaxDecoded: 2*ValueCost + 2}, LimitDecoded, 0, 0},
		{"scalars end at brackets and quotes", `[1,2]`, Limits{MaxValues: 3}, "", 3, 3*ValueCost + 2},
		{"whitespace is free", " [ 1 ,\n\t\r2 ] ", Limits{MaxDecoded: 3*ValueCost + 2}, "", 3, 3*ValueCost + 2},
		{"no limits", strings.Repeat("[", 100) + strings.Repeat("]", 100), Limits{}, "", 100, 100 * ValueCost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.lim)
			_, err := c.Write([]byte(tt.doc))
			if got := exceeded(t, err); got != tt.want {
				t.Fatalf("limit passed = %q (%v), want %q", got, err, tt.want)
			}
			if !errors.Is(c.Err(), err) || exceeded(t, Check([]byte(tt.doc), tt.lim)) != tt.want {
				t.Errorf("Err() = %v and Check disagree with Write's %v", c.Err(), err)
			}
			if tt.want == "" && (c.Values() != tt.values || c.Decoded() != tt.decoded) {
				t.Errorf("values %d, decoded %d; want %d and %d", c.Values(), c.Decoded(), tt.values, tt.decoded)
			}
		})
	}
}

// The count does not depend on how the document is split between writes,
// and a Counter that failed keeps failing without counting more.
func TestWritesInPieces(t *testing.T) {
	doc := []byte(`{"key":"va\"lue","list":[1,22,333,true,false,null,{"x":[]}]}`)
	whole := New(Limits{})
	if _, err := whole.Write(doc); err != nil {
		t.Fatal(err)
	}
	for size := 1; size <= len(doc); size++ {
		c := New(Limits{})
		for i := 0; i < len(doc); i += size {
			if _, err := c.Write(doc[i:min(i+size, len(doc))]); err != nil {
				t.Fatal(err)
			}
		}
		if c.Values() != whole.Values() || c.Decoded() != whole.Decoded() {
			t.Fatalf("in pieces of %d: %d values, %d decoded; whole: %d, %d", size, c.Values(), c.Decoded(), whole.Values(), whole.Decoded())
		}
	}
	c := New(Limits{MaxValues: 3})
	n, err := c.Write([]byte(`[1,2,3]`))
	if n != 5 || exceeded(t, err) != LimitValues { // '[', '1', ',', '2', ',' counted; '3', the fourth value, refused
		t.Fatalf("Write = %d, %v; want 5 bytes then the values limit", n, err)
	}
	if n, err := c.Write([]byte(`[]`)); n != 0 || !errors.Is(err, c.Err()) || c.Values() != 4 {
		t.Errorf("after failing: Write = %d, %v, values %d; want 0, the same error, 4", n, err, c.Values())
	}
}

func TestErrorsNameTheLimit(t *testing.T) {
	for _, tt := range []struct {
		err  Exceeded
		want string
	}{
		{Exceeded{LimitDepth, 8}, "deeper than the limit of 8 levels"},
		{Exceeded{LimitValues, 9}, "more values than the limit of 9"},
		{Exceeded{LimitString, 10}, "longer than the limit of 10 bytes"},
		{Exceeded{LimitDecoded, 11}, "more than the limit of 11 bytes once decoded"},
	} {
		if got := tt.err.Error(); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want it to contain %q", tt.err.Limit, got, tt.want)
		}
	}
}

// A decoder reading through a Reader stops with the limit's error; one
// within the limits decodes as it would without it.
func TestReader(t *testing.T) {
	doc := `{"a":[` + strings.Repeat(`{},`, 1000) + `{}]}`
	var v any
	err := json.NewDecoder(NewReader(strings.NewReader(doc), Limits{MaxValues: 100})).Decode(&v)
	if exceeded(t, err) != LimitValues {
		t.Fatalf("decode through a 100-value reader: %v, want the values limit", err)
	}
	r := NewReader(strings.NewReader(doc), Limits{MaxValues: 1004})
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		t.Fatalf("decode within the limits: %v", err)
	}
	if r.Counter().Values() != 1004 {
		t.Errorf("counted %d values, want 1004", r.Counter().Values())
	}
	if n, err := r.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("read at the end = %d, %v", n, err)
	}
	failed := NewReader(strings.NewReader("[[[["), Limits{MaxDepth: 2})
	if _, err := io.ReadAll(failed); exceeded(t, err) != LimitDepth {
		t.Fatalf("ReadAll = %v, want the depth limit", err)
	}
	if n, err := failed.Read(make([]byte, 8)); n != 0 || exceeded(t, err) != LimitDepth {
		t.Errorf("a read after failing = %d, %v", n, err)
	}
}

// The planted documents of the issue that led to this package are refused
// after a few kilobytes, whatever their size.
func TestPlantedDocuments(t *testing.T) {
	lim := Limits{MaxDepth: 16, MaxValues: 10000, MaxString: 4096, MaxDecoded: 1 << 20}
	for _, tt := range []struct {
		name string
		doc  []byte
		want string
	}{
		{"arrays 9,900 deep", append(bytes.Repeat([]byte("["), 9900), bytes.Repeat([]byte("]"), 9900)...), LimitDepth},
		{"16 MiB of {}", append([]byte("["), bytes.Repeat([]byte("{},"), 16<<20/3)...), LimitValues},
		{"one long string", append(append([]byte(`["`), bytes.Repeat([]byte("a"), 1<<20)...), `"]`...), LimitString},
	} {
		c := New(lim)
		n, err := c.Write(tt.doc)
		if exceeded(t, err) != tt.want {
			t.Errorf("%s: %v, want the %s limit", tt.name, err, tt.want)
		}
		if n > 64<<10 {
			t.Errorf("%s: read %d bytes before refusing", tt.name, n)
		}
	}
}
