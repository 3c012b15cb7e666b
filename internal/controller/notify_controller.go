package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// DefaultNotifyWorkers is how many scans' notifications are sent at once.
const DefaultNotifyWorkers = 4

// NotifyOptions configure the notification controller.
type NotifyOptions struct {
	// Lists are the scan-target policy's lists; receivers are held to them
	// (plus AllowCIDRs), names resolved when each connection is made.
	Lists urlpolicy.Lists
	// AllowCIDRs open ranges to receivers only (not to scans), e.g. a
	// cluster's own receiver.
	AllowCIDRs []netip.Prefix
	// AllowHTTP lets receivers use http; https only otherwise.
	AllowHTTP bool
	// Timeout bounds one delivery (0: notify.DefaultTimeout).
	Timeout time.Duration
	// Retry is the backoff of failed deliveries and how long they are retried.
	Retry notify.Retry
	// DashboardURL, when set, is linked from every message.
	DashboardURL string
	// Workers is how many scans are handled at once (0: DefaultNotifyWorkers).
	Workers int
	// Resolver resolves receivers' names (nil: the system's).
	Resolver urlpolicy.Resolver
}

// The operator reads a receiver's Secrets one get at a time, never a list
// or a watch, so it holds no Secret in its cache and needs no more.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// NotificationReconciler sends finished scans' notifications. It is its
// own controller with its own workers: a slow or dead receiver holds one
// of its workers for at most a delivery's timeout and never a scan's
// reconcile. It works from status alone (status.notifications), so a
// restart neither loses nor repeats a delivery recorded there.
type NotificationReconciler struct {
	client.Client
	// APIReader reads scans whole (the cache keeps little of a finished
	// scan) and Secrets (never cached).
	APIReader client.Reader
	Recorder  events.EventRecorder
	Sender    *notify.Sender
	Options   NotifyOptions
	now       func() time.Time
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool
}

func (r *NotificationReconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// newNotificationReconciler builds the reconciler with its sender.
func newNotificationReconciler(mgr ctrl.Manager, o NotifyOptions, now func() time.Time, skipNames bool) (*NotificationReconciler, error) {
	cfg, err := o.Lists.Config()
	if err != nil {
		return nil, err
	}
	cfg.AllowCIDRs = append(cfg.AllowCIDRs, o.AllowCIDRs...)
	// A receiver's name is always resolved, and the connection made only
	// to what it resolved to: the check happens at dial time.
	cfg.Resolver = o.Resolver
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	return &NotificationReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("cwac-operator"),
		Sender: notify.NewSender(urlpolicy.New(cfg), o.AllowHTTP, o.Timeout), Options: o, now: now, SkipNameValidation: skipNames,
	}, nil
}

// SetupWithManager watches finished scans with notifications to settle.
func (r *NotificationReconciler) SetupWithManager(mgr ctrl.Manager) error {
	workers := r.Options.Workers
	if workers <= 0 {
		workers = DefaultNotifyWorkers
	}
	pending := predicate.NewPredicateFuncs(func(o client.Object) bool {
		s, ok := scanOf(o)
		return ok && s.Status.Phase.Finished() && s.DeletionTimestamp == nil && s.NotificationsPending()
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&cwacv1alpha1.CwacScan{}, builder.WithPredicates(pending)).
		Named("notifications").
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, SkipNameValidation: &r.SkipNameValidation}).
		Complete(r)
}

// Reconcile decides a finished scan's events once, then delivers each
// pending one that is due, and records what happened.
func (r *NotificationReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	scan := &cwacv1alpha1.CwacScan{}
	// The scan is read whole from the API server: the cache keeps too
	// little of a finished scan, and may lag behind this controller's own
	// last write (a stale read would send twice).
	if err := r.APIReader.Get(ctx, req.NamespacedName, scan); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !scan.Status.Phase.Finished() || scan.DeletionTimestamp != nil || !scan.NotificationsPending() {
		return ctrl.Result{}, nil
	}
	previous, compared := r.earlierScans(ctx, scan)
	decision := notify.Decide(notify.Input{Scan: scan, Previous: previous, Compared: compared})
	if scan.Status.Notifications == nil {
		base := scan.DeepCopy()
		deliveries := notify.Plan(decision, scan.Spec.Notifications.Receivers)
		scan.Status.Notifications = &cwacv1alpha1.NotificationStatus{
			EvaluatedTime: metav1.NewTime(r.clock()), ComparedWith: decision.ComparedWith,
			Events: decision.Events, Deliveries: deliveries,
		}
		if len(deliveries) == 0 {
			r.setCondition(scan, metav1.ConditionTrue, cwacv1alpha1.ReasonNothingToSend, "no event a receiver subscribes to was raised")
		}
		// The decision is recorded before anything is sent: judged again
		// later, against scans since pruned, it could differ.
		if err := r.patch(ctx, base, scan); err != nil {
			return ctrl.Result{}, err
		}
		if len(deliveries) == 0 {
			return ctrl.Result{}, nil
		}
	}
	return r.deliver(ctx, scan, decision)
}

// deliver sends every due Pending delivery at once (one receiver never
// waits for another), records the outcomes in one status write, and asks
// to be woken when the next retry is due.
func (r *NotificationReconciler) deliver(ctx context.Context, scan *cwacv1alpha1.CwacScan, d notify.Decision) (ctrl.Result, error) {
	base := scan.DeepCopy()
	now := r.clock()
	secrets := &secretReader{reader: r.APIReader, namespace: scan.Namespace, cache: map[string]*corev1.Secret{}}
	deliveries := scan.Status.Notifications.Deliveries
	outcomes := make([]error, len(deliveries))
	var wg sync.WaitGroup
	attempted := 0
	for i := range deliveries {
		dl := &deliveries[i]
		if dl.State != cwacv1alpha1.DeliveryPending || r.Options.Retry.NextAttempt(*dl).After(now) {
			continue
		}
		rcv := receiverNamed(scan, dl.Receiver)
		attempted++
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = r.send(ctx, scan, d, rcv, dl.Event, secrets, now)
		}()
	}
	wg.Wait()
	if attempted == 0 {
		return r.requeue(deliveries), nil
	}

	var warnings []string
	for i := range deliveries {
		dl := &deliveries[i]
		if dl.State != cwacv1alpha1.DeliveryPending || r.Options.Retry.NextAttempt(*dl).After(now) {
			continue
		}
		stamp := metav1.NewTime(now)
		dl.Attempts++
		dl.LastAttemptTime = &stamp
		if dl.FirstAttemptTime == nil {
			dl.FirstAttemptTime = &stamp
		}
		err := outcomes[i]
		if err == nil {
			dl.State, dl.SentTime, dl.LastError = cwacv1alpha1.DeliverySent, &stamp, ""
			continue
		}
		ne := asNotifyError(err)
		dl.LastError = textcap.Head(err.Error(), 512)
		what := fmt.Sprintf("receiver %q, event %s: %s", dl.Receiver, dl.Event, dl.LastError)
		switch {
		case ne.Permanent || r.Options.Retry.GiveUp(*dl):
			dl.State = cwacv1alpha1.DeliveryFailed
			reason := ne.Reason
			if reason == cwacv1alpha1.ReasonRetrying {
				reason = cwacv1alpha1.ReasonDeliveryFailed
				what = fmt.Sprintf("%s; gave up after %d attempts", what, dl.Attempts)
			}
			r.setCondition(scan, metav1.ConditionFalse, reason, what)
			warnings = append(warnings, dl.Receiver, reason, what)
		case dl.Attempts == 1 && ne.Reason != cwacv1alpha1.ReasonRetrying:
			// Bad input (a Secret missing) is said at once, not after an hour.
			r.setCondition(scan, metav1.ConditionFalse, ne.Reason, what+"; retrying")
			warnings = append(warnings, dl.Receiver, ne.Reason, what+"; retrying")
		default:
			if !r.failedBefore(scan) {
				r.setCondition(scan, metav1.ConditionFalse, ne.Reason, what+"; retrying")
			}
		}
	}
	if all, failed := settled(deliveries); all && !failed {
		r.setCondition(scan, metav1.ConditionTrue, cwacv1alpha1.ReasonDelivered,
			fmt.Sprintf("%d notifications delivered", len(deliveries)))
	}
	// The outcome is written even when the manager is stopping: a send
	// that happened and is not recorded would be repeated.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.recordOutcome(wctx, base, scan); err != nil {
		return ctrl.Result{}, err
	}
	// One Event per receiver and reason: the Events API folds Events of
	// one object, reason and action into one series that keeps the first
	// note, so the receiver is part of the action.
	for i := 0; i < len(warnings); i += 3 {
		r.Recorder.Eventf(scan, nil, corev1.EventTypeWarning, warnings[i+1], "Notify/"+warnings[i], "%s", textcap.Head(warnings[i+2], maxEventNoteBytes))
	}
	return r.requeue(deliveries), nil
}

// requeue wakes the reconciler when the earliest pending retry is due.
func (r *NotificationReconciler) requeue(deliveries []cwacv1alpha1.NotificationDelivery) ctrl.Result {
	var next time.Time
	for _, dl := range deliveries {
		if dl.State != cwacv1alpha1.DeliveryPending {
			continue
		}
		if at := r.Options.Retry.NextAttempt(dl); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	if next.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(next.Sub(r.clock()), 10*time.Millisecond)}
}

// SetupNotifications adds the notification controller to mgr.
func SetupNotifications(mgr ctrl.Manager, o NotifyOptions, now func() time.Time, skipNameValidation bool) error {
	r, err := newNotificationReconciler(mgr, o, now, skipNameValidation)
	if err != nil {
		return err
	}
	return r.SetupWithManager(mgr)
}

// send delivers one event to one receiver.
func (r *NotificationReconciler) send(ctx context.Context, scan *cwacv1alpha1.CwacScan, d notify.Decision,
	rcv *cwacv1alpha1.NotificationReceiver, e cwacv1alpha1.NotificationEvent, secrets *secretReader, now time.Time) error {
	if rcv == nil {
		return &notify.Error{Reason: cwacv1alpha1.ReasonDeliveryFailed, Permanent: true, Msg: "the receiver is no longer in spec.notifications"}
	}
	url, err := secrets.value(ctx, "urlSecretRef", rcv.URLSecretRef)
	if err != nil {
		return err
	}
	var key []byte
	if ref := rcv.HMACSecretRef; ref != nil {
		k, err := secrets.value(ctx, "hmacSecretRef", *ref)
		if err != nil {
			return err
		}
		key = []byte(k)
	}
	p, err := notify.Build(scan, d, *rcv, e, notify.Options{DashboardURL: r.Options.DashboardURL})
	if err != nil {
		return &notify.Error{Reason: cwacv1alpha1.ReasonDeliveryFailed, Permanent: true, Msg: err.Error()}
	}
	body, headers, err := notify.Render(p, rcv.Type, key, now)
	if err != nil {
		return &notify.Error{Reason: cwacv1alpha1.ReasonDeliveryFailed, Permanent: true, Msg: err.Error()}
	}
	// A URL put in a Secret from a file often ends in a line break.
	return r.Sender.Send(ctx, strings.TrimSpace(url), body, headers)
}

// earlierScans finds what the scan is judged against: the scan before it
// (its schedule's previous finished scan; outside a schedule, its
// baseline) and the Complete scan its figures were compared with (its
// baseline). Either is nil when gone.
func (r *NotificationReconciler) earlierScans(ctx context.Context, scan *cwacv1alpha1.CwacScan) (previous, compared *cwacv1alpha1.CwacScan) {
	var baseline *cwacv1alpha1.CwacScan
	if scan.Spec.Baseline != "" {
		baseline = r.wholeScan(ctx, scan.Namespace, scan.Spec.Baseline)
		if baseline != nil && !baseline.Status.Phase.Finished() {
			baseline = nil
		}
	}
	if baseline != nil && baseline.Status.Phase == cwacv1alpha1.PhaseComplete {
		compared = baseline
	}
	owner := metav1.GetControllerOf(scan)
	if owner == nil || owner.Kind != "CwacScanSchedule" {
		return baseline, compared
	}
	var list cwacv1alpha1.CwacScanList
	if err := r.List(ctx, &list, client.InNamespace(scan.Namespace)); err != nil {
		return nil, compared
	}
	var best *cwacv1alpha1.CwacScan
	for i := range list.Items {
		s := &list.Items[i]
		o := metav1.GetControllerOf(s)
		if o == nil || o.UID != owner.UID || s.UID == scan.UID || !s.Status.Phase.Finished() || !earlier(s, scan) {
			continue
		}
		if best == nil || earlier(best, s) {
			best = s
		}
	}
	if best == nil {
		return nil, compared
	}
	return r.wholeScan(ctx, scan.Namespace, best.Name), compared
}

// earlier orders a schedule's scans by their tick, then creation.
func earlier(a, b *cwacv1alpha1.CwacScan) bool {
	ta, tb := a.Annotations[cwacv1alpha1.AnnotationScheduledTime], b.Annotations[cwacv1alpha1.AnnotationScheduledTime]
	if ta != "" && tb != "" && ta != tb {
		return ta < tb // RFC 3339 in UTC sorts as time
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

func (r *NotificationReconciler) wholeScan(ctx context.Context, ns, name string) *cwacv1alpha1.CwacScan {
	s := &cwacv1alpha1.CwacScan{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		return nil
	}
	return s
}

// recordOutcome writes what was sent. Another writer may have changed
// the scan meanwhile (a conflict): the outcome is then put on a fresh read
// and written again, never dropped, since a dropped record would send again.
func (r *NotificationReconciler) recordOutcome(ctx context.Context, base, scan *cwacv1alpha1.CwacScan) error {
	err := r.patch(ctx, base, scan)
	for try := 0; apierrors.IsConflict(err) && try < 5; try++ {
		fresh := &cwacv1alpha1.CwacScan{}
		if err = r.APIReader.Get(ctx, client.ObjectKeyFromObject(scan), fresh); err != nil {
			return err
		}
		base = fresh.DeepCopy()
		fresh.Status.Notifications = scan.Status.Notifications
		if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionNotificationsDelivered); c != nil {
			meta.SetStatusCondition(&fresh.Status.Conditions, *c)
		}
		err = r.patch(ctx, base, fresh)
	}
	return err
}

func (r *NotificationReconciler) patch(ctx context.Context, base, scan *cwacv1alpha1.CwacScan) error {
	return r.Status().Patch(ctx, scan, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
}

func (r *NotificationReconciler) setCondition(scan *cwacv1alpha1.CwacScan, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&scan.Status.Conditions, metav1.Condition{
		Type: cwacv1alpha1.ConditionNotificationsDelivered, Status: status, Reason: reason,
		Message: textcap.Head(msg, maxConditionMessageBytes), ObservedGeneration: scan.Generation,
	})
}

// failedBefore: a delivery was given up, and the condition says so; a
// later retry's error does not hide it.
func (r *NotificationReconciler) failedBefore(scan *cwacv1alpha1.CwacScan) bool {
	for _, d := range scan.Status.Notifications.Deliveries {
		if d.State == cwacv1alpha1.DeliveryFailed {
			return true
		}
	}
	return false
}

func settled(ds []cwacv1alpha1.NotificationDelivery) (all, failed bool) {
	all = true
	for _, d := range ds {
		switch d.State {
		case cwacv1alpha1.DeliveryPending:
			all = false
		case cwacv1alpha1.DeliveryFailed:
			failed = true
		}
	}
	return all, failed
}

func receiverNamed(scan *cwacv1alpha1.CwacScan, name string) *cwacv1alpha1.NotificationReceiver {
	for i := range scan.Spec.Notifications.Receivers {
		if scan.Spec.Notifications.Receivers[i].Name == name {
			return &scan.Spec.Notifications.Receivers[i]
		}
	}
	return nil
}

func asNotifyError(err error) *notify.Error {
	var ne *notify.Error
	if errors.As(err, &ne) {
		return ne
	}
	return &notify.Error{Reason: cwacv1alpha1.ReasonRetrying, Msg: err.Error()}
}

// secretReader reads the scan's Secrets, each once per reconcile.
type secretReader struct {
	reader    client.Reader
	namespace string
	mu        sync.Mutex
	cache     map[string]*corev1.Secret
	errs      map[string]error
}

// value is a Secret key's value, or an error naming the receiver, the
// field and the Secret (never the value).
func (s *secretReader) value(ctx context.Context, field string, ref cwacv1alpha1.SecretKeyRef) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sec, ok := s.cache[ref.Name]
	if !ok {
		sec = &corev1.Secret{}
		if err := s.reader.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: ref.Name}, sec); err != nil {
			sec = nil
			if s.errs == nil {
				s.errs = map[string]error{}
			}
			s.errs[ref.Name] = err
		}
		s.cache[ref.Name] = sec
	}
	if sec == nil {
		err := s.errs[ref.Name]
		if apierrors.IsNotFound(err) {
			return "", &notify.Error{Reason: cwacv1alpha1.ReasonSecretNotFound,
				Msg: fmt.Sprintf("%s: Secret %q not found in namespace %s", field, ref.Name, s.namespace)}
		}
		return "", &notify.Error{Reason: cwacv1alpha1.ReasonRetrying, Msg: fmt.Sprintf("%s: reading Secret %q: %v", field, ref.Name, err)}
	}
	v := sec.Data[ref.Key]
	if len(v) == 0 {
		return "", &notify.Error{Reason: cwacv1alpha1.ReasonSecretKeyMissing,
			Msg: fmt.Sprintf("%s: Secret %q has no key %q (or it is empty)", field, ref.Name, ref.Key)}
	}
	return string(v), nil
}
