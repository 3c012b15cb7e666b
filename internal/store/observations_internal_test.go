package store

import (
	"slices"
	"strings"
	"testing"
)

// TestReplacedPages: the pages whose observations are replaced are those
// visited and not kept; a kept page must be visited and seen nowhere.
func TestReplacedPages(t *testing.T) {
	on := func(page int64) Sighting {
		return Sighting{ObservationKey: ObservationKey{PageID: page, Width: 320, Audit: "a"}}
	}
	tests := []struct {
		name          string
		pages, kept   []int64
		seen          []Sighting
		want          []int64
		wantErrSubstr string
	}{
		{name: "none kept", pages: []int64{1, 2, 3}, seen: []Sighting{on(2)}, want: []int64{1, 2, 3}},
		{name: "some kept", pages: []int64{1, 2, 3}, kept: []int64{3, 1}, seen: []Sighting{on(2)}, want: []int64{2}},
		{name: "all kept", pages: []int64{1, 2}, kept: []int64{1, 2}, want: []int64{}},
		{name: "kept twice", pages: []int64{1, 2}, kept: []int64{2, 2}, want: []int64{1}},
		{name: "kept, not visited", pages: []int64{1, 2}, kept: []int64{3}, wantErrSubstr: "page 3, which this scan did not visit"},
		{name: "kept and seen", pages: []int64{1, 2}, kept: []int64{2}, seen: []Sighting{on(1), on(2)}, wantErrSubstr: "both kept and seen again for page 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replacedPages(tt.pages, tt.seen, tt.kept)
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("replacedPages: %v, %v; want an error saying %q", got, err, tt.wantErrSubstr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("replacedPages: %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
