package controller

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/gate"
	"github.com/a11y-dev/cwac-operator/internal/scanevent"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Limits the API server puts on what the operator writes.
const (
	// maxEventNoteBytes is the API server's limit on an Event's note.
	maxEventNoteBytes = scanevent.MaxNoteBytes
	// maxConditionMessageBytes is the API's limit on a condition's message.
	maxConditionMessageBytes = 32 * 1024
)

// statusWriter changes a scan's status in memory: phases, conditions and
// the Events a person needs to see. The caller patches the status.
//
// Events are kept for what a person acts on: how a scan ended (Normal for
// Complete, Warning with the reason for Failed) and a Warning for every
// problem on the way (a pod that cannot start, a crossed threshold, a
// baseline that cannot be compared, failed shards, blocked connections).
// The steps between (Pending, Queued, JobCreated, Running) are in status
// and its conditions only: an Event for each cost every scan a request per
// step.
type statusWriter struct {
	recorder events.EventRecorder
	// now is the clock (tests may replace it).
	now func() time.Time
}

func (w *statusWriter) clock() time.Time {
	if w.now != nil {
		return w.now()
	}
	return time.Now()
}

// complete ends the scan with results: Complete=True/Succeeded, and
// AllSitesScanned True or False/SomeSitesUnscanned from the summary.
func (w *statusWriter) complete(scan *cwacv1alpha1.CwacScan, msg string) {
	if s := scan.Status.Summary; s != nil {
		if len(s.UnscannedBaseURLs) > 0 {
			w.setCondition(scan, cwacv1alpha1.ConditionAllSitesScanned, metav1.ConditionFalse, cwacv1alpha1.ReasonSomeSitesUnscanned,
				"base URLs that yielded no page: "+strings.Join(s.UnscannedBaseURLs, ", "))
		} else {
			w.setCondition(scan, cwacv1alpha1.ConditionAllSitesScanned, metav1.ConditionTrue, cwacv1alpha1.ReasonAllSitesScanned, "every base URL yielded pages")
		}
	}
	w.completeness(scan)
	w.setCondition(scan, cwacv1alpha1.ConditionComplete, metav1.ConditionTrue, cwacv1alpha1.ReasonSucceeded, msg)
	w.judge(scan)
	w.end(scan, cwacv1alpha1.PhaseComplete, cwacv1alpha1.ReasonSucceeded, msg)
}

// completeness sets AllSitesComplete from the summary's completeness:
// True/AllOrganisationsComplete, False/OrganisationsIncomplete naming the
// organisations (with a Warning Event: the scan's figures for them are
// not to be trusted as a whole), or Unknown/CompletenessUnknown.
func (w *statusWriter) completeness(scan *cwacv1alpha1.CwacScan) {
	var c *cwacv1alpha1.ScanCompleteness
	if scan.Status.Summary != nil {
		c = scan.Status.Summary.Completeness
	}
	switch j, msg := gate.Completeness(c); j {
	case gate.Complete:
		w.setCondition(scan, cwacv1alpha1.ConditionAllSitesComplete, metav1.ConditionTrue, cwacv1alpha1.ReasonAllOrganisationsComplete, msg)
	case gate.Incomplete:
		w.setCondition(scan, cwacv1alpha1.ConditionAllSitesComplete, metav1.ConditionFalse, cwacv1alpha1.ReasonOrganisationsIncomplete, msg)
		w.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonOrganisationsIncomplete, msg)
	default:
		w.setCondition(scan, cwacv1alpha1.ConditionAllSitesComplete, metav1.ConditionUnknown, cwacv1alpha1.ReasonCompletenessUnknown, msg)
	}
}

// judge sets ThresholdsMet for a complete scan: True/WithinThresholds or
// True/NoThresholds, or False/ThresholdsCrossed naming each threshold with
// its figure, with a Warning Event.
func (w *statusWriter) judge(scan *cwacv1alpha1.CwacScan) {
	if scan.Spec.Thresholds == nil {
		w.setCondition(scan, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionTrue, cwacv1alpha1.ReasonNoThresholds, "the scan sets no thresholds")
		return
	}
	crossed := gate.Crossed(scan.Spec.Thresholds, scan.Status.Summary)
	if scan.Spec.Thresholds.MaxNewIssues != nil && scan.Spec.Baseline != "" && (scan.Status.Summary == nil || scan.Status.Summary.Diff == nil) {
		// Fail closed: a gate on new issues that cannot see them is not passed.
		crossed = append(crossed, fmt.Sprintf(
			"new issues not checkable: the results were not compared with baseline %s (see the BaselineCompared condition)", scan.Spec.Baseline))
	}
	if len(crossed) == 0 {
		w.setCondition(scan, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionTrue, cwacv1alpha1.ReasonWithinThresholds, "the results are within every threshold")
		return
	}
	msg := "thresholds crossed: " + strings.Join(crossed, "; ")
	w.setCondition(scan, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionFalse, cwacv1alpha1.ReasonThresholdsCrossed, msg)
	w.event(scan, corev1.EventTypeWarning, cwacv1alpha1.ReasonThresholdsCrossed, msg)
}

// fail ends the scan as Failed with a reason (Failed=True/<reason>,
// ThresholdsMet=False/ScanFailed) and records the reason and exit code in
// status.failure.
func (w *statusWriter) fail(scan *cwacv1alpha1.CwacScan, reason, msg string) {
	scan.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: reason, ExitCode: scan.Status.ExitCode}
	w.setCondition(scan, cwacv1alpha1.ConditionFailed, metav1.ConditionTrue, reason, msg)
	w.setCondition(scan, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionFalse, cwacv1alpha1.ReasonScanFailed,
		"the scan failed ("+reason+"), so there are no results to judge")
	w.end(scan, cwacv1alpha1.PhaseFailed, reason, msg)
}

// end records the ending: completionTime, Finished=True with the ending's
// reason, and the phase with its Event.
func (w *statusWriter) end(scan *cwacv1alpha1.CwacScan, phase cwacv1alpha1.Phase, reason, msg string) {
	now := metav1.NewTime(w.clock())
	scan.Status.CompletionTime = &now
	w.setCondition(scan, cwacv1alpha1.ConditionFinished, metav1.ConditionTrue, reason, fmt.Sprintf("%s: %s", phase, msg))
	if meta.IsStatusConditionTrue(scan.Status.Conditions, cwacv1alpha1.ConditionDegraded) && phase == cwacv1alpha1.PhaseComplete {
		w.setCondition(scan, cwacv1alpha1.ConditionDegraded, metav1.ConditionFalse, cwacv1alpha1.ReasonPodHealthy, "the scan finished")
	}
	w.setPhase(scan, phase, reason, msg)
}

// setPhase moves the phase; reaching a finished phase is an Event (Normal
// for Complete, Warning for Failed), the phases before it are not.
func (w *statusWriter) setPhase(scan *cwacv1alpha1.CwacScan, phase cwacv1alpha1.Phase, reason, msg string) {
	scan.Status.Message = msg
	if scan.Status.Phase == phase {
		return
	}
	scan.Status.Phase = phase
	if !phase.Finished() {
		return
	}
	eventType := corev1.EventTypeNormal
	if phase == cwacv1alpha1.PhaseFailed {
		eventType = corev1.EventTypeWarning
	}
	w.event(scan, eventType, reason, fmt.Sprintf("%s: %s", phase, msg))
}

// event records an Event whose note always fits the API server's limit.
func (w *statusWriter) event(scan *cwacv1alpha1.CwacScan, eventType, reason, msg string) {
	if w.recorder != nil {
		w.recorder.Eventf(scan, nil, eventType, reason, "Reconcile", "%s", textcap.Head(msg, maxEventNoteBytes))
	}
}

func (w *statusWriter) setCondition(scan *cwacv1alpha1.CwacScan, condType string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&scan.Status.Conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            textcap.Head(msg, maxConditionMessageBytes),
		ObservedGeneration: scan.Generation,
	})
}
