package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// registry registers the collectors in a registry of their own.
func registry(t *testing.T, cs ...prometheus.Collector) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// histogramCount is how many observations a histogram series holds.
func histogramCount(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) uint64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue series
				}
			}
			n += m.GetHistogram().GetSampleCount()
		}
	}
	return n
}

func TestScanEvents(t *testing.T) {
	queued := scan("a", "s", cwacv1alpha1.PhaseQueued, cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed, 2))
	started := queued
	started.Status.Phase = cwacv1alpha1.PhasePending
	started.Status.StartTime = at(5) // waited 3 minutes since admission
	running := started
	running.Status.Phase = cwacv1alpha1.PhaseRunning
	done := complete(queued, 20, &cwacv1alpha1.ScanSummary{PagesScanned: 12}) // ran 19 minutes (started at 1)
	failedInQueue := scan("b", "c", cwacv1alpha1.PhaseFailed, cond(cwacv1alpha1.ConditionFinished, cwacv1alpha1.ReasonCancelled, 3))

	tests := []struct {
		name              string
		changes           [][2]cwacv1alpha1.CwacScan
		wantWaits         uint64
		wantDurations     uint64
		wantFinished      string
		wantPagesFinished string
	}{
		{"queued, then started: one queue wait", [][2]cwacv1alpha1.CwacScan{{queued, started}}, 1, 0, "", ""},
		{"an update that changes nothing else observes nothing", [][2]cwacv1alpha1.CwacScan{{started, running}, {running, running}}, 0, 0, "", ""},
		{"the finish is observed once, however often it is seen", [][2]cwacv1alpha1.CwacScan{{running, done}, {done, done}}, 0, 1,
			`cwac_scans_finished_total{namespace="a",phase="Complete",reason="Succeeded"} 1`, `cwac_scan_pages_scanned_total{namespace="a"} 12`},
		{"a scan that never started: finished, no duration", [][2]cwacv1alpha1.CwacScan{{scan("b", "c", cwacv1alpha1.PhaseQueued), failedInQueue}}, 0, 0,
			`cwac_scans_finished_total{namespace="b",phase="Failed",reason="Cancelled"} 1`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewScanEvents()
			reg := registry(t, e.Collectors()...)
			for _, c := range tt.changes {
				e.Changed(&c[0], &c[1])
			}
			e.Changed(nil, &done) // an add, not an update: ignored
			if got := histogramCount(t, reg, "cwac_scan_queue_wait_seconds", nil); got != tt.wantWaits {
				t.Errorf("queue waits observed: %d, want %d", got, tt.wantWaits)
			}
			if got := histogramCount(t, reg, "cwac_scan_duration_seconds", map[string]string{"phase": "Complete"}); got != tt.wantDurations {
				t.Errorf("durations observed: %d, want %d", got, tt.wantDurations)
			}
			for name, want := range map[string]string{"cwac_scans_finished_total": tt.wantFinished, "cwac_scan_pages_scanned_total": tt.wantPagesFinished} {
				exp := ""
				if want != "" {
					exp = "# HELP " + name + " " + helpOf(t, reg, name) + "\n# TYPE " + name + " counter\n" + want + "\n"
				}
				if err := testutil.GatherAndCompare(reg, strings.NewReader(exp), name); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestScanEventsFigures(t *testing.T) {
	e := NewScanEvents()
	reg := registry(t, e.Collectors()...)
	queued := scan("a", "s", cwacv1alpha1.PhaseQueued, cond(cwacv1alpha1.ConditionAdmitted, cwacv1alpha1.ReasonURLsAllowed, 2))
	started := queued
	started.Status.StartTime = at(5)
	e.Changed(&queued, &started)
	done := complete(queued, 20, nil) // started at 1, finished at 20: 19 minutes
	e.Changed(&started, &done)
	want := `
# HELP cwac_scan_queue_wait_seconds How long scans waited between admission and the creation of their Job (the concurrency cap's queue).
# TYPE cwac_scan_queue_wait_seconds histogram
cwac_scan_queue_wait_seconds_bucket{le="1"} 0
cwac_scan_queue_wait_seconds_bucket{le="5"} 0
cwac_scan_queue_wait_seconds_bucket{le="15"} 0
cwac_scan_queue_wait_seconds_bucket{le="30"} 0
cwac_scan_queue_wait_seconds_bucket{le="60"} 0
cwac_scan_queue_wait_seconds_bucket{le="120"} 0
cwac_scan_queue_wait_seconds_bucket{le="300"} 1
cwac_scan_queue_wait_seconds_bucket{le="600"} 1
cwac_scan_queue_wait_seconds_bucket{le="1800"} 1
cwac_scan_queue_wait_seconds_bucket{le="3600"} 1
cwac_scan_queue_wait_seconds_bucket{le="7200"} 1
cwac_scan_queue_wait_seconds_bucket{le="14400"} 1
cwac_scan_queue_wait_seconds_bucket{le="28800"} 1
cwac_scan_queue_wait_seconds_bucket{le="+Inf"} 1
cwac_scan_queue_wait_seconds_sum 180
cwac_scan_queue_wait_seconds_count 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cwac_scan_queue_wait_seconds"); err != nil {
		t.Error(err)
	}
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() != "cwac_scan_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			if m.GetLabel()[0].GetValue() == "Complete" && (h.GetSampleCount() != 1 || h.GetSampleSum() != (19*time.Minute).Seconds()) {
				t.Errorf("Complete durations: %d observations summing %v s, want 1 of 1140 s", h.GetSampleCount(), h.GetSampleSum())
			}
			if m.GetLabel()[0].GetValue() == "Failed" && h.GetSampleCount() != 0 {
				t.Errorf("Failed durations: %d observations, want 0", h.GetSampleCount())
			}
		}
	}
}

func helpOf(t *testing.T, reg *prometheus.Registry, name string) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetHelp()
		}
	}
	return ""
}

func TestToolCalls(t *testing.T) {
	tc := NewToolCalls([]string{"cwac_scan", "cwac_list_scans"})
	reg := registry(t, tc.Collectors()...)
	tests := []struct {
		tool, outcome         string
		wantTool, wantOutcome string
	}{
		{"cwac_scan", OutcomeOK, "cwac_scan", OutcomeOK},
		{"cwac_list_scans", OutcomeForbidden, "cwac_list_scans", OutcomeForbidden},
		{"cwac_list_scans", OutcomeTimeout, "cwac_list_scans", OutcomeTimeout},
		{"rm -rf /", OutcomeOK, OtherTool, OutcomeOK},
		{"cwac_scan", "exploded", "cwac_scan", OutcomeError},
	}
	for _, tt := range tests {
		before := testutil.ToFloat64(tc.calls.WithLabelValues(tt.wantTool, tt.wantOutcome))
		tc.Observe(tt.tool, tt.outcome, 20*time.Millisecond)
		if got := testutil.ToFloat64(tc.calls.WithLabelValues(tt.wantTool, tt.wantOutcome)); got != before+1 {
			t.Errorf("Observe(%q, %q): calls{%s,%s} went from %v to %v", tt.tool, tt.outcome, tt.wantTool, tt.wantOutcome, before, got)
		}
	}
	// Every registered tool has every outcome from the start, and OtherTool
	// appeared only because a call used it.
	if n := testutil.CollectAndCount(tc.calls); n != 2*len(Outcomes)+1 {
		t.Errorf("%d call series, want %d", n, 2*len(Outcomes)+1)
	}
	if got := histogramCount(t, reg, "cwac_mcp_tool_call_duration_seconds", map[string]string{"tool": "cwac_scan"}); got != 2 {
		t.Errorf("cwac_scan latencies observed: %d, want 2", got)
	}
}
