package metrics

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/decisionapi"
)

// The label names of the decision gauges.
const (
	LabelKind    = "kind"
	LabelApplied = "applied"
)

// The gauges DecisionCollector computes at scrape time.
var (
	decisionsDesc = prometheus.NewDesc(Namespace+"_issue_decisions",
		"CwacIssueDecisions that exist now, by namespace, kind and whether the operator applies them (applied=\"true\").",
		[]string{LabelNamespace, LabelKind, LabelApplied}, nil)
	decisionsPastReviewDesc = prometheus.NewDesc(Namespace+"_issue_decisions_past_review",
		"Applied CwacIssueDecisions past their review date: they cover nothing until someone decides anew.",
		[]string{LabelNamespace}, nil)
	decisionCollectorUpDesc = prometheus.NewDesc(Namespace+"_issue_decision_collector_up",
		"1 when the decision gauges were computed from the operator's cache at this scrape, 0 when it could not be read.", nil, nil)
)

// DecisionCollector computes the CwacIssueDecision gauges at scrape time
// from a list of decisions (the operator's cache).
type DecisionCollector struct {
	// List returns the decisions (required); the collector never changes them.
	List func(ctx context.Context) ([]cwacv1alpha1.CwacIssueDecision, error)
	// Active reports whether this process should report (the leader); nil: always.
	Active func() bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// OnError hears List's errors (nil: ignored).
	OnError func(error)
}

// Describe implements prometheus.Collector.
func (c *DecisionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- decisionsDesc
	ch <- decisionsPastReviewDesc
	ch <- decisionCollectorUpDesc
}

// decisionKey is one series of cwac_issue_decisions.
type decisionKey struct{ namespace, kind, applied string }

// Collect implements prometheus.Collector. Every kind of decision has a
// series in each namespace that has decisions, applied or not, so that a
// rate or an alert sees 0 rather than nothing; a kind the API does not
// know (a decision that does not parse) counts as OtherKind, never applied.
func (c *DecisionCollector) Collect(ch chan<- prometheus.Metric) {
	if c.Active != nil && !c.Active() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultListTimeout)
	defer cancel()
	list, err := c.List(ctx)
	if err != nil {
		if c.OnError != nil {
			c.OnError(err)
		}
		ch <- prometheus.MustNewConstMetric(decisionCollectorUpDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(decisionCollectorUpDesc, prometheus.GaugeValue, 1)
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	counts, pastReview := countDecisions(list, now())
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(decisionsDesc, prometheus.GaugeValue, float64(n), k.namespace, k.kind, k.applied)
	}
	for ns, n := range pastReview {
		ch <- prometheus.MustNewConstMetric(decisionsPastReviewDesc, prometheus.GaugeValue, float64(n), ns)
	}
}

// countDecisions counts the decisions by namespace, kind and applied, and
// the applied ones past their review date by namespace.
func countDecisions(list []cwacv1alpha1.CwacIssueDecision, now time.Time) (map[decisionKey]int, map[string]int) {
	counts, pastReview := map[decisionKey]int{}, map[string]int{}
	for i := range list {
		o := &list[i]
		if _, seen := pastReview[o.Namespace]; !seen {
			pastReview[o.Namespace] = 0
			for _, k := range decision.Kinds {
				counts[decisionKey{o.Namespace, string(k), "true"}] += 0
				counts[decisionKey{o.Namespace, string(k), "false"}] += 0
			}
		}
		d, applied, err := decisionapi.FromObject(o)
		kind := string(d.Kind)
		if err != nil || !slices.Contains(decision.Kinds, d.Kind) {
			kind, applied = OtherKind, false
		}
		counts[decisionKey{o.Namespace, kind, strconv.FormatBool(applied)}]++
		if applied && !d.ActiveAt(now) {
			pastReview[o.Namespace]++
		}
	}
	return counts, pastReview
}
