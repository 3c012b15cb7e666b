package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The template's labels and annotations are held to the API server's limits
// at their exact boundaries, and the error names the entry (or, for a size,
// only the limit).
func TestValidateTemplateMetadataBoundaries(t *testing.T) {
	const annotationsLimit = 256 * 1024 // bytes of keys and values together
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		want        *FieldError // nil: accepted
	}{
		{name: "label value of 63 characters", labels: map[string]string{"team": strings.Repeat("a", 63)}},
		{
			name: "label value of 64 characters", labels: map[string]string{"team": strings.Repeat("a", 64)},
			want: &FieldError{Field: "spec.scanTemplate.metadata.labels", Value: strings.Repeat("a", 64), Detail: "must be no more than 63 bytes"},
		},
		{name: "annotations of exactly 256 KiB", annotations: map[string]string{"big": strings.Repeat("x", annotationsLimit-len("big"))}},
		{
			name: "annotations one byte over 256 KiB", annotations: map[string]string{"big": strings.Repeat("x", annotationsLimit-len("big")+1)},
			want: &FieldError{Field: "spec.scanTemplate.metadata.annotations", Value: "", Detail: "may not be more than 262144 bytes"},
		},
		{
			name: "annotation key without a name", annotations: map[string]string{"example.org/": "x"},
			want: &FieldError{Field: "spec.scanTemplate.metadata.annotations", Value: "example.org/", Detail: "name part must be non-empty"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTemplateMetadata(tt.labels, tt.annotations)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || *fe != *tt.want {
				t.Fatalf("error %#v, want %#v", err, tt.want)
			}
		})
	}
}

// The unmet-tick limit one below, at and one above MaxMissedTicks, and a
// single unmet tick, which skips none.
func TestDueMissedTicksBoundary(t *testing.T) {
	s, err := Parse("* * * * *", "")
	if err != nil {
		t.Fatal(err)
	}
	last := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		unmet       int
		wantSkipped int
		wantTooMany bool
	}{
		{1, 0, false},
		{MaxMissedTicks - 1, MaxMissedTicks - 2, false},
		{MaxMissedTicks, MaxMissedTicks - 1, false},
		{MaxMissedTicks + 1, 0, true},
	}
	for _, tt := range tests {
		now := last.Add(time.Duration(tt.unmet) * time.Minute)
		d := Due(s, last, now, nil)
		if d.Skipped != tt.wantSkipped || d.TooMany != tt.wantTooMany {
			t.Errorf("%d unmet: skipped %d tooMany %v, want %d %v", tt.unmet, d.Skipped, d.TooMany, tt.wantSkipped, tt.wantTooMany)
		}
		if wantTick := now; !tt.wantTooMany && !d.Tick.Equal(wantTick) {
			t.Errorf("%d unmet: tick %s, want the most recent, %s", tt.unmet, d.Tick, wantTick)
		}
	}
}
