package cireport

import (
	"reflect"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// The parser's caches (tags and viewport cells, the last ones of each, the
// rules' audit rules, the last page's key) give
// every row exactly the issue a parser that never saw another row gives,
// whatever order the rows come in and once the caches are full.
func TestIssueParserCachesChangeNothing(t *testing.T) {
	m := realFS(t)
	header, rows := axeLines(t, m)
	// The rows twice, the second time backwards: cached cells met again
	// after others, pages met again after other pages.
	all := append(append([]string{}, rows...), rows...)
	for i, j := len(rows), len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	for _, full := range []bool{false, true} {
		var shared issueParser
		if full { // caches already at their bound: every cell parsed afresh
			shared.tags, shared.viewports, shared.auditRules = map[string][]string{}, map[string]int{}, map[string]string{}
			for i := range maxCachedCells {
				k := strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune(i))
				shared.tags[k], shared.viewports[k], shared.auditRules[k] = nil, 0, ""
			}
		}
		setAxe(m, header, all)
		n := 0
		err := results.EachRowFS(m, AxeAuditFile, func(r *results.Reader, row results.Row) error {
			n++
			got, err := shared.parse(r, row)
			if err != nil {
				return err
			}
			var fresh issueParser
			want, err := fresh.parse(r, row)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("row %d (caches full: %v): %+v, want %+v", n, full, got, want)
			}
			return nil
		})
		if err != nil || n != len(all) {
			t.Fatalf("%d rows read, %v", n, err)
		}
	}
}
