package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Buckets of the scan histograms, in seconds: a scan takes minutes to hours,
// a queued scan waits from nothing to as long as the scans before it.
var (
	ScanDurationBuckets = []float64{30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400}
	QueueWaitBuckets    = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800}
)

// ScanEvents are the metrics observed when a scan starts or finishes: the
// moments the scrape-time gauges cannot see. Feed it every change of a
// scan (Changed); it observes each start and each ending once.
type ScanEvents struct {
	duration  *prometheus.HistogramVec
	queueWait prometheus.Histogram
	finished  *prometheus.CounterVec
	pages     *prometheus.CounterVec
}

// NewScanEvents makes the metrics; register them with Collectors.
func NewScanEvents() *ScanEvents {
	e := &ScanEvents{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "scan_duration_seconds",
			Help:    "How long finished scans ran, from their Job's creation to Complete or Failed, by the phase they ended in.",
			Buckets: ScanDurationBuckets,
		}, []string{LabelPhase}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "scan_queue_wait_seconds",
			Help:    "How long scans waited between admission and the creation of their Job (the concurrency cap's queue).",
			Buckets: QueueWaitBuckets,
		}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "scans_finished_total",
			Help: "Scans that finished since the operator started, by namespace, phase (Complete or Failed) and reason.",
		}, []string{LabelNamespace, LabelPhase, LabelReason}),
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "scan_pages_scanned_total",
			Help: "Pages scanned by the scans that finished since the operator started, by namespace.",
		}, []string{LabelNamespace}),
	}
	// Both endings have a histogram from the start: a rate over it is 0, not absent.
	for _, p := range []cwacv1alpha1.Phase{cwacv1alpha1.PhaseComplete, cwacv1alpha1.PhaseFailed} {
		e.duration.WithLabelValues(string(p))
	}
	return e
}

// Collectors are the metrics to register.
func (e *ScanEvents) Collectors() []prometheus.Collector {
	return []prometheus.Collector{e.duration, e.queueWait, e.finished, e.pages}
}

// Changed observes one change of a scan, from old to updated: the queue
// wait when its Job is first recorded (status.startTime appears), and its
// duration, ending and pages when it first shows a finished phase. A scan
// that finished without ever starting (refused at admission, cancelled in
// the queue) counts as finished but has no duration.
func (e *ScanEvents) Changed(old, updated *cwacv1alpha1.CwacScan) {
	if old == nil || updated == nil {
		return
	}
	if old.Status.StartTime == nil && updated.Status.StartTime != nil {
		wait := updated.Status.StartTime.Sub(AdmittedAt(updated))
		e.queueWait.Observe(max(wait.Seconds(), 0))
	}
	if old.Status.Phase.Finished() || !updated.Status.Phase.Finished() {
		return
	}
	phase := string(updated.Status.Phase)
	e.finished.WithLabelValues(updated.Namespace, phase, Reason(updated)).Inc()
	if s := updated.Status.Summary; s != nil && s.PagesScanned > 0 {
		e.pages.WithLabelValues(updated.Namespace).Add(float64(s.PagesScanned))
	}
	if start, end := updated.Status.StartTime, updated.Status.CompletionTime; start != nil && end != nil {
		e.duration.WithLabelValues(phase).Observe(max(end.Sub(start.Time).Seconds(), 0))
	}
}
