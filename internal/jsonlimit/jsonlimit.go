// Package jsonlimit bounds what a JSON document may cost to decode, before
// anything decodes it. A byte limit alone does not bound memory: a 4 MiB
// file of "{}," is over a million values, each of which a decoder turns
// into a struct or a map, and arrays nested thousands deep make every
// recursive walk, indenting included, cost the square of the depth. A
// Counter reads the document's bytes once, keeping no more than a few
// counters, and fails as soon as the document passes one of its Limits:
// nesting depth, the number of values, the size of one string and the
// size the decoded values are estimated to take.
//
// The Counter does not validate JSON: whatever decodes the document after
// it does that. It only has to count what any valid document holds, and
// never panic or grow on anything else.
package jsonlimit

import (
	"fmt"
	"io"
)

// ValueCost is what each value counts towards Limits.MaxDecoded, on top of
// the bytes of its text: about what a decoded value takes in Go (a
// struct's fields, an interface and its box, a slice or map header), so
// that a document of many small values is measured by what decoding it
// would allocate rather than by its bytes.
const ValueCost = 64

// Limits bound one JSON document. A limit of zero or less is not checked.
type Limits struct {
	// MaxDepth is how deep arrays and objects may nest: [] is depth 1, [[]] 2.
	MaxDepth int
	// MaxValues caps the values (objects, arrays, strings, numbers, true,
	// false, null), object keys included.
	MaxValues int64
	// MaxString caps one string, key or number, in bytes as written.
	MaxString int
	// MaxDecoded caps the decoded size estimate: ValueCost for each value
	// plus the bytes of every string, key and number as written.
	MaxDecoded int64
}

// Which limit a document passed (Exceeded.Limit).
const (
	LimitDepth   = "depth"
	LimitValues  = "values"
	LimitString  = "string"
	LimitDecoded = "decoded size"
)

// Exceeded says which limit a document passed.
type Exceeded struct {
	// Limit is LimitDepth, LimitValues, LimitString or LimitDecoded.
	Limit string
	// Max is the limit's value.
	Max int64
}

func (e *Exceeded) Error() string {
	switch e.Limit {
	case LimitDepth:
		return fmt.Sprintf("arrays and objects nest deeper than the limit of %d levels", e.Max)
	case LimitValues:
		return fmt.Sprintf("more values than the limit of %d (object keys count as values)", e.Max)
	case LimitString:
		return fmt.Sprintf("a string or number longer than the limit of %d bytes", e.Max)
	default:
		return fmt.Sprintf("more than the limit of %d bytes once decoded (each value counts %d bytes plus its text)", e.Max, ValueCost)
	}
}

// scanner states between bytes.
const (
	betweenTokens = iota
	inString
	inStringEscape
	inScalar
)

// Counter counts a JSON document's values as its bytes are written to it.
// Its zero value checks nothing; make one with New.
type Counter struct {
	lim     Limits
	state   int
	depth   int
	token   int // bytes of the string or scalar being read
	values  int64
	decoded int64
	err     error
}

// New returns a Counter that fails once a document passes lim.
func New(lim Limits) *Counter { return &Counter{lim: lim} }

// Values is how many values (keys included) the Counter has seen.
func (c *Counter) Values() int64 { return c.values }

// Decoded is the decoded size estimate so far (see Limits.MaxDecoded).
func (c *Counter) Decoded() int64 { return c.decoded }

// Err is the limit passed, if any (an *Exceeded).
func (c *Counter) Err() error { return c.err }

// Write counts p. Once a limit is passed, it and every later call return
// the *Exceeded error; n is then the bytes counted before it.
func (c *Counter) Write(p []byte) (n int, err error) {
	if c.err != nil {
		return 0, c.err
	}
	for i, b := range p {
		if err := c.step(b); err != nil {
			c.err = err
			return i, err
		}
	}
	return len(p), nil
}

func (c *Counter) step(b byte) error {
	switch c.state {
	case inStringEscape:
		c.state = inString
		return c.tokenByte()
	case inString:
		switch b {
		case '"':
			c.state = betweenTokens
			return nil
		case '\\':
			c.state = inStringEscape
		}
		return c.tokenByte()
	case inScalar:
		if !endsScalar(b) {
			return c.tokenByte()
		}
		c.state = betweenTokens
	}
	switch b {
	case ' ', '\t', '\r', '\n', ',', ':':
		return nil
	case '{', '[':
		c.depth++
		if c.lim.MaxDepth > 0 && c.depth > c.lim.MaxDepth {
			return &Exceeded{Limit: LimitDepth, Max: int64(c.lim.MaxDepth)}
		}
		return c.value()
	case '}', ']':
		if c.depth > 0 {
			c.depth--
		}
		return nil
	case '"':
		c.state, c.token = inString, 0
		return c.value()
	default:
		c.state, c.token = inScalar, 0
		if err := c.value(); err != nil {
			return err
		}
		return c.tokenByte()
	}
}

// endsScalar: b cannot be part of a number or literal, so it ends one.
func endsScalar(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// value counts one value.
func (c *Counter) value() error {
	c.values++
	if c.lim.MaxValues > 0 && c.values > c.lim.MaxValues {
		return &Exceeded{Limit: LimitValues, Max: c.lim.MaxValues}
	}
	return c.add(ValueCost)
}

// tokenByte counts one byte of a string or scalar's text.
func (c *Counter) tokenByte() error {
	c.token++
	if c.lim.MaxString > 0 && c.token > c.lim.MaxString {
		return &Exceeded{Limit: LimitString, Max: int64(c.lim.MaxString)}
	}
	return c.add(1)
}

func (c *Counter) add(n int64) error {
	c.decoded += n
	if c.lim.MaxDecoded > 0 && c.decoded > c.lim.MaxDecoded {
		return &Exceeded{Limit: LimitDecoded, Max: c.lim.MaxDecoded}
	}
	return nil
}

// Check counts a whole document and returns the limit it passes, if any.
func Check(data []byte, lim Limits) error {
	_, err := New(lim).Write(data)
	return err
}

// Reader counts what is read through it: a read that passes a limit
// fails with the *Exceeded error instead of returning the bytes, so a
// decoder reading from it stops there.
type Reader struct {
	r io.Reader
	c *Counter
}

// NewReader counts what is read from r against lim.
func NewReader(r io.Reader, lim Limits) *Reader { return &Reader{r: r, c: New(lim)} }

// Counter is the reader's Counter (how much has been read so far).
func (r *Reader) Counter() *Counter { return r.c }

func (r *Reader) Read(p []byte) (int, error) {
	if err := r.c.Err(); err != nil {
		return 0, err
	}
	n, err := r.r.Read(p)
	if _, werr := r.c.Write(p[:n]); werr != nil {
		return 0, werr
	}
	return n, err
}
