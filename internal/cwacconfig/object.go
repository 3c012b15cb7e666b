package cwacconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/a11y-dev/cwac-operator/internal/plainjson"
)

// Object is a JSON object that keeps its keys in order. CWAC reads its config
// with Python's json module, whose dicts keep the file's order, and that
// order shows in what CWAC does: it visits viewports and runs audit plugins
// in config order, and it hashes str(viewport) — "{'width': 320, 'height':
// 450}" for its own defaults — into every axe-core issue_id. A config
// written with sorted keys would give a scan different issue ids from a CLI
// run of the same site, so every config this package writes keeps the order
// of CWAC's own defaults file.
//
// Values are nil, bool, json.Number, string, []any and *Object.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Len is the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys are the object's keys, in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return append([]string(nil), o.keys...)
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[key]
	return v, ok
}

// Object returns the value of key when it is an object (nil otherwise).
func (o *Object) Object(key string) *Object {
	v, _ := o.Get(key)
	obj, _ := v.(*Object)
	return obj
}

// Set sets key to v: in its place when the key exists (as a Python dict
// does), else after the last key.
func (o *Object) Set(key string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Reorder moves the given keys, those present, to the front in that order.
func (o *Object) Reorder(first ...string) {
	keys := make([]string, 0, len(o.keys))
	for _, k := range first {
		if _, ok := o.vals[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range o.keys {
		found := false
		for _, f := range first {
			found = found || f == k
		}
		if !found {
			keys = append(keys, k)
		}
	}
	o.keys = keys
}

// MarshalJSON writes the keys in order (compact; Encode indents).
func (o *Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.Keys() {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := plainjson.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		val, err := plainjson.Marshal(o.vals[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Decode parses a JSON config document into an Object, keeping key order
// and numbers as written. CWAC writes its JSON files with a UTF-8 byte-order
// mark, which is skipped.
func Decode(data []byte) (*Object, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("decoding CWAC config: %w", err)
	}
	obj, ok := v.(*Object)
	if !ok || obj == nil {
		return nil, fmt.Errorf("decoding CWAC config: not a JSON object")
	}
	return obj, nil
}

// decodeJSON parses one JSON value (objects as *Object) and refuses trailing data.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return obj, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil // nil, bool, json.Number, string
	}
}
