package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/heap"
)

// A zero limit takes the default's value; NewBuilder has the defaults.
func TestLimitsDefaults(t *testing.T) {
	if got := NewBuilder().lim; got != DefaultLimits {
		t.Errorf("NewBuilder's limits = %+v", got)
	}
	if got := NewBuilderWithLimits(Limits{Pages: 7}).lim; got != (Limits{Elements: MaxTrackedElements, Pages: 7, KeptText: MaxKeptText}) {
		t.Errorf("limits with one set = %+v", got)
	}
	if ServerLimits.Elements >= DefaultLimits.Elements || ServerLimits.Pages >= DefaultLimits.Pages || ServerLimits.KeptText >= DefaultLimits.KeptText {
		t.Errorf("ServerLimits %+v are not tighter than DefaultLimits %+v", ServerLimits, DefaultLimits)
	}
}

// A builder's own limits hold: elements, pages, kept text, each at its
// value and one past it.
func TestBuilderLimits(t *testing.T) {
	rows := func(n int, url func(int) string) []axeRow {
		out := make([]axeRow, n)
		for i := range out {
			out[i] = axeRow{url: url(i), vp: "{'width': 320, 'height': 450}", target: fmt.Sprintf("/e%d", i), id: "r", impact: "minor"}
		}
		return out
	}
	walk := func(lim Limits, rs []axeRow) *Builder { return walkAxeWithin(t, lim, rs) }
	onePage := func(int) string { return "https://a/" }
	for _, n := range []int{3, 4} {
		b := walk(Limits{Elements: 3}, rows(n, onePage))
		if b.elementsTold != 3 || b.elementsCapped != (n > 3) {
			t.Errorf("%d elements under a limit of 3: %d tracked, capped %v", n, b.elementsTold, b.elementsCapped)
		}
		b = walk(Limits{Pages: 3}, rows(n, func(i int) string { return fmt.Sprintf("https://a/%d", i) }))
		if len(b.pages) != 3 || b.untrackedPages != int64(n-3) {
			t.Errorf("%d pages under a limit of 3: %d kept, %d untracked", n, len(b.pages), b.untrackedPages)
		}
	}
	// Kept text (20 bytes: what the organisation, sector and rule keep
	// first leaves 6): while some is left, texts keep up to maxCellChars and
	// links; once spent, texts are cut to maxCellCharsPastBudget, unlinked.
	long := "https://a/" + strings.Repeat("p", 3000)
	b := walk(Limits{KeptText: 20}, rows(2, func(i int) string { return fmt.Sprintf("%s%d", long, i) }))
	samples := b.rules["axe_core_audit\x00r"].samples
	if len(samples) != 2 || len(samples[0].URL) < maxCellChars-8 || samples[0].Link != "" && len(samples[0].Link) > maxLinkChars ||
		len(samples[1].URL) > maxCellCharsPastBudget || samples[1].Link != "" || samples[1].PageTitle != "T" || b.textLeft >= 0 {
		t.Errorf("texts past the kept-text budget: %d samples, URLs of %d and %d bytes, second link %q, left %d",
			len(samples), len(samples[0].URL), len(samples[1].URL), samples[1].Link, b.textLeft)
	}
	for _, p := range b.pages {
		if len(p.texts.URL) > maxCellCharsPastBudget || p.texts.Link() != "" {
			t.Errorf("a page kept past the budget: %d bytes, link %q", len(p.texts.URL), p.texts.Link())
		}
	}
	// At exactly nothing left: the rule keeps "r" and "h" (2 bytes), so with
	// 2 its help link is the first thing past the budget; with 14 (the
	// link's 10, the organisation's "O" and the sector's "S" more) the
	// first sample's address is.
	b = walk(Limits{KeptText: 2}, rows(1, onePage))
	if ru := b.rules["axe_core_audit\x00r"]; ru.HelpURL != "" || ru.Help != "h" {
		t.Errorf("a link with nothing left of the budget: %q (help %q)", ru.HelpURL, ru.Help)
	}
	b = walk(Limits{KeptText: 14}, rows(1, func(int) string { return long }))
	if s := b.rules["axe_core_audit\x00r"].samples[0]; len(s.URL) > maxCellCharsPastBudget || b.rules["axe_core_audit\x00r"].HelpURL == "" {
		t.Errorf("with nothing left after the rule and organisation: a sample address of %d bytes", len(s.URL))
	}
	b = walk(Limits{KeptText: 1 << 20}, rows(2, func(i int) string { return fmt.Sprintf("https://a/%d", i) }))
	for _, p := range b.pages {
		if p.texts.Link() == "" || !strings.HasPrefix(p.texts.URL, "https://a/") {
			t.Errorf("a page within the budget: %+v", p)
		}
	}
}

// The planted CSVs of issue 20's kind, at a tenth of its 171 MB: 20,000
// distinct rule ids with long cells, and 10,000 pages whose every kept
// cell is at the limit (before the kept-text budget: 1 GB for a 171 MB
// file, about 100 MB at this size). Under ServerLimits the heap grows by
// about 13 and 30 MiB here; the bound, 64 MiB, is twice that and more, so
// it catches memory that grows with the input, never the collector's
// noise (a bound of 36 MiB against 30 failed CI runs).
func TestReportOfHostileCSVs(t *testing.T) {
	pad := strings.Repeat("x", 2000)
	for _, tt := range []struct {
		name string
		row  func(i int) string
		max  uint64
	}{
		{"distinct rules", func(i int) string {
			return fmt.Sprintf("O,S,T,https://a/%d,\"{'width': 320, 'height': 450}\",/e%d,1,help %s,https://h/,rule-%d,serious,<p>%s</p>,\n",
				i%100, i, pad[:300], i, pad[:200])
		}, 64 << 20},
		{"long pages", func(i int) string {
			return fmt.Sprintf("O%d %s,S,T%d %s,https://a/%d/%s,\"{'width': 320, 'height': 450}\",/e%d%s,1,h,https://h/,r%d,serious,<p>%s</p>,\n",
				i, pad, i, pad, i, pad[:480], i, pad, i%50, pad)
		}, 64 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f, err := os.Create(filepath.Join(dir, "axe_core_audit.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fmt.Fprint(f, axeHead); err != nil {
				t.Fatal(err)
			}
			for i := range 20_000 {
				if _, err := fmt.Fprint(f, tt.row(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			var files []string
			grew := heap.PeakDuring(func() {
				files, err = Generate(os.DirFS(dir), Meta{Title: "t", GeneratedAt: time.Unix(0, 0), Limits: ServerLimits}, func(string, []byte) error { return nil })
			})
			if err != nil || len(files) == 0 {
				t.Fatalf("Generate: %v %v", files, err)
			}
			t.Logf("heap grew by %.1f MiB at most", float64(grew)/(1<<20))
			if grew > tt.max {
				t.Errorf("the heap grew by %.1f MiB, more than %d MiB", float64(grew)/(1<<20), tt.max>>20)
			}
		})
	}
}
