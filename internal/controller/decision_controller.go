package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// DecisionReconciler keeps each CwacIssueDecision's Applied condition:
// whether its decider may make it (RBAC create on cwacissuedecisions in
// its namespace, and, for someone who does not read the namespace's
// CwacScans, organisation grants that cover its organisation) and whether
// its review date has come. Everything that applies decisions reads that
// condition, so the check is made here once.
type DecisionReconciler struct {
	client.Client
	// APIReader reads finished scans whole (the cache keeps them without
	// their sites); nil: only the cache is read.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Now is the clock (tests may replace it).
	Now func() time.Time
	// SkipNameValidation lets tests start several managers in one process.
	SkipNameValidation bool
}

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions,verbs=get;list;watch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacorganisationgrants,verbs=get;list;watch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscanschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Reconcile decides whether one decision applies: get → ignore not-found →
// defer one status patch (only if changed) → note when this generation was
// decided → the decider's entitlement → the review date, waking at it.
func (r *DecisionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	d := &cwacv1alpha1.CwacIssueDecision{}
	if err := r.Get(ctx, req.NamespacedName, d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := d.DeepCopy()
	defer func() {
		if !equality.Semantic.DeepEqual(before.Status, d.Status) {
			if err := r.Status().Patch(ctx, d, client.MergeFrom(before)); err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "patching the decision's status")
			}
		}
	}()
	now := r.clock()
	noteDecided(d, now)
	applies, err := r.checkEntitled(ctx, d, before)
	if err != nil || !applies {
		return ctrl.Result{}, err
	}
	return r.checkReview(d, before, now), nil
}

func (r *DecisionReconciler) clock() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// noteDecided sets status.decidedAt when it first sees a generation of the
// decision (made or changed) and status.observedGeneration.
func noteDecided(d *cwacv1alpha1.CwacIssueDecision, now time.Time) {
	if d.Status.ObservedGeneration != d.Generation || d.Status.DecidedAt == nil {
		t := metav1.NewTime(now.UTC().Truncate(time.Second))
		d.Status.DecidedAt, d.Status.ObservedGeneration = &t, d.Generation
	}
}

// checkEntitled sets Applied False (NoDecider or NotEntitled, with a
// Warning Event when it changes) unless the decider may make the decision;
// it reports whether they may.
func (r *DecisionReconciler) checkEntitled(ctx context.Context, d, before *cwacv1alpha1.CwacIssueDecision) (bool, error) {
	user := d.Annotations[cwacv1alpha1.AnnotationDecidedBy]
	if user == "" {
		r.setApplied(d, before, metav1.ConditionFalse, cwacv1alpha1.ReasonNoDecider,
			"no decider is recorded: install the chart's decided-by admission policy (Kubernetes 1.36 or later) and apply the decision again")
		return false, nil
	}
	var groups []string
	if g := d.Annotations[cwacv1alpha1.AnnotationDecidedByGroups]; g != "" {
		groups = strings.Split(g, "\n")
	}
	may, err := r.allowed(ctx, user, groups, d.Namespace, "create", "cwacissuedecisions")
	if err != nil {
		return false, err
	}
	if !may {
		r.setApplied(d, before, metav1.ConditionFalse, cwacv1alpha1.ReasonNotEntitled,
			fmt.Sprintf("%s may not make decisions in namespace %s (RBAC create on cwacissuedecisions)", user, d.Namespace))
		return false, nil
	}
	reach, err := r.reachOf(ctx, user, groups, d.Namespace)
	if err != nil {
		return false, err
	}
	if !reach.IsWhole() {
		sector, err := r.sectorOf(ctx, d.Namespace, d.Spec.Organisation)
		if err != nil {
			return false, err
		}
		if !reach.Covers(d.Spec.Organisation, sector) {
			r.setApplied(d, before, metav1.ConditionFalse, cwacv1alpha1.ReasonNotEntitled,
				fmt.Sprintf("%s reads namespace %s by organisation grants, and none covers organisation %q", user, d.Namespace, d.Spec.Organisation))
			return false, nil
		}
	}
	return true, nil
}

// checkReview sets Applied True (Entitled) until spec.reviewBy, False
// (Expired) from then on; before it, the decision wakes at it.
func (r *DecisionReconciler) checkReview(d, before *cwacv1alpha1.CwacIssueDecision, now time.Time) ctrl.Result {
	if rb := d.Spec.ReviewBy; rb != nil {
		if !now.Before(rb.Time) {
			r.setApplied(d, before, metav1.ConditionFalse, cwacv1alpha1.ReasonExpired,
				"review date "+rb.UTC().Format(time.RFC3339)+" has come: the findings are open again until someone decides anew")
			return ctrl.Result{}
		}
		r.setApplied(d, before, metav1.ConditionTrue, cwacv1alpha1.ReasonEntitled, "applies until "+rb.UTC().Format(time.RFC3339))
		return ctrl.Result{RequeueAfter: rb.Sub(now) + tickSlack}
	}
	r.setApplied(d, before, metav1.ConditionTrue, cwacv1alpha1.ReasonEntitled, "applies")
	return ctrl.Result{}
}

// setApplied sets the Applied condition, with a Warning Event when a
// decision stops applying for a reason someone must act on.
func (r *DecisionReconciler) setApplied(d, before *cwacv1alpha1.CwacIssueDecision, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&d.Status.Conditions, metav1.Condition{Type: cwacv1alpha1.ConditionApplied, Status: status, Reason: reason,
		Message: textcap.Head(msg, maxConditionMessageBytes), ObservedGeneration: d.Generation})
	old := meta.FindStatusCondition(before.Status.Conditions, cwacv1alpha1.ConditionApplied)
	if status == metav1.ConditionFalse && (old == nil || old.Reason != reason) && r.Recorder != nil {
		r.Recorder.Eventf(d, nil, corev1.EventTypeWarning, reason, "Decide", "%s", textcap.Head(msg, maxConditionMessageBytes))
	}
}

// allowed asks the API server whether the user (with the groups) may do
// verb on the resource of the namespace.
func (r *DecisionReconciler) allowed(ctx context.Context, user string, groups []string, ns, verb, resource string) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: cwacv1alpha1.GroupVersion.Group, Resource: resource}}}
	if err := r.Create(ctx, sar); err != nil {
		return false, fmt.Errorf("asking whether %s may %s %s in %s: %w", user, verb, resource, ns, err)
	}
	return sar.Status.Allowed, nil
}

// reachOf is what the decider may read of the namespace: every
// organisation for a reader of its CwacScans, else what its grants give.
func (r *DecisionReconciler) reachOf(ctx context.Context, user string, groups []string, ns string) (orgaccess.Reach, error) {
	whole, err := r.allowed(ctx, user, groups, ns, "get", "cwacscans")
	if err != nil || whole {
		return orgaccess.Whole(), err
	}
	var grants cwacv1alpha1.CwacOrganisationGrantList
	if err := r.List(ctx, &grants, client.InNamespace(ns)); err != nil {
		return orgaccess.Reach{}, fmt.Errorf("listing the grants of %s: %w", ns, err)
	}
	return orgaccess.Granted(grants.Items, user, groups), nil
}

// sectorOf is the organisation's sector as the namespace's schedules and
// scans name it ("" when none does): a sector grant covers it. The cache
// keeps the sites of schedules and unfinished scans; finished scans are
// read from the API server a page at a time, until one names it.
func (r *DecisionReconciler) sectorOf(ctx context.Context, ns, organisation string) (string, error) {
	find := func(sites []cwacv1alpha1.Site) string {
		for _, s := range sites {
			if s.Organisation == organisation && s.Sector != "" {
				return s.Sector
			}
		}
		return ""
	}
	var schedules cwacv1alpha1.CwacScanScheduleList
	if err := r.List(ctx, &schedules, client.InNamespace(ns)); err != nil {
		return "", fmt.Errorf("listing the schedules of %s: %w", ns, err)
	}
	for i := range schedules.Items {
		if s := find(schedules.Items[i].Spec.ScanTemplate.Spec.Sites); s != "" {
			return s, nil
		}
	}
	var scans cwacv1alpha1.CwacScanList
	if err := r.List(ctx, &scans, client.InNamespace(ns)); err != nil {
		return "", fmt.Errorf("listing the scans of %s: %w", ns, err)
	}
	for i := range scans.Items {
		if s := find(scans.Items[i].Spec.Sites); s != "" {
			return s, nil
		}
	}
	if r.APIReader == nil {
		return "", nil
	}
	opts := []client.ListOption{client.InNamespace(ns), client.Limit(sectorPage)}
	for {
		var page cwacv1alpha1.CwacScanList
		if err := r.APIReader.List(ctx, &page, opts...); err != nil {
			return "", fmt.Errorf("listing the scans of %s: %w", ns, err)
		}
		for i := range page.Items {
			if s := find(page.Items[i].Spec.Sites); s != "" {
				return s, nil
			}
		}
		if page.Continue == "" {
			return "", nil
		}
		opts = []client.ListOption{client.InNamespace(ns), client.Limit(sectorPage), client.Continue(page.Continue)}
	}
}

// sectorPage is how many finished scans one read of sectorOf takes.
const sectorPage = 100

// SetupWithManager watches decisions, and the grants of their namespace:
// a grant that changes may give or take a decider's organisation.
func (r *DecisionReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("cwacissuedecision").
		For(&cwacv1alpha1.CwacIssueDecision{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&cwacv1alpha1.CwacOrganisationGrant{}, handler.EnqueueRequestsFromMapFunc(r.decisionsOfNamespace)).
		WithOptions(controller.Options{SkipNameValidation: &r.SkipNameValidation}).
		Complete(r)
}

// decisionsOfNamespace are the decisions in the object's namespace.
func (r *DecisionReconciler) decisionsOfNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	var list cwacv1alpha1.CwacIssueDecisionList
	if err := r.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing decisions after a grant changed")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	slices.SortFunc(out, func(a, b reconcile.Request) int { return strings.Compare(a.Name, b.Name) })
	return out
}
