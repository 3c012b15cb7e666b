//go:build integration

package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// plantedCSV is a CSV of header and n rows made by row, with CWAC's
// byte-order mark.
func plantedCSV(header string, n int, row func(i int) string) string {
	var b strings.Builder
	b.WriteString("\ufeff" + header + "\r\n")
	for i := range n {
		b.WriteString(row(i) + "\r\n")
	}
	return b.String()
}

// The signals tools on planted CSVs past every bound the signals keep,
// with every cell long: each answers within --max-response-bytes, with
// the heap far under the MCP server's 128 MiB (as TestPlantedResultFiles),
// and the totals count what the lists leave out.
func TestSignalsToolsPlantedFiles(t *testing.T) {
	if raceDetector {
		t.Skip("memory is bounded without the race detector: hack/test.sh runs this test again without -race")
	}
	h, _, scan, dir := compareFixture(t, func(c *Config) { c.MaxResponseBytes = 256 << 10 })
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	url := func(i int) string { return fmt.Sprintf("https://a.example/%d/%s", i, long("p", 3000)) }
	const groups = 3 * results.MaxSignalItems
	// Each group on two pages: every one a template issue.
	plant(t, dir, results.AxeCoreAuditFile, plantedCSV("organisation,base_url,url,viewport_size,id,impact,help,html,num_issues", 2*groups, func(i int) string {
		return fmt.Sprintf("O%d,https://a.example/,%s,s,rule,serious,%s,<p id=%d>%s,1", i%50, url(i%2), long("h", 2000), i/2, long("x", 3000))
	}))
	plant(t, dir, results.TitleAuditFile, plantedCSV("organisation,base_url,url,page_title", groups, func(i int) string {
		// Pairs of pages share a title: more duplicates than the lists keep.
		return fmt.Sprintf("O%d,https://a.example/,%s,%d %s", (i/2)%50, url(i), i/2, long("t", 3000))
	}))
	plant(t, dir, results.UnexpectedCodeFile, plantedCSV("base_url,parent_url,url,status_code", groups, func(i int) string {
		return fmt.Sprintf("https://a.example/,%s,%s,%d", url(i), url(i+1), 400+i%100)
	}))
	plant(t, dir, results.LanguageAuditFile, plantedCSV("organisation,base_url,url,page_title,flesch_kincaid_gl,smog_gl", groups, func(i int) string {
		return fmt.Sprintf("O%d,https://a.example/,%s,%s,%d.5,9", i%50, url(i), long("t", 3000), i%20)
	}))
	for _, tc := range []struct {
		tool, total string
		want        float64
	}{
		{"cwac_get_templates", "template_issues", results.MaxSignalItems},
		{"cwac_get_page_titles", "pages", groups},
		{"cwac_get_broken_responses", "responses", groups},
		{"cwac_get_readability", "pages", groups},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			out, errText := h.callBounded(tc.tool, map[string]any{"scan_id": scan, "limit": 1000})
			if errText != "" || out[tc.total] != tc.want || out["truncated"] != true {
				t.Errorf("%s: error %q, %s = %v (want %v), truncated %v, note %v", tc.tool, errText, tc.total, out[tc.total], tc.want, out["truncated"], out["note"])
			}
		})
	}
}
