package diff

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
)

// allocated is what fn allocates, in bytes: an upper bound of how much the
// heap grew while it ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// empties is a JSON list of n empty objects: n+1 values.
func empties(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]" }

// diff.json's figures are decoded within FigureLimits and MaxFigureBytes,
// each at its limit and one past it; the planted file of issue 20, a 16
// MiB by_rule of {} (1.43 GB before), is refused for its size after 4 MiB.
func TestReadDocumentFigureBudget(t *testing.T) {
	doc := func(key, value string) string {
		return `{"format":"` + Format + `","baseline":"b","` + key + `":` + value + `,"rows":[]}`
	}
	n := int(FigureLimits.MaxValues)
	tests := []struct {
		name, doc string
		want      string // "" for read
		is        error
	}{
		{"by_rule at the values limit", doc("by_rule", empties(n-1)), "", nil},
		{"by_rule one past", doc("by_rule", empties(n)), `reading diff.json's "by_rule": more values than the limit of 200000`, nil},
		{"by_organisation one past", doc("counts", `{"by_organisation":`+empties(n-2)+`}`),
			`reading diff.json's "counts": more values than the limit of 200000`, nil},
		{"a later field is skipped, not decoded", doc("later", empties(n)), "", nil},
		{"a figure over MaxFigureBytes", doc("by_rule", empties((16<<20)/3)), "", ErrValueTooLarge},
		{"a figure nested too deep", doc("totals", strings.Repeat("[", FigureLimits.MaxDepth+1)+strings.Repeat("]", FigureLimits.MaxDepth+1)),
			`reading diff.json's "totals": arrays and objects nest deeper than the limit of 6 levels`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.doc)
			var d *Document
			var err error
			got := allocated(func() { d, err = ReadDocument(bytes.NewReader(data), func(*Row) error { return nil }) })
			switch {
			case tt.is != nil:
				if !errors.Is(err, tt.is) {
					t.Fatalf("err = %v, want %v", err, tt.is)
				}
			case tt.want != "":
				var e *jsonlimit.Exceeded
				if !errors.As(err, &e) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want a limit: %q", err, tt.want)
				}
			case err != nil:
				t.Fatalf("refused: %v", err)
			case strings.HasPrefix(tt.name, "by_rule") && len(d.ByRule) != n-1:
				t.Errorf("read %d rules, want %d", len(d.ByRule), n-1)
			}
			if err != nil && got > 24<<20 {
				t.Errorf("refusing it allocated %d MiB", got>>20)
			}
		})
	}
}
