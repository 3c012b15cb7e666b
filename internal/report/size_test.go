package report

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/report/reporttest"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// MaxReportBytes is the size report.html stays under whatever the results
// (see the caps in view.go): measured on results built to exceed every cap
// with every cell at full, hostile length.
const MaxReportBytes = 5 << 20

func renderSpec(t testing.TB, spec reporttest.Spec) []byte {
	t.Helper()
	sb, b := results.NewSummaryBuilder(results.Options{}), NewBuilder()
	if err := results.Walk(context.Background(), spec.FS(), sb, b); err != nil {
		t.Fatal(err)
	}
	html, _, err := b.Render(Meta{Title: "size", GeneratedAt: time.Unix(0, 0)}, sb.Summary())
	if err != nil {
		t.Fatal(err)
	}
	return html
}

// TestReportSizeBound: results past every cap of the report — more rules,
// pages, organisations and elements per rule than it shows, every text
// cell long and full of markup to escape — still give a report under
// MaxReportBytes.
func TestReportSizeBound(t *testing.T) {
	spec := reporttest.Spec{Organisations: MaxLeaderboardRows + 20, PagesPerOrg: 1, RulesPerPage: len(reporttest.AxeRules),
		ElementsPerRule: MaxElementsPerRule + 1, Viewports: 1, ExtraRules: MaxRulesShown + maxNamedRest + 10, Hostile: true, LongURLs: true}
	html := renderSpec(t, spec)
	t.Logf("%d rows → report.html of %d bytes", spec.Rows(), len(html))
	if len(html) > MaxReportBytes {
		t.Errorf("report.html is %d bytes, over the bound of %d", len(html), MaxReportBytes)
	}
}

// BenchmarkReport1M measures a million-row results directory: the time,
// the report's size and the heap the builder holds at the end
// (go test -run '^$' -bench Report1M -benchtime 1x ./internal/report/).
func BenchmarkReport1M(b *testing.B) {
	spec := reporttest.Spec{Organisations: 50, PagesPerOrg: 200, RulesPerPage: 10, ElementsPerRule: 5, Viewports: 2}
	for b.Loop() {
		sb, bld := results.NewSummaryBuilder(results.Options{}), NewBuilder()
		if err := results.Walk(context.Background(), spec.FS(), sb, bld); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		html, csv, err := bld.Render(Meta{Title: "1M"}, sb.Summary())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(spec.Rows()), "rows")
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(len(html))/(1<<20), "html-MiB")
		b.ReportMetric(float64(len(csv))/(1<<10), "csv-KiB")
		runtime.KeepAlive(bld)
	}
}
