// Package notify decides what a finished scan tells people and how: which
// events it raises against the scan before it (transitions, not every
// scan), the versioned JSON payload, the Slack and Microsoft Teams
// messages, the HMAC signature of a webhook's body, and delivery over HTTP
// with the target policy checked on the address actually dialled. It knows
// nothing of controller-runtime: the operator's notification controller
// reads the scans and Secrets and records the deliveries.
package notify

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/gate"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/scanstatus"
)

// AllEvents are the events in the order they are decided and sent.
var AllEvents = []cwacv1alpha1.NotificationEvent{
	cwacv1alpha1.EventScanFailed, cwacv1alpha1.EventScanRecovered,
	cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventThresholdsRecovered,
	cwacv1alpha1.EventNewIssues, cwacv1alpha1.EventScoreDropped, cwacv1alpha1.EventScanIncomplete,
}

// KnownEvent reports whether e is an event this package decides.
func KnownEvent(e cwacv1alpha1.NotificationEvent) bool { return slices.Contains(AllEvents, e) }

// Input is what the decision reads: the finished scan, whole, and the
// scans it is judged against.
type Input struct {
	// Scan is the finished scan.
	Scan *cwacv1alpha1.CwacScan
	// Previous is the scan before it, whatever its ending: the schedule's
	// previous finished scan, or (outside a schedule) spec.baseline. Nil
	// when there is none (or it is gone). Failure and completeness
	// transitions are judged against it.
	Previous *cwacv1alpha1.CwacScan
	// Compared is the Complete scan the figures were compared with:
	// spec.baseline (a schedule sets it to its previous Complete scan).
	// Nil when there is none. Threshold and score transitions are judged
	// against it, since a failed scan in between has no figures.
	Compared *cwacv1alpha1.CwacScan
}

// Decision is what a finished scan raised.
type Decision struct {
	// Events raised, in AllEvents' order. ScoreDropped is raised when the
	// score fell at all; each receiver's scoreDrop then decides whether it
	// is sent (Deliveries).
	Events []cwacv1alpha1.NotificationEvent
	// ComparedWith names the scan transitions were judged against.
	ComparedWith string
	// Facts are the figures the payloads report.
	Facts Facts
}

// Facts are the figures behind the events, as the payloads carry them.
type Facts struct {
	Crossed           []string
	PreviouslyCrossed []string
	// Score and PreviousScore are the leaderboard's score (0-100, higher
	// better) of the whole scan's issues over its pages; nil when not known.
	Score, PreviousScore *float64
	// OrganisationDrops are the organisations whose score fell against the
	// compared scan (status.summary.diff.scoreDrops), largest fall first.
	OrganisationDrops []OrganisationDrop
	// Missing are the base URLs that yielded no page and that the scan
	// before did not miss (all of them when it missed none, or there is none).
	Missing []string
	// Blocked: the scan's egress proxy refused connections (ConnectionsBlocked).
	Blocked string
	// ShardsFailed: some shards failed and the scan completed without them.
	ShardsFailed string
	// Organisations are the organisations not scanned completely
	// (status.summary.completeness) that the scan before did not list.
	Organisations []cwacv1alpha1.OrganisationCompleteness
	// NewByOrganisation are the organisations the scan's status lists with
	// their new issues against the baseline (status.summary.diff).
	NewByOrganisation []cwacv1alpha1.OrganisationDiff
	// Owners are the organisations the scan's sites name, each with the
	// owners the scan declares for it: where a receiver's organisations and
	// owners route it, and whom a payload names.
	Owners map[string][]cwacv1alpha1.Owner
}

// Decide decides which events a finished scan raises.
func Decide(in Input) Decision {
	s := in.Scan
	var d Decision
	switch {
	case in.Previous != nil:
		d.ComparedWith = in.Previous.Name
	case in.Compared != nil:
		d.ComparedWith = in.Compared.Name
	}
	d.Facts.Owners = scanOrganisations(s)
	raise := func(e cwacv1alpha1.NotificationEvent) { d.Events = append(d.Events, e) }
	failed := s.Status.Phase == cwacv1alpha1.PhaseFailed
	prevFailed := in.Previous != nil && in.Previous.Status.Phase == cwacv1alpha1.PhaseFailed
	// A first scan that fails has become failing: nothing before it
	// says otherwise, and silence about it is the worse mistake.
	if failed && !prevFailed {
		raise(cwacv1alpha1.EventScanFailed)
	}
	if !failed && prevFailed {
		raise(cwacv1alpha1.EventScanRecovered)
	}
	if failed {
		return d
	}

	d.Facts.Crossed = gate.Crossed(s.Spec.Thresholds, s.Status.Summary)
	now := thresholdState(s)
	before := stateUnknown
	if in.Compared != nil {
		before = thresholdState(in.Compared)
		d.Facts.PreviouslyCrossed = gate.Crossed(in.Compared.Spec.Thresholds, in.Compared.Status.Summary)
	}
	// Crossing after an unknown state is news; recovering from one is not.
	if now == stateCrossed && before != stateCrossed {
		raise(cwacv1alpha1.EventThresholdsCrossed)
	}
	if now == stateWithin && before == stateCrossed {
		raise(cwacv1alpha1.EventThresholdsRecovered)
	}

	if sum := s.Status.Summary; sum != nil && sum.Diff != nil && sum.Diff.New > 0 {
		d.Facts.NewByOrganisation = sum.Diff.ByOrganisation
		raise(cwacv1alpha1.EventNewIssues)
	}

	d.Facts.Score = Score(s.Status.Summary)
	if in.Compared != nil {
		d.Facts.PreviousScore = Score(in.Compared.Status.Summary)
	}
	d.Facts.OrganisationDrops = organisationDrops(s)
	if d.Facts.ScoreDrop() > 0 || len(d.Facts.OrganisationDrops) > 0 {
		raise(cwacv1alpha1.EventScoreDropped)
	}

	d.Facts.Missing, d.Facts.Blocked, d.Facts.ShardsFailed = incomplete(s, in.Previous)
	d.Facts.Organisations = incompleteOrganisations(s, in.Previous)
	if len(d.Facts.Missing) > 0 || d.Facts.Blocked != "" || d.Facts.ShardsFailed != "" || len(d.Facts.Organisations) > 0 {
		raise(cwacv1alpha1.EventScanIncomplete)
	}
	return d
}

// ScoreDrop is how many points the score fell (0 when it did not, or
// either score is unknown).
func (f Facts) ScoreDrop() float64 {
	if f.Score == nil || f.PreviousScore == nil || *f.PreviousScore <= *f.Score {
		return 0
	}
	return float64(int64((*f.PreviousScore-*f.Score)*10+0.5)) / 10
}

// OrganisationDrop is one organisation's fall in score.
type OrganisationDrop struct {
	Organisation string  `json:"organisation"`
	Previous     float64 `json:"previous"`
	Current      float64 `json:"current"`
	Drop         float64 `json:"drop"`
}

// organisationDrops reads the score drops the runner recorded against the
// baseline; one whose scores do not parse is left out.
func organisationDrops(s *cwacv1alpha1.CwacScan) []OrganisationDrop {
	sum := s.Status.Summary
	if sum == nil || sum.Diff == nil {
		return nil
	}
	var out []OrganisationDrop
	for _, d := range scanstatus.FromAPI(&cwacv1alpha1.ScanSummary{Diff: sum.Diff}).Diff.ScoreDrops {
		if drop := d.Drop(); drop > 0 {
			out = append(out, OrganisationDrop{Organisation: d.Organisation, Previous: d.Previous, Current: d.Current, Drop: drop})
		}
	}
	return out
}

// Dropped reports whether the whole scan's score, or any organisation's,
// fell by more than threshold points.
func (f Facts) Dropped(threshold int32) bool {
	return f.ScoreDrop() > float64(threshold) || len(f.OrganisationsDroppedOver(threshold)) > 0
}

// OrganisationsDroppedOver are the organisations whose score fell by more
// than threshold points, largest fall first.
func (f Facts) OrganisationsDroppedOver(threshold int32) []OrganisationDrop {
	var out []OrganisationDrop
	for _, o := range f.OrganisationDrops {
		if o.Drop > float64(threshold) {
			out = append(out, o)
		}
	}
	return out
}

type thresholdVerdict int

const (
	stateUnknown thresholdVerdict = iota
	stateWithin
	stateCrossed
)

// thresholdState is the verdict the operator recorded on a scan
// (ThresholdsMet); a scan without thresholds is within them.
func thresholdState(s *cwacv1alpha1.CwacScan) thresholdVerdict {
	if s.Status.Phase != cwacv1alpha1.PhaseComplete {
		return stateUnknown
	}
	c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet)
	switch {
	case c == nil:
		return stateUnknown
	case c.Status == metav1.ConditionFalse && c.Reason == cwacv1alpha1.ReasonThresholdsCrossed:
		return stateCrossed
	case c.Status == metav1.ConditionTrue:
		return stateWithin
	}
	return stateUnknown
}

// Score is the leaderboard's score of a summary's issues over its pages
// (report.Score); nil when no page was scanned.
func Score(sum *cwacv1alpha1.ScanSummary) *float64 {
	if sum == nil {
		return nil
	}
	var counts report.ImpactCounts
	var known int64
	for impact, n := range sum.IssuesByImpact {
		if i := report.ImpactClass(impact); i < len(counts)-1 {
			counts[i] += n
			known += n
		}
	}
	// Issues without an axe impact (other audits) weigh as "other".
	counts[len(counts)-1] = max(0, sum.TotalIssues-known)
	_, score := report.Score(counts, int(sum.PagesScanned))
	return score
}

// incomplete says what the scan missed that the scan before did not: base
// URLs without a page, blocked connections, failed shards.
func incomplete(s, prev *cwacv1alpha1.CwacScan) (missing []string, blocked, shards string) {
	if s.Status.Phase != cwacv1alpha1.PhaseComplete {
		return nil, "", ""
	}
	prevComplete := prev != nil && prev.Status.Phase == cwacv1alpha1.PhaseComplete
	var before []string
	if prevComplete && prev.Status.Summary != nil {
		before = prev.Status.Summary.UnscannedBaseURLs
	}
	if sum := s.Status.Summary; sum != nil {
		for _, u := range sum.UnscannedBaseURLs {
			if !slices.Contains(before, u) {
				missing = append(missing, u)
			}
		}
	}
	condTrue := func(scan *cwacv1alpha1.CwacScan, t string) *metav1.Condition {
		c := meta.FindStatusCondition(scan.Status.Conditions, t)
		if c == nil || c.Status != metav1.ConditionTrue {
			return nil
		}
		return c
	}
	if c := condTrue(s, cwacv1alpha1.ConditionConnectionsBlocked); c != nil && (!prevComplete || condTrue(prev, cwacv1alpha1.ConditionConnectionsBlocked) == nil) {
		blocked = c.Message
	}
	if c := condTrue(s, cwacv1alpha1.ConditionShardsFailed); c != nil && (!prevComplete || condTrue(prev, cwacv1alpha1.ConditionShardsFailed) == nil) {
		shards = c.Message
	}
	return missing, blocked, shards
}

// incompleteOrganisations are the scan's organisations not scanned
// completely that the scan before (when it completed) did not list.
func incompleteOrganisations(s, prev *cwacv1alpha1.CwacScan) []cwacv1alpha1.OrganisationCompleteness {
	sum := s.Status.Summary
	if s.Status.Phase != cwacv1alpha1.PhaseComplete || sum == nil || sum.Completeness == nil {
		return nil
	}
	var before []string
	if prev != nil && prev.Status.Phase == cwacv1alpha1.PhaseComplete && prev.Status.Summary != nil && prev.Status.Summary.Completeness != nil {
		for _, o := range prev.Status.Summary.Completeness.Incomplete {
			before = append(before, o.Organisation)
		}
	}
	var out []cwacv1alpha1.OrganisationCompleteness
	for _, o := range sum.Completeness.Incomplete {
		if !slices.Contains(before, o.Organisation) {
			out = append(out, o)
		}
	}
	return out
}
