//go:build integration

package controller

import (
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/testutil/admissionpolicy"
	"github.com/a11y-dev/cwac-operator/internal/testutil/rbacwait"
)

// TestDecidedByRecorded: with config/admission's policy (its MCP server
// variable set as the chart sets it), a decision records the request's own
// user whatever the request wrote, except that the MCP server's account
// names whom it decides for (and is named itself when it names no one).
func TestDecidedByRecorded(t *testing.T) {
	ns := newNamespace(t)
	mcp := "system:serviceaccount:" + ns + ":mcp"
	installDecidedByPolicy(t, ns, mcp)
	alice := "system:serviceaccount:" + ns + ":alice"
	as := decidersIn(t, ns, alice, mcp)

	decision := func(name, forged string) *cwacv1alpha1.CwacIssueDecision {
		d := &cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: "Ministry of Health", Kind: cwacv1alpha1.DecisionWontFix,
				Reason: "a supplier's widget", Rule: "color-contrast"}}
		if forged != "" {
			d.Annotations = map[string]string{cwacv1alpha1.AnnotationDecidedBy: forged}
		}
		return d
	}
	// The policy takes effect shortly after it is created, and types its
	// mutation against the CRD's schema, published a moment after the CRD.
	deadline := time.Now().Add(60 * time.Second)
	for {
		d := decision("probe", "someone-else")
		err := as[alice].Create(ctxT(t), d)
		if err == nil && d.Annotations[cwacv1alpha1.AnnotationDecidedBy] == alice {
			_ = as[alice].Delete(ctxT(t), d)
			break
		}
		if err != nil && !apierrors.IsServiceUnavailable(err) {
			t.Fatal(err)
		}
		if err == nil {
			_ = as[alice].Delete(ctxT(t), d)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy did not record the decider (%v, %v)", err, d.Annotations)
		}
		time.Sleep(200 * time.Millisecond)
	}

	for _, tc := range []struct {
		name, by, forged, forgedGroups, want, wantGroups string
	}{
		{"forged-by-a-person", alice, "carol", "admins", alice, "oidc:health-web\nsystem:authenticated"},
		{"named-by-the-mcp-server", mcp, "oidc:carol", "oidc:health-web", "oidc:carol", "oidc:health-web"},
		{"the-mcp-server-naming-no-one", mcp, "", "admins", mcp, "oidc:health-web\nsystem:authenticated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decision(tc.name, tc.forged)
			if tc.forgedGroups != "" {
				if d.Annotations == nil {
					d.Annotations = map[string]string{}
				}
				d.Annotations[cwacv1alpha1.AnnotationDecidedByGroups] = tc.forgedGroups
			}
			if err := as[tc.by].Create(ctxT(t), d); err != nil {
				t.Fatal(err)
			}
			if got := d.Annotations[cwacv1alpha1.AnnotationDecidedBy]; got != tc.want {
				t.Errorf("decided by %q, want %q", got, tc.want)
			}
			if got := d.Annotations[cwacv1alpha1.AnnotationDecidedByGroups]; got != tc.wantGroups {
				t.Errorf("decided by groups %q, want %q", got, tc.wantGroups)
			}
		})
	}
	// A person changing the MCP server's decision becomes its decider.
	d := &cwacv1alpha1.CwacIssueDecision{}
	if err := as[alice].Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "named-by-the-mcp-server"}, d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Reason = "the supplier will not fix it"
	if err := as[alice].Update(ctxT(t), d); err != nil {
		t.Fatal(err)
	}
	if got := d.Annotations[cwacv1alpha1.AnnotationDecidedBy]; got != alice {
		t.Errorf("after alice's change decided by %q, want %q", got, alice)
	}
}

// installDecidedByPolicy applies config/admission's decision policy and
// binding for ns (admissionpolicy.Install), trusting mcp as the MCP
// server's account (as the chart sets it), until the test ends.
func installDecidedByPolicy(t *testing.T, ns, mcp string) {
	t.Helper()
	admissionpolicy.Install(t, k8s, "decision_decided_by", ns, func(policy *admissionv1.MutatingAdmissionPolicy) {
		if policy.Spec.Variables[0].Name != "mcpServer" {
			t.Fatalf("the policy's first variable is %q, want mcpServer (the chart sets it)", policy.Spec.Variables[0].Name)
		}
		policy.Spec.Variables[0].Expression = "'" + mcp + "'"
	})
}

// decidersIn gives each user a client acting as them, allowed to make
// decisions in ns and nothing else.
func decidersIn(t *testing.T, ns string, users ...string) map[string]client.Client {
	t.Helper()
	if err := k8s.Create(ctxT(t), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "decider", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacissuedecisions"},
			Verbs: []string{"get", "create", "update", "delete"}}}}); err != nil {
		t.Fatal(err)
	}
	out := map[string]client.Client{}
	for i, u := range users {
		if err := k8s.Create(ctxT(t), &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "decider-" + string(rune('a'+i)), Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "decider"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u}}}); err != nil {
			t.Fatal(err)
		}
		rbacwait.Allowed(t, k8s, u, ns, "create", "cwacissuedecisions")
		as := rest.CopyConfig(cfg)
		as.Impersonate = rest.ImpersonationConfig{UserName: u, Groups: []string{"oidc:health-web"}}
		c, err := client.New(as, client.Options{Scheme: scheme, Mapper: k8s.RESTMapper()})
		if err != nil {
			t.Fatal(err)
		}
		out[u] = c
	}
	return out
}
