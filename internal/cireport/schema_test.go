package cireport

import (
	"encoding/json"
	"io/fs"
	"os"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/a11y-dev/cwac-operator/internal/testutil/schema"
)

// sarifSchema reads the published SARIF 2.1.0 schema (testdata/SCHEMAS.md)
// as draft-07.
func sarifSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile("testdata/sarif-schema-2.1.0-errata01.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["$schema"] = "http://json-schema.org/draft-07/schema#"
	doc["$id"] = doc["id"]
	delete(doc, "id")
	data, err = json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return schema.FromJSON(t, data)
}

func validateSARIF(t *testing.T, fsys fs.FS, opts Options) {
	t.Helper()
	data, _ := sarifOf(t, fsys, opts)
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(v); err != nil {
		t.Errorf("SARIF fails the 2.1.0 schema: %v", err)
	}
}

func TestSARIFSchema(t *testing.T) {
	validateSARIF(t, realFS(t), realOpts)
	validateSARIF(t, realFS(t), Options{MaxResults: 1})

	base, cur := realFS(t), realFS(t)
	header, rows := axeLines(t, base)
	setAxe(base, header, rows[1:])
	withDiff(t, base, cur)
	validateSARIF(t, cur, realOpts)
}

// TestSARIFSchemaRefuses shows the validator is awake: logs the schema
// forbids fail.
func TestSARIFSchemaRefuses(t *testing.T) {
	s := sarifSchema(t)
	for name, doc := range map[string]string{
		"wrong version":  `{"version": "2.0.0", "runs": []}`,
		"no driver name": `{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`,
		"bad state":      `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "baselineState": "old"}]}]}`,
		"unknown member": `{"version": "2.1.0", "runs": [], "extra": 1}`,
		"result no text": `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {}}]}]}`,
		// Errata 01's own rule (the 2.1.0 draft accepted it): a region
		// needs a line or an offset, not a snippet alone.
		"region without a place": `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"},
			"locations": [{"physicalLocation": {"artifactLocation": {"uri": "https://a/"}, "region": {"snippet": {"text": "<p>"}}}}]}]}]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err == nil {
			t.Errorf("%s: the schema accepted %s", name, doc)
		}
	}
}
