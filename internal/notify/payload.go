package notify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// SchemaVersion is the generic payload's schema version
// (docs/notification-payload-v1.schema.json). It changes only when a field
// changes meaning or goes; new optional fields keep it.
const SchemaVersion = "cwac.a11y.dev/notification/v1"

// Bounds on what a payload carries, so a scan of a thousand sites still
// makes a message a chat service takes (and MaxBody is never reached by
// the lists alone).
const (
	// MaxBody is the most bytes any body may be.
	MaxBody = 64 << 10
	// MaxListed is the most base URLs, organisations or thresholds listed;
	// the payload says how many there were.
	MaxListed = 20
	// MaxText bounds each free-text field (a failure's cause, a condition's message).
	MaxText = 1000
	// maxNameBytes bounds an organisation's or a group's name (the API's
	// bound on both).
	maxNameBytes = 256
)

// Payload is the generic JSON body a webhook receiver gets.
type Payload struct {
	SchemaVersion string `json:"schemaVersion"`
	// ID identifies this event of this scan for this receiver; a receiver
	// that sees it twice (a retry after an answer that was lost) drops the repeat.
	ID         string                         `json:"id"`
	Event      cwacv1alpha1.NotificationEvent `json:"event"`
	Receiver   string                         `json:"receiver"`
	OccurredAt string                         `json:"occurredAt"`
	Title      string                         `json:"title"`
	Scan       ScanRef                        `json:"scan"`
	Summary    *SummaryFacts                  `json:"summary,omitempty"`
	Failure    *FailureFacts                  `json:"failure,omitempty"`
	Thresholds *ThresholdFacts                `json:"thresholds,omitempty"`
	NewIssues  *NewIssueFacts                 `json:"newIssues,omitempty"`
	Score      *ScoreFacts                    `json:"score,omitempty"`
	Incomplete *IncompleteFacts               `json:"incomplete,omitempty"`
	// Owners are the owners of the organisations the message names (the
	// scan's, for a scan-wide event), of those that have owners, at most
	// MaxListed: whoever receives it can pass it on to them.
	Owners []OrganisationOwners `json:"owners,omitempty"`
	// RoutedTo are the organisations the receiver's organisations and
	// owners route it (of those the scan covers); absent for a receiver
	// that gets every event whole.
	RoutedTo []string `json:"routedTo,omitempty"`
	Links    *Links   `json:"links,omitempty"`
}

// ScanRef names the scan.
type ScanRef struct {
	Namespace    string `json:"namespace"`
	Name         string `json:"name"`
	UID          string `json:"uid"`
	Phase        string `json:"phase"`
	Schedule     string `json:"schedule,omitempty"`
	Baseline     string `json:"baseline,omitempty"`
	ComparedWith string `json:"comparedWith,omitempty"`
	ResultsPath  string `json:"resultsPath,omitempty"`
}

// SummaryFacts are the scan's headline figures.
type SummaryFacts struct {
	TotalIssues int64 `json:"totalIssues"`
	// DecidedIssues are the issues a decision covers, not in TotalIssues.
	DecidedIssues  int64            `json:"decidedIssues,omitempty"`
	IssuesByImpact map[string]int64 `json:"issuesByImpact,omitempty"`
	PagesScanned   int32            `json:"pagesScanned"`
	UrlsScanned    int32            `json:"urlsScanned"`
}

// FailureFacts say why the scan failed.
type FailureFacts struct {
	Reason   string `json:"reason"`
	ExitCode *int32 `json:"exitCode,omitempty"`
	Cause    string `json:"cause,omitempty"`
}

// ThresholdFacts name each threshold crossed, now and before.
type ThresholdFacts struct {
	Crossed           []string `json:"crossed"`
	PreviouslyCrossed []string `json:"previouslyCrossed,omitempty"`
}

// NewIssueFacts count the issues the baseline did not have.
type NewIssueFacts struct {
	Baseline       string           `json:"baseline"`
	Total          int64            `json:"total"`
	ByImpact       map[string]int64 `json:"byImpact,omitempty"`
	ByOrganisation []OrgNew         `json:"byOrganisation,omitempty"`
	// Organisations is how many organisations the scan's status lists with
	// new issues; byOrganisation lists the MaxListed with the most.
	Organisations int `json:"organisations"`
	// NewNotListed counts the new issues of organisations the scan's status
	// does not list (it keeps those with the most; the report and diff.json
	// list every one), so that more organisations than Organisations have
	// new issues is never hidden.
	NewNotListed int64 `json:"newNotListed,omitempty"`
}

// OrgNew is one organisation's new issues, with how many of them are of
// each of axe-core's impacts.
type OrgNew struct {
	Organisation string           `json:"organisation"`
	New          int64            `json:"new"`
	ByImpact     map[string]int64 `json:"byImpact,omitempty"`
}

// ScoreFacts compare the scan's score with the compared scan's: the whole
// scan's and each organisation's that fell by more than the threshold.
type ScoreFacts struct {
	// Previous is the whole scan's score in the scan compared with; nil when
	// that scan is gone (pruned or deleted) and only the organisations' falls,
	// which the scan's own comparison recorded, are known.
	Previous *float64 `json:"previous,omitempty"`
	Current  float64  `json:"current"`
	// Drop is how far the whole scan's score fell (0 when only
	// organisations' scores fell by more than the threshold).
	Drop      float64 `json:"drop"`
	Threshold int32   `json:"threshold"`
	// Organisations fell by more than the threshold, largest fall first, at
	// most MaxListed; OrganisationsDropped counts them all (of those the
	// scan's status lists).
	Organisations        []OrganisationDrop `json:"organisations,omitempty"`
	OrganisationsDropped int                `json:"organisationsDropped,omitempty"`
}

// IncompleteFacts say what the scan missed.
type IncompleteFacts struct {
	UnscannedBaseURLs      []string `json:"unscannedBaseURLs,omitempty"`
	UnscannedBaseURLsTotal int      `json:"unscannedBaseURLsTotal"`
	Blocked                string   `json:"blocked,omitempty"`
	ShardsFailed           string   `json:"shardsFailed,omitempty"`
	// Organisations are those newly not scanned completely, with their verdict.
	Organisations []OrgIncomplete `json:"organisations,omitempty"`
}

// OrgIncomplete is one organisation not scanned completely.
type OrgIncomplete struct {
	Organisation string `json:"organisation"`
	Verdict      string `json:"verdict"`
	Reason       string `json:"reason,omitempty"`
}

// Links point people at more.
type Links struct {
	Dashboard string `json:"dashboard,omitempty"`
	// Scan is the scan's page on the dashboard (summary, failure cause,
	// comparison, files); Report its report.html there. Both need the
	// dashboard's URL: the results volume has no address of its own.
	Scan   string `json:"scan,omitempty"`
	Report string `json:"report,omitempty"`
}

// Options shape payloads.
type Options struct {
	// DashboardURL, when set, is linked from every message.
	DashboardURL string
}

// Plan lists the deliveries a decision makes: each raised event for each
// receiver subscribed to it, in receiver then AllEvents order. ScoreDropped
// goes only to receivers whose scoreDrop the fall exceeds; a receiver
// routed to some organisations gets only the events that concern them.
func Plan(d Decision, receivers []cwacv1alpha1.NotificationReceiver) []cwacv1alpha1.NotificationDelivery {
	var out []cwacv1alpha1.NotificationDelivery
	for _, r := range receivers {
		rt := routeOf(r, d.Facts.Owners)
		for _, e := range AllEvents {
			if !slices.Contains(d.Events, e) || !slices.Contains(r.Events, e) || !rt.concerns(d, e, scoreDrop(r)) {
				continue
			}
			if e == cwacv1alpha1.EventScoreDropped && !d.Facts.Dropped(scoreDrop(r)) {
				continue
			}
			out = append(out, cwacv1alpha1.NotificationDelivery{Receiver: r.Name, Event: e, State: cwacv1alpha1.DeliveryPending})
		}
	}
	return out
}

func scoreDrop(r cwacv1alpha1.NotificationReceiver) int32 {
	if r.ScoreDrop != nil {
		return *r.ScoreDrop
	}
	return cwacv1alpha1.DefaultScoreDrop
}

// DeliveryID is the stable identity of one event of one scan for one
// receiver: the same across retries and operator restarts.
func DeliveryID(scan *cwacv1alpha1.CwacScan, receiver string, e cwacv1alpha1.NotificationEvent) string {
	return fmt.Sprintf("%s/%s/%s", scan.UID, receiver, e)
}

// Build makes the generic payload of one event for one receiver.
func Build(scan *cwacv1alpha1.CwacScan, d Decision, r cwacv1alpha1.NotificationReceiver, e cwacv1alpha1.NotificationEvent, o Options) (*Payload, error) {
	if !KnownEvent(e) {
		return nil, fmt.Errorf("receiver %q: unknown event %q; known events are %s", r.Name, e, eventList())
	}
	p := &Payload{
		SchemaVersion: SchemaVersion,
		ID:            DeliveryID(scan, r.Name, e),
		Event:         e,
		Receiver:      r.Name,
		OccurredAt:    occurredAt(scan),
		Scan: ScanRef{
			Namespace: scan.Namespace, Name: scan.Name, UID: string(scan.UID), Phase: string(scan.Status.Phase),
			Schedule: scheduleOf(scan), Baseline: scan.Spec.Baseline, ComparedWith: d.ComparedWith,
			ResultsPath: scan.Status.ResultsPath,
		},
	}
	if o.DashboardURL != "" {
		p.Links = dashboardLinks(o.DashboardURL, scan)
	}
	if sum := scan.Status.Summary; sum != nil {
		p.Summary = &SummaryFacts{TotalIssues: sum.TotalIssues, DecidedIssues: sum.DecidedIssues, IssuesByImpact: axeImpacts(sum.IssuesByImpact),
			PagesScanned: sum.PagesScanned, UrlsScanned: sum.UrlsScanned}
	}
	ref := scan.Namespace + "/" + scan.Name
	rt := routeOf(r, d.Facts.Owners)
	named := rt.organisations(d.Facts.Owners)
	if rt != nil {
		p.RoutedTo = capList(named, maxNameBytes)
	}
	switch e {
	case cwacv1alpha1.EventScanFailed:
		p.Failure = &FailureFacts{Reason: "Unknown"}
		if f := scan.Status.Failure; f != nil {
			p.Failure = &FailureFacts{Reason: f.Reason, ExitCode: f.ExitCode, Cause: textcap.Head(f.Cause, MaxText)}
		}
		p.Title = fmt.Sprintf("Scan %s failed: %s", ref, p.Failure.Reason)
	case cwacv1alpha1.EventScanRecovered:
		p.Title = fmt.Sprintf("Scan %s completed again after %s failed", ref, d.ComparedWith)
	case cwacv1alpha1.EventThresholdsCrossed:
		p.Thresholds = &ThresholdFacts{Crossed: capList(d.Facts.Crossed, urlpolicy.MaxURLLength),
			PreviouslyCrossed: capList(d.Facts.PreviouslyCrossed, urlpolicy.MaxURLLength)}
		p.Title = fmt.Sprintf("Scan %s crossed its thresholds: %s", ref, strings.Join(p.Thresholds.Crossed, "; "))
	case cwacv1alpha1.EventThresholdsRecovered:
		p.Thresholds = &ThresholdFacts{Crossed: []string{}, PreviouslyCrossed: capList(d.Facts.PreviouslyCrossed, urlpolicy.MaxURLLength)}
		p.Title = fmt.Sprintf("Scan %s is back within its thresholds", ref)
	case cwacv1alpha1.EventNewIssues:
		p.NewIssues = newIssues(scan, rt)
		named = nil
		for _, o := range p.NewIssues.ByOrganisation {
			named = append(named, o.Organisation)
		}
		p.Title = fmt.Sprintf("Scan %s has %d new issues against %s", ref, p.NewIssues.Total, p.NewIssues.Baseline)
	case cwacv1alpha1.EventScoreDropped:
		if d.Facts.Score == nil {
			return nil, fmt.Errorf("receiver %q: ScoreDropped without the scan's score", r.Name)
		}
		p.Score = &ScoreFacts{Previous: d.Facts.PreviousScore, Current: *d.Facts.Score, Drop: d.Facts.ScoreDrop(), Threshold: scoreDrop(r)}
		orgs := slices.DeleteFunc(d.Facts.OrganisationsDroppedOver(p.Score.Threshold), func(o OrganisationDrop) bool { return !rt.has(o.Organisation) })
		p.Score.OrganisationsDropped = len(orgs)
		named = nil
		for _, o := range orgs[:min(len(orgs), MaxListed)] {
			named = append(named, o.Organisation)
			o.Organisation = textcap.Head(o.Organisation, maxNameBytes)
			p.Score.Organisations = append(p.Score.Organisations, o)
		}
		p.Title = scoreTitle(ref, p.Score)
	case cwacv1alpha1.EventScanIncomplete:
		p.Incomplete = &IncompleteFacts{
			UnscannedBaseURLs: capList(d.Facts.Missing, urlpolicy.MaxURLLength), UnscannedBaseURLsTotal: len(d.Facts.Missing),
			Blocked: textcap.Head(d.Facts.Blocked, MaxText), ShardsFailed: textcap.Head(d.Facts.ShardsFailed, MaxText),
		}
		orgs := slices.DeleteFunc(slices.Clone(d.Facts.Organisations), func(o cwacv1alpha1.OrganisationCompleteness) bool { return !rt.has(o.Organisation) })
		named = nil
		for _, o := range orgs[:min(len(orgs), MaxListed)] {
			named = append(named, o.Organisation)
			p.Incomplete.Organisations = append(p.Incomplete.Organisations, OrgIncomplete{
				Organisation: textcap.Head(o.Organisation, maxNameBytes), Verdict: textcap.Head(o.Verdict, 64), Reason: textcap.Head(o.Reason, MaxText)})
		}
		p.Title = fmt.Sprintf("Scan %s is incomplete: %d sites unscanned, %d organisations not scanned completely",
			ref, len(d.Facts.Missing), len(orgs))
	}
	p.Owners = ownersOf(named, d.Facts.Owners)
	p.Title = textcap.Head(p.Title, MaxText)
	return p, nil
}

// dashboardLinks are the dashboard's own pages of the scan, under
// the dashboard's URL (its routes: /scans/{namespace}/{name} and
// /scans/{namespace}/{name}/files/{file}). Namespace and name are DNS labels
// and subdomains, so they need no escaping in a path.
func dashboardLinks(dashboard string, scan *cwacv1alpha1.CwacScan) *Links {
	scanPage := strings.TrimRight(dashboard, "/") + "/scans/" + scan.Namespace + "/" + scan.Name
	l := &Links{Dashboard: dashboard, Scan: scanPage}
	// A report exists only for a scan that completed.
	if scan.Status.Phase == cwacv1alpha1.PhaseComplete {
		l.Report = scanPage + "/files/report.html"
	}
	return l
}

// scoreTitle says whose score fell: the whole scan's, organisations', or both.
func scoreTitle(ref string, s *ScoreFacts) string {
	orgs := ""
	switch n := s.OrganisationsDropped; {
	case n == 1:
		o := s.Organisations[0]
		orgs = fmt.Sprintf("%s's score fell %.1f points (%.1f to %.1f)", o.Organisation, o.Drop, o.Previous, o.Current)
	case n > 1:
		orgs = fmt.Sprintf("%d organisations' scores fell more than %d points", n, s.Threshold)
	}
	// A fall is only measured against a known earlier score.
	if s.Previous == nil || s.Drop <= float64(s.Threshold) {
		return fmt.Sprintf("Scan %s: %s", ref, orgs)
	}
	title := fmt.Sprintf("Scan %s: score fell %.1f points (%.1f to %.1f)", ref, s.Drop, *s.Previous, s.Current)
	if orgs != "" {
		title += "; " + orgs
	}
	return title
}

// Marshal renders a body, refusing one over MaxBody.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBody {
		return nil, fmt.Errorf("body of %d bytes exceeds the %d-byte cap", len(b), MaxBody)
	}
	return b, nil
}

// newIssues are the scan's new issues: all of them, or for a routed
// receiver those of its organisations (totalled from the organisations the
// status lists).
func newIssues(scan *cwacv1alpha1.CwacScan, rt routed) *NewIssueFacts {
	diff := scan.Status.Summary.Diff
	n := &NewIssueFacts{Baseline: diff.Baseline, Total: diff.New, ByImpact: axeImpacts(diff.NewByImpact), NewNotListed: diff.New}
	if rt != nil {
		// Only what the status lists of its organisations is known.
		n.Total, n.ByImpact, n.NewNotListed = 0, nil, 0
	}
	for _, o := range diff.ByOrganisation {
		switch {
		case rt == nil:
			n.NewNotListed -= o.New
		case !rt[o.Organisation]:
			continue
		default:
			n.Total += o.New
			n.ByImpact = addImpacts(n.ByImpact, axeImpacts(o.NewByImpact))
		}
		if o.New > 0 {
			n.Organisations++
			if len(n.ByOrganisation) < MaxListed {
				n.ByOrganisation = append(n.ByOrganisation, OrgNew{
					Organisation: textcap.Head(o.Organisation, maxNameBytes), New: o.New, ByImpact: axeImpacts(o.NewByImpact)})
			}
		}
	}
	n.NewNotListed = max(n.NewNotListed, 0)
	return n
}

// addImpacts adds the counts of more to m (made when nil and more has any).
func addImpacts(m, more map[string]int64) map[string]int64 {
	for impact, n := range more {
		if m == nil {
			m = map[string]int64{}
		}
		m[impact] += n
	}
	return m
}

// axeImpacts is m with axe-core's impacts only (nil when it has none of
// them): the payload's schema names no other, and the counts come from
// CSV cells that could hold any word.
func axeImpacts(m map[string]int64) map[string]int64 {
	var out map[string]int64
	for _, impact := range results.Impacts() {
		if n, ok := m[impact]; ok {
			if out == nil {
				out = map[string]int64{}
			}
			out[impact] = n
		}
	}
	return out
}

// capList is at most MaxListed of the texts, each cut to each bytes.
func capList(in []string, each int) []string {
	out := make([]string, 0, min(len(in), MaxListed))
	for _, s := range in[:min(len(in), MaxListed)] {
		out = append(out, textcap.Head(s, each))
	}
	return out
}

func occurredAt(scan *cwacv1alpha1.CwacScan) string {
	if t := scan.Status.CompletionTime; t != nil {
		return t.UTC().Format(time.RFC3339)
	}
	return scan.CreationTimestamp.UTC().Format(time.RFC3339)
}

func scheduleOf(scan *cwacv1alpha1.CwacScan) string {
	if s := scan.Labels[cwacv1alpha1.LabelSchedule]; s != "" {
		return s
	}
	for _, ref := range scan.OwnerReferences {
		if ref.Kind == "CwacScanSchedule" {
			return ref.Name
		}
	}
	return ""
}

func eventList() string {
	names := make([]string, len(AllEvents))
	for i, e := range AllEvents {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}
