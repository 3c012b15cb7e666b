package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// dashboardGlob is where the chart keeps its Grafana dashboards.
const dashboardGlob = "../../charts/cwac-operator/files/dashboards/*.json"

// promqlWords are PromQL's functions, aggregations and keywords: every other
// identifier left in an expression once label matchers, ranges, strings and
// grouping clauses are cut out is a metric name.
var promqlWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`sum min max avg count stddev stdvar topk bottomk quantile count_values group
		rate irate increase delta idelta deriv predict_linear histogram_quantile time vector scalar abs absent absent_over_time
		ceil floor round clamp clamp_min clamp_max changes resets sort sort_desc label_replace label_join timestamp
		avg_over_time min_over_time max_over_time sum_over_time count_over_time last_over_time quantile_over_time
		and or unless offset bool by without on ignoring group_left group_right label_values query_result Inf NaN`) {
		promqlWords[w] = true
	}
}

var (
	stringLiteral   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	labelMatchers   = regexp.MustCompile(`\{[^{}]*\}`)
	rangeSelector   = regexp.MustCompile(`\[[^\]]*\]`)
	groupingClause  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	labelValuesArgs = regexp.MustCompile(`label_values\(([^,()]*(?:\([^)]*\))?[^,()]*),\s*[a-zA-Z_]\w*\s*\)`)
	grafanaVariable = regexp.MustCompile(`\$\{?\w+\}?`)
	identifier      = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
)

// metricNames are the metric names a PromQL expression (or a Grafana
// label_values query) reads.
func metricNames(expr string) []string {
	e := labelValuesArgs.ReplaceAllString(expr, "label_values($1)")
	e = stringLiteral.ReplaceAllString(e, " ")
	e = labelMatchers.ReplaceAllString(e, " ")
	e = rangeSelector.ReplaceAllString(e, " ")
	e = groupingClause.ReplaceAllString(e, " ")
	e = grafanaVariable.ReplaceAllString(e, " ")
	var out []string
	for _, m := range identifier.FindAllStringIndex(e, -1) {
		word := e[m[0]:m[1]]
		if m[0] > 0 && (e[m[0]-1] >= '0' && e[m[0]-1] <= '9' || e[m[0]-1] == '.') {
			continue // the exponent or unit of a number (1e3, 5m)
		}
		if !promqlWords[word] {
			out = append(out, word)
		}
	}
	return out
}

func TestMetricNames(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`max(cwac_scan_queue_length)`, []string{"cwac_scan_queue_length"}},
		{`sum by (phase) (cwac_scans{namespace=~"$namespace", phase="Running"}) or vector(0)`, []string{"cwac_scans"}},
		{`histogram_quantile(0.95, sum by (le, tool) (rate(cwac_mcp_tool_call_duration_seconds_bucket[$__rate_interval])))`,
			[]string{"cwac_mcp_tool_call_duration_seconds_bucket"}},
		{`time() - max by (namespace) (cwac_latest_scan_completion_timestamp_seconds{a="}"})`, []string{"cwac_latest_scan_completion_timestamp_seconds"}},
		{`label_values(cwac_latest_scan_total_issues{namespace=~"$namespace"}, schedule)`, []string{"cwac_latest_scan_total_issues"}},
		{`up + process_cpu_seconds_total * 1e3`, []string{"up", "process_cpu_seconds_total"}},
		{`topk(10, cwac_x) / on (namespace) group_left (schedule) cwac_y`, []string{"cwac_x", "cwac_y"}},
	}
	for _, tt := range tests {
		if got := metricNames(tt.expr); !slices.Equal(got, tt.want) {
			t.Errorf("metricNames(%s) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

// exported gathers every metric the operator and the MCP server export,
// with each metric holding at least one series, and returns the names
// PromQL can read: gauges and counters by name, histograms by their
// _bucket, _sum and _count series.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	sum := &cwacv1alpha1.ScanSummary{TotalIssues: 3, PagesScanned: 2, IssuesByImpact: map[string]int64{"critical": 3},
		Diff: &cwacv1alpha1.ScanDiff{New: 1, ByOrganisation: []cwacv1alpha1.OrganisationDiff{{Organisation: "A", New: 1}}}}
	done := complete(nightly(scan("a", "s", "")), 3, sum)
	queued := scan("a", "q", cwacv1alpha1.PhaseQueued)
	events := NewScanEvents()
	running := scan("a", "s", cwacv1alpha1.PhaseRunning)
	events.Changed(&running, &done)
	tools := NewToolCalls([]string{"cwac_scan"})
	cs := append(append(events.Collectors(), tools.Collectors()...), collector([]cwacv1alpha1.CwacScan{done, queued}, nil))
	families, err := registry(t, cs...).Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		if len(f.GetMetric()) == 0 {
			continue
		}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+suffix] = true
			}
			continue
		}
		names[f.GetName()] = true
	}
	return names
}

// queries collects every PromQL expression of a dashboard: the panels'
// targets and the variables' queries, at any depth (rows nest panels).
func queries(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "expr" || k == "query" || k == "definition") && s != "prometheus" {
				*out = append(*out, s)
				continue
			}
			queries(val, out)
		}
	case []any:
		for _, val := range x {
			queries(val, out)
		}
	}
}

// TestDashboardUsesExportedMetrics: every metric a shipped dashboard
// queries is one the operator or the MCP server exports, and every
// exported CWAC metric is shown somewhere.
func TestDashboardUsesExportedMetrics(t *testing.T) {
	files, err := filepath.Glob(dashboardGlob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards at %s (%v)", dashboardGlob, err)
	}
	names := exported(t)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var dash map[string]any
		if err := json.Unmarshal(data, &dash); err != nil {
			t.Fatalf("%s: not JSON: %v", file, err)
		}
		var exprs []string
		queries(dash, &exprs)
		if len(exprs) < 10 {
			t.Fatalf("%s: only %d queries found: %q", file, len(exprs), exprs)
		}
		used := map[string]bool{}
		for _, expr := range exprs {
			found := metricNames(expr)
			if len(found) == 0 {
				t.Errorf("%s: %q reads no metric", filepath.Base(file), expr)
			}
			for _, name := range found {
				used[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")] = true
				if !names[name] {
					t.Errorf("%s: %q reads %s, which is not exported", filepath.Base(file), expr, name)
				}
			}
		}
		var unused []string
		for name := range names {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
			if !used[base] && !used[name] {
				unused = append(unused, name)
			}
		}
		sort.Strings(unused)
		if len(unused) > 0 {
			t.Errorf("%s shows no panel of %v", filepath.Base(file), slices.Compact(unused))
		}
	}
}
