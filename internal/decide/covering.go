package decide

import (
	"context"
	"log/slog"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// FindingOf is an issue of the history as internal/decision looks at it.
func FindingOf(ns string, is store.Issue) decision.Finding {
	id, _ := diff.ParseIssueID(is.Fingerprint) // the history's ids are ids: a bad one matches no issue decision
	return decision.Finding{Namespace: ns, Organisation: is.Organisation, ID: id, Element: is.ElementHash, Rule: is.Rule, URL: is.Page}
}

// AppliedSet files the decisions that apply (Applied True): only those
// cover anything.
func AppliedSet(records []Record) *decision.Set {
	var applied []decision.Decision
	for _, r := range records {
		if r.Applied {
			applied = append(applied, r.Decision)
		}
	}
	return decision.NewSet(applied)
}

// RecordsOf reads the objects; those that do not parse are left out, with
// their errors (they cover nothing: the product never applies them).
func RecordsOf(objs []cwacv1alpha1.CwacIssueDecision) ([]Record, []error) {
	out := make([]Record, 0, len(objs))
	var errs []error
	for i := range objs {
		r, err := RecordOf(&objs[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errs
}

// Covering says which applied decision of the records covers an issue of
// the namespace at the instant, as answers and exports carry it (nil:
// none).
func Covering(records []Record, ns string, now time.Time) func(store.Issue) *mcpapi.HistoryDecision {
	set := AppliedSet(records)
	return func(is store.Issue) *mcpapi.HistoryDecision {
		d, ok := set.Covering(FindingOf(ns, is), now)
		if !ok {
			return nil
		}
		out := &mcpapi.HistoryDecision{Decision: d.Ref, Kind: string(d.Kind), Reason: d.Reason, DecidedBy: d.DecidedBy}
		if !d.ReviewBy.IsZero() {
			rb := d.ReviewBy
			out.ReviewBy = &rb
		}
		return out
	}
}

// Lister lists a namespace's CwacIssueDecisions.
type Lister interface {
	List(ctx context.Context, namespace string) ([]cwacv1alpha1.CwacIssueDecision, error)
}

// CoveringIn is Covering of the namespace's decisions as l lists them,
// read once: a decision that cannot be read covers nothing, and log says
// so.
func CoveringIn(ctx context.Context, l Lister, ns string, now time.Time, log *slog.Logger) (func(store.Issue) *mcpapi.HistoryDecision, error) {
	objs, err := l.List(ctx, ns)
	if err != nil {
		return nil, err
	}
	records, errs := RecordsOf(objs)
	for _, err := range errs {
		log.Warn("a decision that cannot be read covers nothing", "err", err)
	}
	return Covering(records, ns, now), nil
}
