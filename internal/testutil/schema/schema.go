// Package schema loads the JSON Schemas the project publishes (or checks
// its output against) for tests, and validates documents with them.
package schema

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Load reads and resolves the schema in the file at path.
func Load(t testing.TB, path string) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return FromJSON(t, data)
}

// FromJSON resolves a schema's JSON text.
func FromJSON(t testing.TB, data []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Validate checks a JSON document against the schema; a document that is
// not JSON fails the test.
func Validate(t testing.TB, r *jsonschema.Resolved, doc []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return r.Validate(v)
}
