//go:build integration

package controller

import (
	"fmt"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// startDecisions runs the decision controller alone.
func startDecisions(t *testing.T) {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	r := &DecisionReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("cwac-operator"),
		SkipNameValidation: true}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
}

// bindRole gives subjects a Role of rules in ns.
func bindRole(t *testing.T, ns, name string, rules []rbacv1.PolicyRule, subjects ...rbacv1.Subject) {
	t.Helper()
	if err := k8s.Create(ctxT(t), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctxT(t), &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}, Subjects: subjects}); err != nil {
		t.Fatal(err)
	}
}

func applied(t *testing.T, ns, name string) *metav1.Condition {
	t.Helper()
	d := &cwacv1alpha1.CwacIssueDecision{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(d.Status.Conditions, cwacv1alpha1.ConditionApplied)
}

func waitApplied(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("decision %s Applied=%s/%s", name, status, reason), func() (bool, error) {
		c := applied(t, ns, name)
		if c == nil {
			return false, fmt.Errorf("no Applied condition")
		}
		return c.Status == status && c.Reason == reason, fmt.Errorf("%s/%s: %s", c.Status, c.Reason, c.Message)
	})
}

// TestDecisionApplied: a decision applies while its decider may make it
// (RBAC create, and a namespace reader or a grant, by name, group or the
// organisation's sector, covering its organisation) and until its review
// date; a grant that changes decides again, with no polling.
func TestDecisionApplied(t *testing.T) {
	ns := newNamespace(t)
	startDecisions(t)
	decide := []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacissuedecisions"}, Verbs: []string{"create"}}}
	user := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
	}
	group := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
	}
	bindRole(t, ns, "decide", decide, user("alice"), group("oidc:health-web"), user("tess"))
	bindRole(t, ns, "read-scans", []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacscans"}, Verbs: []string{"get"}}},
		user("alice"))
	grant := &cwacv1alpha1.CwacOrganisationGrant{ObjectMeta: metav1.ObjectMeta{Name: "health", Namespace: ns},
		Spec: cwacv1alpha1.CwacOrganisationGrantSpec{Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectGroup, Name: "oidc:health-web"}},
			Organisations: []string{"Ministry of Health"}}}
	transport := &cwacv1alpha1.CwacOrganisationGrant{ObjectMeta: metav1.ObjectMeta{Name: "transport", Namespace: ns},
		Spec: cwacv1alpha1.CwacOrganisationGrantSpec{Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "tess"}},
			Sectors: []string{"Transport"}}}
	for _, g := range []*cwacv1alpha1.CwacOrganisationGrant{grant, transport} {
		if err := k8s.Create(ctxT(t), g); err != nil {
			t.Fatal(err)
		}
	}
	// The scans name the Ministry of Transport's sector.
	createScan(t, ns, "weekly", cwacv1alpha1.CwacScanSpec{Sites: []cwacv1alpha1.Site{
		{URL: "https://transport.example.govt.nz/", Organisation: "Ministry of Transport", Sector: "Transport"}}})

	reviewBy := metav1.NewTime(time.Now().Add(4 * time.Second).Truncate(time.Second))
	for _, d := range []struct {
		name, by, groups, org string
		reviewBy              *metav1.Time
	}{
		{"by-a-reader", "alice", "", "Ministry of Education", nil},
		{"by-a-group-grant", "bob", "oidc:health-web\nsystem:authenticated", "Ministry of Health", nil},
		{"outside-the-grant", "bob", "oidc:health-web", "Ministry of Education", nil},
		{"by-a-sector-grant", "tess", "", "Ministry of Transport", nil},
		{"without-rbac", "carol", "oidc:other", "Ministry of Health", nil},
		{"no-decider", "", "", "Ministry of Health", nil},
		{"until-review", "alice", "", "Ministry of Health", &reviewBy},
	} {
		obj := &cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: ns},
			Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: d.org, Kind: cwacv1alpha1.DecisionWontFix, Reason: "a supplier's widget",
				Rule: "color-contrast", ReviewBy: d.reviewBy}}
		if d.reviewBy != nil {
			obj.Spec.Kind = cwacv1alpha1.DecisionAccepted
		}
		if d.by != "" {
			obj.Annotations = map[string]string{cwacv1alpha1.AnnotationDecidedBy: d.by, cwacv1alpha1.AnnotationDecidedByGroups: d.groups}
		}
		if err := k8s.Create(ctxT(t), obj); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"by-a-reader": "Entitled", "by-a-group-grant": "Entitled", "by-a-sector-grant": "Entitled",
		"until-review": "Entitled", "outside-the-grant": "NotEntitled", "without-rbac": "NotEntitled", "no-decider": "NoDecider"} {
		status := metav1.ConditionFalse
		if want == "Entitled" {
			status = metav1.ConditionTrue
		}
		waitApplied(t, ns, name, status, want)
	}
	d := &cwacv1alpha1.CwacIssueDecision{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "by-a-reader"}, d); err != nil {
		t.Fatal(err)
	}
	if d.Status.DecidedAt == nil || d.Status.ObservedGeneration != d.Generation {
		t.Errorf("status %+v: want when it was decided, at its generation", d.Status)
	}
	want := `bob reads namespace ` + ns + ` by organisation grants, and none covers organisation "Ministry of Education"`
	if c := applied(t, ns, "outside-the-grant"); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}

	// The grant widens: the decision outside it applies, unchanged itself.
	grant.Spec.Organisations = append(grant.Spec.Organisations, "Ministry of Education")
	if err := k8s.Update(ctxT(t), grant); err != nil {
		t.Fatal(err)
	}
	waitApplied(t, ns, "outside-the-grant", metav1.ConditionTrue, "Entitled")
	// The review date comes: the decision stops applying.
	waitApplied(t, ns, "until-review", metav1.ConditionFalse, "Expired")
	if time.Now().Before(reviewBy.Time) {
		t.Errorf("expired before its review date %s", reviewBy.Time)
	}
}
