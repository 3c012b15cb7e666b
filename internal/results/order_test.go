package results

import (
	"context"
	"slices"
	"testing"
	"testing/fstest"
)

// TestBaseURLOrderFollowsTheScan: the summary lists base URLs in the order
// the scan was given them, whatever order CWAC (or a merge of shards) wrote
// them in, so the same results give the same summary.
func TestBaseURLOrderFollowsTheScan(t *testing.T) {
	pages := func(rows ...string) fstest.MapFS {
		body := "\ufefforganisation,base_url,number_of_pages,sector\r\n"
		for _, r := range rows {
			body += r + "\r\n"
		}
		return fstest.MapFS{"pages_scanned.csv": {Data: []byte(body)}}
	}
	for _, tc := range []struct {
		name          string
		fsys          fstest.MapFS
		expected      []string
		wantAll       []string
		wantUnscanned []string
	}{
		{
			name:          "written in another order",
			fsys:          pages("C,https://c/,0,s", "A,https://a/,2,s", "B,https://b/,0,s"),
			expected:      []string{"https://a/", "https://b/", "https://c/"},
			wantAll:       []string{"https://a/", "https://b/", "https://c/"},
			wantUnscanned: []string{"https://b/", "https://c/"},
		},
		{
			name:          "one never listed goes in its place",
			fsys:          pages("C,https://c/,1,s", "A,https://a/,2,s"),
			expected:      []string{"https://a/", "https://b/", "https://c/"},
			wantAll:       []string{"https://a/", "https://b/", "https://c/"},
			wantUnscanned: []string{"https://b/"},
		},
		{
			name:          "ones the scan was not given come last, as written",
			fsys:          pages("Z,https://z/,0,s", "A,https://a/,1,s", "Y,https://y/,0,s"),
			expected:      []string{"https://a/"},
			wantAll:       []string{"https://a/", "https://z/", "https://y/"},
			wantUnscanned: []string{"https://z/", "https://y/"},
		},
		{
			name:          "nothing expected keeps CWAC's order",
			fsys:          pages("B,https://b/,0,s", "A,https://a/,0,s"),
			wantAll:       []string{"https://b/", "https://a/"},
			wantUnscanned: []string{"https://b/", "https://a/"},
		},
		{
			name:          "a base URL given twice ranks by its first place",
			fsys:          pages("B,https://b/,1,s", "A,https://a/,1,s"),
			expected:      []string{"https://a/", "https://b/", "https://a/"},
			wantAll:       []string{"https://a/", "https://b/"},
			wantUnscanned: []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewSummaryBuilder(Options{ExpectedBaseURLs: tc.expected})
			if err := Walk(context.Background(), tc.fsys, b); err != nil {
				t.Fatal(err)
			}
			s := b.Summary()
			var all []string
			for _, p := range s.BaseURLs {
				all = append(all, p.BaseURL)
			}
			if !slices.Equal(all, tc.wantAll) || !slices.Equal(s.UnscannedBaseURLs, tc.wantUnscanned) {
				t.Errorf("base URLs %v, unscanned %v; want %v, %v", all, s.UnscannedBaseURLs, tc.wantAll, tc.wantUnscanned)
			}
			if again := b.Summary(); !slices.Equal(again.UnscannedBaseURLs, s.UnscannedBaseURLs) || len(again.BaseURLs) != len(s.BaseURLs) {
				t.Errorf("a second Summary() differs: %v", again.UnscannedBaseURLs)
			}
		})
	}
}
