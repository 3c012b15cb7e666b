package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The outcomes of an MCP tool call, as its audit line records them: the
// only values the outcome label takes.
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeForbidden = "forbidden"
	OutcomeTimeout   = "timeout"
)

// Outcomes lists every outcome label value.
var Outcomes = []string{OutcomeOK, OutcomeError, OutcomeForbidden, OutcomeTimeout}

// OtherTool is the tool label of a call to a name that is not registered
// (the server refuses such calls before they run; this only keeps a bug
// from turning caller input into a label).
const OtherTool = "other"

// ToolLatencyBuckets are the tool-call latency histogram's buckets, in
// seconds: most tools answer from the API server or a file in milliseconds;
// reports and comparisons may take up to the call timeout (30 s by default).
var ToolLatencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}

// ToolCalls counts the MCP server's tool calls by tool and outcome and
// times them by tool. Its labels come from the tool names it was made with
// and the fixed outcomes, whatever callers send.
type ToolCalls struct {
	tools    map[string]bool
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewToolCalls makes the metrics for the registered tools; every tool and
// outcome has a series from the start, at 0.
func NewToolCalls(tools []string) *ToolCalls {
	t := &ToolCalls{
		tools: setOf(tools...),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "mcp_tool_calls_total",
			Help: "MCP tool calls (MCP over HTTP or stdio, and REST /execute), by tool and outcome (ok, error, forbidden, timeout).",
		}, []string{LabelTool, LabelOutcome}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "mcp_tool_call_duration_seconds",
			Help:    "How long MCP tool calls took, authorisation included, by tool.",
			Buckets: ToolLatencyBuckets,
		}, []string{LabelTool}),
	}
	for _, name := range tools {
		t.duration.WithLabelValues(name)
		for _, o := range Outcomes {
			t.calls.WithLabelValues(name, o)
		}
	}
	return t
}

// Collectors are the metrics to register.
func (t *ToolCalls) Collectors() []prometheus.Collector {
	return []prometheus.Collector{t.calls, t.duration}
}

// Observe records one call. An unregistered tool counts as OtherTool and an
// outcome outside Outcomes as OutcomeError.
func (t *ToolCalls) Observe(tool, outcome string, took time.Duration) {
	if !t.tools[tool] {
		tool = OtherTool
	}
	switch outcome {
	case OutcomeOK, OutcomeError, OutcomeForbidden, OutcomeTimeout:
	default:
		outcome = OutcomeError
	}
	t.calls.WithLabelValues(tool, outcome).Inc()
	t.duration.WithLabelValues(tool).Observe(max(took.Seconds(), 0))
}
