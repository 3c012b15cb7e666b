package dashboard

import (
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
)

// TestScanRef: a scan of a CwacScan's name links to its page; a scan
// imported from a hand-run results directory (named after the directory,
// which no CwacScan can be) is named without a link, where its link
// answered 400. A viewer who may not open the scan (by grant) gets its
// name without a link.
func TestScanRef(t *testing.T) {
	h, _ := newTestHandler(t, Options{Scans: testScans(t)})
	for ref, want := range map[string]string{
		"cwac/weekly-2":                        `<a href="/scans/cwac/weekly-2">cwac/weekly-2</a>`,
		"cwac/2026-11-21_23-18-23_real-scan-1": `cwac/2026-11-21_23-18-23_real-scan-1`,
		"cwac/Archive":                         `cwac/Archive`,
		"no-namespace":                         `no-namespace`,
		`cwac/<script>`:                        `cwac/&lt;script&gt;`,
	} {
		var b strings.Builder
		if err := h.pages["issue"].ExecuteTemplate(&b, "scanref", map[string]any{"ref": ref, "link": true}); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("scanref %q = %q, want %q", ref, b.String(), want)
		}
	}
	var b strings.Builder
	if err := h.pages["issue"].ExecuteTemplate(&b, "scanref", map[string]any{"ref": "cwac/weekly-2", "link": false}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "cwac/weekly-2" {
		t.Errorf("scanref without a link = %q", b.String())
	}
	byGrant := &viewer{Namespaces: []string{testNS, otherNS}, reach: map[string]orgaccess.Reach{testNS: {}, otherNS: orgaccess.Whole()}}
	if byGrant.LinksScan("cwac/weekly-2") || !byGrant.LinksScan(otherNS+"/weekly-0") || byGrant.LinksScan("no-namespace") {
		t.Error("LinksScan does not follow the viewer's reach of each namespace")
	}
}
