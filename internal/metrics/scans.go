package metrics

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// TopOrganisations is how many organisations of a schedule's latest scan
// get a series of their own in cwac_latest_scan_new_issues_by_organisation:
// the first of status.summary.diff.byOrganisation, which lists the most new
// issues first.
const TopOrganisations = 10

// DefaultListTimeout bounds one scrape's read of the cache.
const DefaultListTimeout = 5 * time.Second

// The gauges ScanCollector computes at scrape time.
var (
	scansDesc = prometheus.NewDesc(Namespace+"_scans",
		"CwacScans that exist now, by namespace, phase and reason.",
		[]string{LabelNamespace, LabelPhase, LabelReason}, nil)
	queueLengthDesc = prometheus.NewDesc(Namespace+"_scan_queue_length",
		"Scans waiting in phase Queued for a slot under the concurrency cap.", nil, nil)
	queueOldestDesc = prometheus.NewDesc(Namespace+"_scan_queue_oldest_wait_seconds",
		"How long the longest-waiting Queued scan has waited since it was admitted (0 when none waits).", nil, nil)
	collectorUpDesc = prometheus.NewDesc(Namespace+"_scan_collector_up",
		"1 when the CwacScan gauges were computed from the operator's cache at this scrape, 0 when the cache could not be read.", nil, nil)
	latestIssuesDesc = prometheus.NewDesc(Namespace+"_latest_scan_issues",
		"Issues of the latest Complete scan of each schedule (schedule=\"(none)\": the namespace's unscheduled scans), by axe impact.",
		[]string{LabelNamespace, LabelSchedule, LabelImpact}, nil)
	latestTotalDesc = prometheus.NewDesc(Namespace+"_latest_scan_total_issues",
		"All issues (every audit) of the latest Complete scan of each schedule, but those a decision covers.",
		[]string{LabelNamespace, LabelSchedule}, nil)
	latestDecidedDesc = prometheus.NewDesc(Namespace+"_latest_scan_decided_issues",
		"Issues of the latest Complete scan of each schedule that a decision covers, not in its total.",
		[]string{LabelNamespace, LabelSchedule}, nil)
	latestPagesDesc = prometheus.NewDesc(Namespace+"_latest_scan_pages_scanned",
		"Pages scanned by the latest Complete scan of each schedule.",
		[]string{LabelNamespace, LabelSchedule}, nil)
	latestTimeDesc = prometheus.NewDesc(Namespace+"_latest_scan_completion_timestamp_seconds",
		"When the latest Complete scan of each schedule finished, in Unix seconds.",
		[]string{LabelNamespace, LabelSchedule}, nil)
	latestNewDesc = prometheus.NewDesc(Namespace+"_latest_scan_new_issues",
		"Issues the latest Complete scan of each schedule has that its baseline did not (only when it was compared).",
		[]string{LabelNamespace, LabelSchedule}, nil)
	latestFixedDesc = prometheus.NewDesc(Namespace+"_latest_scan_fixed_issues",
		"Issues of the baseline the latest Complete scan of each schedule no longer has (only when it was compared).",
		[]string{LabelNamespace, LabelSchedule}, nil)
	latestOrgsDesc = prometheus.NewDesc(Namespace+"_latest_scan_organisations",
		"Organisations of the latest Complete scan of each schedule by completeness verdict (docs/completeness.md).",
		[]string{LabelNamespace, LabelSchedule, LabelVerdict}, nil)
	latestOrgNewDesc = prometheus.NewDesc(Namespace+"_latest_scan_new_issues_by_organisation",
		"New issues of the latest Complete scan of each schedule, for its 10 organisations with the most new issues.",
		[]string{LabelNamespace, LabelSchedule, LabelOrganisation}, nil)
)

// ScanCollector computes the CwacScan gauges at scrape time from a list of
// scans (the operator's cache): correct after a restart, with nothing to
// update on reconciles.
type ScanCollector struct {
	// List returns the scans (required): the cache's own objects, which the
	// collector reads and never changes, so that a scrape copies nothing of
	// the thousands of finished scans a cache may hold.
	List func(ctx context.Context) ([]*cwacv1alpha1.CwacScan, error)
	// Active reports whether this process should report (the leader, with
	// several replicas); nil: always. A process that is not active reports
	// nothing, so sums over replicas count each scan once.
	Active func() bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Timeout bounds List (0: DefaultListTimeout).
	Timeout time.Duration
	// OnError hears List's and Summary's errors (nil: ignored;
	// cwac_scan_collector_up says 0 when List failed).
	OnError func(error)
	// Summary reads the whole summary of each stream's latest Complete
	// scan, for lists whose finished scans carry only part of theirs (the
	// operator's cache keeps little of a finished scan); nil: the listed
	// summary is used. An answer is remembered while that scan's version
	// stays the stream's latest, so it is read once, not at every scrape.
	Summary func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (*cwacv1alpha1.ScanSummary, error)

	mu     sync.Mutex
	latest map[streamKey]readSummary
}

// readSummary is a summary Summary read, and the scan version it is of.
type readSummary struct {
	uid             types.UID
	resourceVersion string
	summary         *cwacv1alpha1.ScanSummary
}

// Describe implements prometheus.Collector.
func (c *ScanCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{scansDesc, queueLengthDesc, queueOldestDesc, collectorUpDesc, latestIssuesDesc,
		latestTotalDesc, latestDecidedDesc, latestPagesDesc, latestTimeDesc, latestNewDesc, latestFixedDesc, latestOrgNewDesc, latestOrgsDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *ScanCollector) Collect(ch chan<- prometheus.Metric) {
	if c.Active != nil && !c.Active() {
		return
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultListTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	scans, err := c.List(ctx)
	if err != nil {
		if c.OnError != nil {
			c.OnError(err)
		}
		ch <- prometheus.MustNewConstMetric(collectorUpDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(collectorUpDesc, prometheus.GaugeValue, 1)
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	collectScans(ch, scans, now(), func(k streamKey, s *cwacv1alpha1.CwacScan) (*cwacv1alpha1.ScanSummary, bool) {
		return c.summaryOf(ctx, k, s)
	})
	c.forgetStreamsBut(scans)
}

// summaryOf is the whole summary of s, the latest Complete scan of stream
// k: the listed one without Summary, else the one read (remembered per
// version); false when it could not be read.
func (c *ScanCollector) summaryOf(ctx context.Context, k streamKey, s *cwacv1alpha1.CwacScan) (*cwacv1alpha1.ScanSummary, bool) {
	if c.Summary == nil {
		return s.Status.Summary, true
	}
	c.mu.Lock()
	known, ok := c.latest[k]
	c.mu.Unlock()
	if ok && known.uid == s.UID && known.resourceVersion == s.ResourceVersion {
		return known.summary, true
	}
	sum, err := c.Summary(ctx, s)
	if err != nil {
		if c.OnError != nil {
			c.OnError(err)
		}
		return nil, false
	}
	c.mu.Lock()
	if c.latest == nil {
		c.latest = map[streamKey]readSummary{}
	}
	c.latest[k] = readSummary{uid: s.UID, resourceVersion: s.ResourceVersion, summary: sum}
	c.mu.Unlock()
	return sum, true
}

// forgetStreamsBut drops the summaries remembered for streams none of
// scans belongs to any more (a schedule deleted, a namespace emptied).
func (c *ScanCollector) forgetStreamsBut(scans []*cwacv1alpha1.CwacScan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.latest) == 0 {
		return
	}
	live := make(map[streamKey]bool, len(c.latest))
	for _, s := range scans {
		live[streamKey{s.Namespace, Schedule(s)}] = true
	}
	for k := range c.latest {
		if !live[k] {
			delete(c.latest, k)
		}
	}
}

// phaseKey is one series of cwac_scans.
type phaseKey struct{ namespace, phase, reason string }

// streamKey is one schedule (or one namespace's unscheduled scans).
type streamKey struct{ namespace, schedule string }

// summaryFunc gives the summary to report for a stream's latest Complete
// scan; false: none could be had, and only its completion time is reported.
type summaryFunc func(streamKey, *cwacv1alpha1.CwacScan) (*cwacv1alpha1.ScanSummary, bool)

func collectScans(ch chan<- prometheus.Metric, scans []*cwacv1alpha1.CwacScan, now time.Time, summary summaryFunc) {
	counts := map[phaseKey]int{}
	latest := map[streamKey]*cwacv1alpha1.CwacScan{}
	queued := 0
	var oldestWait time.Duration
	for _, s := range scans {
		counts[phaseKey{s.Namespace, Phase(s), Reason(s)}]++
		switch {
		case s.Status.Phase == cwacv1alpha1.PhaseQueued:
			queued++
			oldestWait = max(oldestWait, now.Sub(AdmittedAt(s)))
		case s.Status.Phase == cwacv1alpha1.PhaseComplete && s.Status.CompletionTime != nil:
			k := streamKey{s.Namespace, Schedule(s)}
			if cur := latest[k]; cur == nil || newer(s, cur) {
				latest[k] = s
			}
		}
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(scansDesc, prometheus.GaugeValue, float64(n), k.namespace, k.phase, k.reason)
	}
	ch <- prometheus.MustNewConstMetric(queueLengthDesc, prometheus.GaugeValue, float64(queued))
	ch <- prometheus.MustNewConstMetric(queueOldestDesc, prometheus.GaugeValue, max(oldestWait, 0).Seconds())
	for k, s := range latest {
		sum, ok := summary(k, s)
		collectLatest(ch, k, s, sum, ok)
	}
}

// newer orders Complete scans: the later completion, then the later
// creation, then the greater name (a stable choice for equal times).
func newer(a, b *cwacv1alpha1.CwacScan) bool {
	if ta, tb := a.Status.CompletionTime.Time, b.Status.CompletionTime.Time; !ta.Equal(tb) {
		return ta.After(tb)
	}
	if ca, cb := a.CreationTimestamp.Time, b.CreationTimestamp.Time; !ca.Equal(cb) {
		return ca.After(cb)
	}
	return a.Name > b.Name
}

func collectLatest(ch chan<- prometheus.Metric, k streamKey, s *cwacv1alpha1.CwacScan, sum *cwacv1alpha1.ScanSummary, known bool) {
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{k.namespace, k.schedule}, extra...)...)
	}
	gauge(latestTimeDesc, float64(s.Status.CompletionTime.Unix()))
	if !known || sum == nil {
		return
	}
	gauge(latestTotalDesc, float64(sum.TotalIssues))
	gauge(latestDecidedDesc, float64(sum.DecidedIssues))
	gauge(latestPagesDesc, float64(sum.PagesScanned))
	byImpact := map[string]int64{}
	for _, impact := range results.Impacts() {
		byImpact[impact] = 0 // every impact has a series: a panel shows 0, not a gap
	}
	for impact, n := range sum.IssuesByImpact {
		byImpact[Impact(impact)] += n
	}
	for impact, n := range byImpact {
		gauge(latestIssuesDesc, float64(n), impact)
	}
	if c := sum.Completeness; c != nil {
		// Every verdict has a series (0 when none), and only the four: a
		// label value from a pod's report could otherwise be anything.
		for _, v := range results.Verdicts {
			gauge(latestOrgsDesc, float64(c.OrganisationsByVerdict[string(v)]), string(v))
		}
	}
	if sum.Diff == nil {
		return
	}
	gauge(latestNewDesc, float64(sum.Diff.New))
	gauge(latestFixedDesc, float64(sum.Diff.Fixed))
	orgs := append([]cwacv1alpha1.OrganisationDiff(nil), sum.Diff.ByOrganisation...)
	sort.SliceStable(orgs, func(i, j int) bool { return orgs[i].New > orgs[j].New })
	seen := map[string]bool{}
	for _, o := range orgs {
		if len(seen) == TopOrganisations {
			break
		}
		name := organisationLabel(o.Organisation)
		if seen[name] {
			continue // two names cut to the same label: the first (most new issues) stands
		}
		seen[name] = true
		gauge(latestOrgNewDesc, float64(o.New), name)
	}
}

// AdmittedAt is when a scan entered the queue: when its Admitted condition
// turned True, else when it was created.
func AdmittedAt(scan *cwacv1alpha1.CwacScan) time.Time {
	if c := findTrue(scan.Status.Conditions, cwacv1alpha1.ConditionAdmitted); c != nil && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	return scan.CreationTimestamp.Time
}
