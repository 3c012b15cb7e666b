// Package metrics defines the Prometheus metrics of the operator and the MCP
// server: gauges computed at scrape time from the CwacScans the operator
// holds in its cache (ScanCollector), observations made when a scan starts
// or finishes (ScanEvents), and the MCP server's tool calls (ToolCalls).
//
// Every label value comes from a fixed set or from Kubernetes object names
// (namespace, schedule), never from free text a user wrote, so the number of
// series is bounded: docs/metrics.md gives each metric's bound. The package
// has no controller-runtime imports; internal/controller wires it to the
// manager's cache and informer.
package metrics

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Namespace prefixes every metric name.
const Namespace = "cwac"

// The label names.
const (
	LabelNamespace    = "namespace"
	LabelPhase        = "phase"
	LabelReason       = "reason"
	LabelSchedule     = "schedule"
	LabelImpact       = "impact"
	LabelOrganisation = "organisation"
	LabelTool         = "tool"
	LabelOutcome      = "outcome"
	LabelVerdict      = "verdict"
)

// Label values used when a scan's own value is outside the fixed set.
const (
	// OtherReason stands for a reason that is not one of the API's.
	OtherReason = "Other"
	// OtherKind stands for a decision's kind that is not one of the API's
	// (a decision that does not parse): the same word.
	OtherKind = OtherReason
	// NoSchedule is the schedule label of scans no CwacScanSchedule made.
	// Schedule names are DNS subdomains, so no schedule can be named this.
	NoSchedule = "(none)"
	// OtherImpact stands for an impact that is not one of axe's four: the
	// report's impact class other.
	OtherImpact = report.ImpactOther
)

// scheduleKind is the kind of the owner that makes a scan scheduled.
const scheduleKind = "CwacScanSchedule"

// knownReasons are the reasons a scan's status carries (api/v1alpha1): the
// only values the reason label takes, besides OtherReason.
var knownReasons = setOf(
	cwacv1alpha1.ReasonPending, cwacv1alpha1.ReasonQueued, cwacv1alpha1.ReasonJobCreated, cwacv1alpha1.ReasonRunning,
	cwacv1alpha1.ReasonSucceeded, cwacv1alpha1.ReasonPolicyDenied, cwacv1alpha1.ReasonAdmissionTimedOut,
	cwacv1alpha1.ReasonTooManyURLs, cwacv1alpha1.ReasonNoCWACDefaults, cwacv1alpha1.ReasonInvalidSpec,
	cwacv1alpha1.ReasonDeadlineExceeded, cwacv1alpha1.ReasonCWACExitedNonZero, cwacv1alpha1.ReasonNoPagesScanned,
	cwacv1alpha1.ReasonOOMKilled, cwacv1alpha1.ReasonRunnerError, cwacv1alpha1.ReasonResultsNotStored, cwacv1alpha1.ReasonImagePullBackOff,
	cwacv1alpha1.ReasonErrImagePull, cwacv1alpha1.ReasonInvalidImageName, cwacv1alpha1.ReasonCreateContainerConfigError,
	cwacv1alpha1.ReasonUnschedulable, cwacv1alpha1.ReasonJobDeleted, cwacv1alpha1.ReasonJobFailed,
	cwacv1alpha1.ReasonCancelled, cwacv1alpha1.ReasonJobConflict, cwacv1alpha1.ReasonConfigMapConflict,
)

// knownImpacts are axe's impacts, the values of the impact label besides OtherImpact.
var knownImpacts = setOf(results.Impacts()...)

// knownPhases are the phases the phase label takes.
var knownPhases = setOf(string(cwacv1alpha1.PhasePending), string(cwacv1alpha1.PhaseQueued),
	string(cwacv1alpha1.PhaseRunning), string(cwacv1alpha1.PhaseComplete), string(cwacv1alpha1.PhaseFailed))

func setOf(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// Phase is a scan's phase label: a scan with no status yet (not admitted)
// counts as Pending.
func Phase(scan *cwacv1alpha1.CwacScan) string {
	p := string(scan.Status.Phase)
	if p == "" || !knownPhases[p] {
		return string(cwacv1alpha1.PhasePending)
	}
	return p
}

// Reason is a scan's reason label: for a finished scan, the Finished
// condition's reason (Succeeded, or why it failed); for a scan whose pod
// cannot start, the Degraded condition's reason (ImagePullBackOff…); else
// the reason of its phase (Queued, Running, JobCreated once the Job exists,
// Pending before). A reason outside the API's set is OtherReason.
func Reason(scan *cwacv1alpha1.CwacScan) string {
	conds := scan.Status.Conditions
	var r string
	switch phase := scan.Status.Phase; {
	case phase.Finished():
		if c := findTrue(conds, cwacv1alpha1.ConditionFinished); c != nil {
			r = c.Reason
		} else if scan.Status.Failure != nil {
			r = scan.Status.Failure.Reason
		} else if phase == cwacv1alpha1.PhaseComplete {
			r = cwacv1alpha1.ReasonSucceeded
		}
	case findTrue(conds, cwacv1alpha1.ConditionDegraded) != nil:
		r = findTrue(conds, cwacv1alpha1.ConditionDegraded).Reason
	case phase == cwacv1alpha1.PhaseQueued:
		r = cwacv1alpha1.ReasonQueued
	case phase == cwacv1alpha1.PhaseRunning:
		r = cwacv1alpha1.ReasonRunning
	case findTrue(conds, cwacv1alpha1.ConditionStarted) != nil:
		r = cwacv1alpha1.ReasonJobCreated
	default:
		r = cwacv1alpha1.ReasonPending
	}
	if !knownReasons[r] {
		return OtherReason
	}
	return r
}

func findTrue(conds []metav1.Condition, condType string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == condType && conds[i].Status == metav1.ConditionTrue {
			return &conds[i]
		}
	}
	return nil
}

// Schedule is the schedule label: the name of the CwacScanSchedule that
// controls the scan (its controller owner reference, which users do not set
// by hand as they might a label), or NoSchedule.
func Schedule(scan *cwacv1alpha1.CwacScan) string {
	for _, ref := range scan.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.Kind == scheduleKind &&
			strings.HasPrefix(ref.APIVersion, cwacv1alpha1.GroupVersion.Group+"/") {
			return ref.Name
		}
	}
	return NoSchedule
}

// Impact is the impact label for an impact key of a scan's summary.
func Impact(impact string) string {
	if knownImpacts[impact] {
		return impact
	}
	return OtherImpact
}

// maxOrganisationLabelBytes bounds an organisation label value: organisation
// names are the user's own text.
const maxOrganisationLabelBytes = 100

// organisationLabel cuts an organisation's name to maxOrganisationLabelBytes
// on a character boundary, unmarked as these label values have always been
// (a long name's series keeps its name).
func organisationLabel(s string) string {
	return textcap.HeadMarked(strings.ToValidUTF8(s, ""), maxOrganisationLabelBytes, "")
}
