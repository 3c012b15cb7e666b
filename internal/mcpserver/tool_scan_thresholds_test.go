package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// cwac_scan's thresholds become spec.thresholds field by field, and
// require_complete with them: a caller who asked for a gate on complete
// results must not get a scan that passes a blocked organisation.
func TestScanThresholdsArgMapping(t *testing.T) {
	var arg ThresholdsArg
	if err := json.Unmarshal([]byte(`{"max_total_issues": 20, "max_issues_by_impact": {"critical": 0}, "min_pages_scanned": 3,
		"max_new_issues": 0, "require_complete": true}`), &arg); err != nil {
		t.Fatal(err)
	}
	s := &Server{cfg: Config{Namespace: "ns"}}
	scan, err := s.scanFromArgs(ScanInput{URLs: []string{"https://a.example/"}, Thresholds: &arg}, &callInfo{Caller: "test"})
	if err != nil {
		t.Fatal(err)
	}
	total, pages, newIssues := int64(20), int32(3), int64(0)
	want := &cwacv1alpha1.Thresholds{MaxTotalIssues: &total, MaxIssuesByImpact: map[string]int64{"critical": 0}, MinPagesScanned: &pages,
		MaxNewIssues: &newIssues, RequireComplete: true}
	if diff := cmp.Diff(want, scan.Spec.Thresholds); diff != "" {
		t.Errorf("spec.thresholds (-want +got):\n%s", diff)
	}
	// Only require_complete: a gate of its own, not an empty one.
	scan, err = s.scanFromArgs(ScanInput{URLs: []string{"https://a.example/"}, Thresholds: &ThresholdsArg{RequireComplete: true}}, &callInfo{Caller: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&cwacv1alpha1.Thresholds{RequireComplete: true}, scan.Spec.Thresholds); diff != "" {
		t.Errorf("require_complete alone (-want +got):\n%s", diff)
	}
}

// The tool's input schema offers require_complete, described, as a boolean.
func TestScanThresholdsSchema(t *testing.T) {
	schema, err := jsonschema.For[ScanInput](nil)
	if err != nil {
		t.Fatal(err)
	}
	p := schema.Properties["thresholds"].Properties["require_complete"]
	if p == nil || p.Type != "boolean" || p.Description == "" {
		t.Fatalf("thresholds.require_complete in the schema: %+v", p)
	}
}
