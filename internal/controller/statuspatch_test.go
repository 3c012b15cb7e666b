package controller

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A status write carries the resourceVersion it was computed from and
// what changed in the status, fields removed as null, and nothing else.
func TestStatusMergePatch(t *testing.T) {
	type status struct {
		Phase   string            `json:"phase,omitempty"`
		Message string            `json:"message,omitempty"`
		Counts  map[string]int    `json:"counts,omitempty"`
		Extra   map[string]string `json:"extra,omitempty"`
	}
	tests := []struct {
		name          string
		before, after status
		want          string
	}{
		{"a field changed", status{Phase: "Pending"}, status{Phase: "Running"},
			`{"metadata":{"resourceVersion":"42"},"status":{"phase":"Running"}}`},
		{"a field removed", status{Phase: "Pending", Message: "m"}, status{Phase: "Pending"},
			`{"metadata":{"resourceVersion":"42"},"status":{"message":null}}`},
		{"a map entry changed and one added", status{Counts: map[string]int{"a": 1, "b": 2}}, status{Counts: map[string]int{"a": 1, "b": 3, "c": 4}},
			`{"metadata":{"resourceVersion":"42"},"status":{"counts":{"b":3,"c":4}}}`},
		{"nothing changed", status{Phase: "Pending"}, status{Phase: "Pending"}, `{"metadata":{"resourceVersion":"42"},"status":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := statusMergePatch("42", tt.before, tt.after)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			_ = json.Unmarshal([]byte(tt.want), &w)
			if d := cmp.Diff(w, g); d != "" {
				t.Errorf("patch %s (-want +got):\n%s", got, d)
			}
		})
	}
	if _, err := statusMergePatch("1", func() {}, status{}); err == nil {
		t.Error("a status that cannot be encoded made a patch")
	}
	if _, err := statusMergePatch("1", status{}, func() {}); err == nil {
		t.Error("a status that cannot be encoded made a patch")
	}
}
