package digestsend

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/decisionapi"
	"github.com/a11y-dev/cwac-operator/internal/digest"
	"github.com/a11y-dev/cwac-operator/internal/mailer"
	"github.com/a11y-dev/cwac-operator/internal/owners"
	"github.com/a11y-dev/cwac-operator/internal/schedule"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// maxErrorBytes bounds a recipient's lastError (the API's limit).
const maxErrorBytes = 1024

// round is one look at one digest.
type round struct {
	s     *Sender
	d     *cwacv1alpha1.CwacDigest
	saved *cwacv1alpha1.CwacDigest
	now   time.Time
	// orgs are the organisations' parts gathered this look, by name;
	// owned the organisations each address owns, and applied the applied
	// decisions by organisation, each read once a look.
	orgs    map[string]digest.Organisation
	owned   map[string][]string
	applied map[string][]decision.Decision
}

// save records the status (only if changed).
func (r *round) save(ctx context.Context) error { return saveStatus(ctx, r.s.cfg.Client, r.d, r.saved) }

// run checks the schedule (InvalidSchedule, InvalidTimeZone, Suspended,
// MailNotConfigured), starts a new period at a tick (recording it and its
// recipients before anything is sent; NoRecipients), and sends the
// period's digests that are due (Sending, Retrying, SendFailed, Sent). It
// says when to look again.
func (r *round) run(ctx context.Context) time.Duration {
	d := r.d
	d.Status.ObservedGeneration = d.Generation
	sched, err := schedule.Parse(string(d.Spec.Schedule), string(d.Spec.TimeZone))
	if err != nil {
		reason := cwacv1alpha1.ReasonInvalidSchedule
		if fe := (*schedule.FieldError)(nil); errors.As(err, &fe) && fe.Field == schedule.FieldTimeZone {
			reason = cwacv1alpha1.ReasonInvalidTimeZone
		}
		d.Status.NextDigestAt = nil
		r.setSent(metav1.ConditionFalse, reason, err.Error())
		return 0
	}
	if d.Spec.Suspend {
		d.Status.NextDigestAt = nil
		r.setSent(metav1.ConditionFalse, cwacv1alpha1.ReasonSuspended, "spec.suspend is true: no digest is sent")
		return 0
	}
	if r.s.cfg.Mail == nil {
		d.Status.NextDigestAt = nil
		r.setSent(metav1.ConditionFalse, cwacv1alpha1.ReasonMailNotConfigured,
			"the release has no SMTP server: set the chart's digests.smtp values")
		return 0
	}
	var last *digest.Period
	if p := d.Status.Period; p != nil {
		last = &digest.Period{From: p.From.Time, To: p.To.Time}
	}
	due := digest.Due(sched, d.CreationTimestamp.Time, last, r.now)
	d.Status.NextDigestAt = timeOrNil(due.Next)
	untilTick := untilOrZero(due.Next, r.now)
	if due.Period.To.IsZero() {
		return untilTick // before the first tick
	}
	if last == nil || !due.Period.To.Equal(last.To) {
		if err := r.startPeriod(ctx, due.Period); err != nil {
			r.s.cfg.Log.Error("digests: starting a period", "digest", d.Name, "err", err)
			return r.s.cfg.Retry.First
		}
	}
	if len(d.Status.Recipients) == 0 {
		r.setSent(metav1.ConditionFalse, cwacv1alpha1.ReasonNoRecipients,
			"no organisation it covers has an owner with an email address (declare owners with the sites)")
		return untilTick
	}
	retry := r.send(ctx, due)
	return minPositive(untilTick, retry)
}

// startPeriod records the new period and its recipients, before anything
// of it is sent: whoever looks next continues it rather than starting it
// again.
func (r *round) startPeriod(ctx context.Context, p digest.Period) error {
	recipients, err := r.recipients(ctx)
	if err != nil {
		return err
	}
	d := r.d
	d.Status.Period = &cwacv1alpha1.DigestPeriod{From: metav1.NewTime(p.From), To: metav1.NewTime(p.To)}
	d.Status.Recipients = d.Status.Recipients[:0]
	for _, rc := range recipients {
		d.Status.Recipients = append(d.Status.Recipients, cwacv1alpha1.DigestRecipient{Email: rc.Email})
	}
	if len(recipients) > 0 {
		r.setSent(metav1.ConditionFalse, cwacv1alpha1.ReasonSending, fmt.Sprintf("sending %d digests", len(recipients)))
	}
	if len(recipients) > cwacv1alpha1.MaxDigestRecipients {
		d.Status.Recipients = d.Status.Recipients[:cwacv1alpha1.MaxDigestRecipients]
		r.s.event(ctx, d, true, cwacv1alpha1.ReasonSendFailed, fmt.Sprintf("%d owners have an email address; only the first %d "+
			"(by address) receive a digest: split the organisations between CwacDigests (spec.organisations)",
			len(recipients), cwacv1alpha1.MaxDigestRecipients))
	}
	return r.save(ctx)
}

// recipients are the email owners of the organisations the digest covers,
// by the namespace's schedules and scans (owners.Of).
func (r *round) recipients(ctx context.Context) ([]owners.Recipient, error) {
	decls, err := r.declarations(ctx)
	if err != nil {
		return nil, err
	}
	rs := owners.Recipients(owners.Of(decls), r.d.Spec.Organisations)
	r.owned = map[string][]string{}
	for _, rc := range rs {
		r.owned[strings.ToLower(rc.Email)] = rc.Organisations
	}
	return rs, nil
}

// declarations are the sites of the namespace's schedules and scans.
func (r *round) declarations(ctx context.Context) ([]owners.Declaration, error) {
	ns := client.InNamespace(r.d.Namespace)
	var schedules cwacv1alpha1.CwacScanScheduleList
	if err := r.s.cfg.Client.List(ctx, &schedules, ns); err != nil {
		return nil, fmt.Errorf("listing the schedules: %w", err)
	}
	var scans cwacv1alpha1.CwacScanList
	if err := r.s.cfg.Client.List(ctx, &scans, ns); err != nil {
		return nil, fmt.Errorf("listing the scans: %w", err)
	}
	decls := owners.Declarations(schedules.Items, scans.Items, r.now)
	return decls, nil
}

// send sends the period's digests that are due, recording each as the
// SMTP server accepts it, and sets Sent from the outcome. It says when the
// earliest retry is due (0: none).
func (r *round) send(ctx context.Context, due digest.Round) time.Duration {
	d := r.d
	period := digest.Period{From: d.Status.Period.From.Time, To: d.Status.Period.To.Time}
	var retry time.Time
	for i := range d.Status.Recipients {
		rc := &d.Status.Recipients[i]
		if rc.SentAt != nil || rc.Attempts >= r.s.cfg.Retry.Attempts {
			continue
		}
		if rc.NextAttemptAt != nil && r.now.Before(rc.NextAttemptAt.Time) {
			retry = earliest(retry, rc.NextAttemptAt.Time)
			continue
		}
		err := r.sendOne(ctx, rc.Email, period, due.Next)
		if err == nil {
			t := metav1.NewTime(r.s.cfg.Now().UTC().Truncate(time.Second))
			rc.SentAt, rc.LastError, rc.NextAttemptAt = &t, "", nil
		} else {
			rc.Attempts++
			rc.LastError = textcap.Head(err.Error(), maxErrorBytes)
			rc.NextAttemptAt = nil
			if rc.Attempts < r.s.cfg.Retry.Attempts {
				next := r.now.Add(r.s.cfg.Retry.After(rc.Attempts)).UTC()
				rc.NextAttemptAt = &metav1.Time{Time: next}
				retry = earliest(retry, next)
			} else {
				r.s.event(ctx, d, true, cwacv1alpha1.ReasonSendFailed,
					fmt.Sprintf("the digest to %s was not accepted after %d tries: %s", rc.Email, rc.Attempts, rc.LastError))
			}
		}
		// Recorded at once: a restart after this never sends it again.
		if err := r.save(ctx); err != nil {
			r.s.cfg.Log.Error("digests: recording a digest sent", "digest", d.Name, "err", err)
			return r.s.cfg.Retry.First
		}
	}
	r.setOutcome(ctx, retry)
	return untilOrZero(retry, r.now)
}

// sendOne gathers, writes and sends one address's digest.
func (r *round) sendOne(ctx context.Context, email string, p digest.Period, next time.Time) error {
	if r.owned == nil {
		if _, err := r.recipients(ctx); err != nil {
			return err
		}
	}
	theirs := r.owned[strings.ToLower(email)]
	if len(theirs) == 0 {
		return fmt.Errorf("%s owns none of the digest's organisations any more", email)
	}
	dg := digest.Digest{Period: p}
	for _, org := range theirs {
		o, err := r.organisation(ctx, org, p, next)
		if err != nil {
			return err
		}
		dg.Organisations = append(dg.Organisations, o)
	}
	msg, err := digest.Render(dg)
	if err != nil {
		return err
	}
	msg.ID = messageID(r.d, p.To, strings.ToLower(email))
	return mailer.Send(ctx, *r.s.cfg.Mail, []string{email}, msg)
}

// organisation is one organisation's part, gathered once a look.
func (r *round) organisation(ctx context.Context, org string, p digest.Period, next time.Time) (digest.Organisation, error) {
	if o, ok := r.orgs[org]; ok {
		return o, nil
	}
	due, err := r.dueForReview(ctx, org, next)
	if err != nil {
		return digest.Organisation{}, err
	}
	o, err := digest.Gather(ctx, r.s.cfg.Store, r.d.Namespace, org, p, r.s.cfg.DashboardURL, due)
	if errors.Is(err, store.ErrNotFound) {
		// Declared but not yet scanned: the digest says there were no scans.
		err = nil
	}
	if err != nil {
		return digest.Organisation{}, fmt.Errorf("reading %s's history: %w", org, err)
	}
	if r.orgs == nil {
		r.orgs = map[string]digest.Organisation{}
	}
	r.orgs[org] = o
	return o, nil
}

// dueForReview are the organisation's applied decisions whose review date
// comes before the next digest.
func (r *round) dueForReview(ctx context.Context, org string, next time.Time) ([]decision.Decision, error) {
	if r.applied == nil {
		var list cwacv1alpha1.CwacIssueDecisionList
		if err := r.s.cfg.Client.List(ctx, &list, client.InNamespace(r.d.Namespace)); err != nil {
			return nil, fmt.Errorf("listing the decisions: %w", err)
		}
		r.applied = map[string][]decision.Decision{}
		for i := range list.Items {
			if dc, applies, err := decisionapi.FromObject(&list.Items[i]); err == nil && applies {
				r.applied[dc.Organisation] = append(r.applied[dc.Organisation], dc)
			}
		}
	}
	until := next
	if until.IsZero() {
		until = r.now
	}
	return decision.DueForReview(r.applied[org], until), nil
}

// setOutcome sets Sent from the recipients: True once all have their
// digest, Retrying while some wait for a retry, SendFailed when some were
// given up; an Event when the period is done.
func (r *round) setOutcome(ctx context.Context, retry time.Time) {
	sent, failed := 0, 0
	for _, rc := range r.d.Status.Recipients {
		switch {
		case rc.SentAt != nil:
			sent++
		case rc.Attempts >= r.s.cfg.Retry.Attempts:
			failed++
		}
	}
	total := len(r.d.Status.Recipients)
	was := meta.FindStatusCondition(r.saved.Status.Conditions, cwacv1alpha1.ConditionSent)
	switch {
	case sent == total:
		r.setSent(metav1.ConditionTrue, cwacv1alpha1.ReasonSent, fmt.Sprintf("%d digests sent for the period ending %s", sent,
			r.d.Status.Period.To.UTC().Format(time.RFC3339)))
		if was == nil || was.Reason != cwacv1alpha1.ReasonSent || was.Message != r.condition().Message {
			r.s.event(ctx, r.d, false, cwacv1alpha1.ReasonSent, r.condition().Message)
		}
	case !retry.IsZero():
		r.setSent(metav1.ConditionFalse, cwacv1alpha1.ReasonRetrying, fmt.Sprintf("%d of %d digests sent; the next try is at %s",
			sent, total, retry.UTC().Format(time.RFC3339)))
	default:
		r.setSent(metav1.ConditionFalse, cwacv1alpha1.ReasonSendFailed, fmt.Sprintf(
			"%d of %d digests sent; %d were not accepted after %d tries each (status.recipients says why)",
			sent, total, failed, r.s.cfg.Retry.Attempts))
	}
}

func (r *round) condition() *metav1.Condition {
	return meta.FindStatusCondition(r.d.Status.Conditions, cwacv1alpha1.ConditionSent)
}

// setSent sets the Sent condition.
func (r *round) setSent(status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&r.d.Status.Conditions, metav1.Condition{Type: cwacv1alpha1.ConditionSent, Status: status,
		Reason: reason, Message: textcap.Head(msg, maxErrorBytes), ObservedGeneration: r.d.Generation})
}

func timeOrNil(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t.UTC()}
}

func untilOrZero(t, now time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return max(t.Sub(now), time.Second)
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func minPositive(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}
