//go:build integration

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// TestDecideAgainstTheMCPServer: kubectl cwac decide makes a decision in
// the caller's name through the real MCP server (a rule decision, and one
// about an issue found with kubectl cwac history, its organisation and
// element from the history); flags that make no decision are refused
// before anything is contacted, in cwac_decide's words, and a caller
// without RBAC create on cwacissuedecisions makes nothing.
func TestDecideAgainstTheMCPServer(t *testing.T) {
	c := envtestCluster(t)
	ctx := t.Context()
	st := storetest.OpenSQLite(t)
	dir := filepath.Join(t.TempDir(), "run")
	if err := realcwac.Copy(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, st, os.DirFS(dir), store.Scan{UID: "decide-1", Namespace: defaultMCPNamespace, Name: "decide-1",
		FinishedAt: time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC), Phase: "Complete"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	o := historyServer(t, c, st)

	reader := serviceAccountToken(t, c, "decide-reader")
	decider := serviceAccountToken(t, c, "decider")
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: "decider-decisions"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{cwacv1alpha1.GroupVersion.Group}, Resources: []string{"cwacissuedecisions"}, Verbs: []string{"create"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: "decider-decisions"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: defaultMCPNamespace, Name: "decider"}}}
	for _, obj := range []client.Object{role, binding} {
		if err := c.admin.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	as := func(name, token string) func(args ...string) result {
		kc := c.authKubeconfig(t, name, &clientcmdapi.AuthInfo{Token: token})
		return func(args ...string) result { return runCLI(ctx, o(), kc, append(args, "-n", defaultMCPNamespace)...) }
	}
	run := as("decider", decider)
	decisions := func() []cwacv1alpha1.CwacIssueDecision {
		var list cwacv1alpha1.CwacIssueDecisionList
		if err := c.admin.List(ctx, &list, client.InNamespace(defaultMCPNamespace)); err != nil {
			t.Fatal(err)
		}
		return list.Items
	}

	// Refused before connecting, naming the flag's field.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rule", "image-alt", "--organisation", "CWAC Test Org", "--kind", "Ignore", "--reason", "r"}, "Invalid kind"},
		{[]string{"--rule", "image-alt", "--organisation", "CWAC Test Org", "--kind", "WontFix"}, "Invalid reason"},
		{[]string{"--rule", "image-alt", "--organisation", "CWAC Test Org", "--kind", "Accepted", "--reason", "r"}, "Invalid review_by"},
		{[]string{"--issue", "nothex", "--kind", "WontFix", "--reason", "r"}, "Invalid issue_id"},
	} {
		r := run(append([]string{"decide"}, tc.args...)...)
		if r.code != ExitError || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("decide %v: %+v, want refused with %q", tc.args, r, tc.want)
		}
	}
	if n := len(decisions()); n != 0 {
		t.Fatalf("refused flags made %d decisions", n)
	}

	// A rule decision, in the caller's name.
	r := run("decide", "--rule", "image-alt", "--organisation", "CWAC Test Org", "--pages", "https://example.test/news",
		"--kind", "Accepted", "--review-by", time.Now().AddDate(0, 3, 0).Format(time.DateOnly), "--reason", "supplier's widget")
	if r.code != ExitOK || !strings.Contains(r.stdout, "decided by system:serviceaccount:"+defaultMCPNamespace+":decider") {
		t.Fatalf("decide --rule: %+v", r)
	}
	// An issue decision: the id from history, the rest from the history.
	h := as("decide-reader", reader)("history", "--rule", "image-alt", "--limit", "1", "-o", "json")
	var page mcpapi.IssueHistoryOutput
	if h.code != ExitOK || json.Unmarshal([]byte(h.stdout), &page) != nil || len(page.Issues) != 1 {
		t.Fatalf("history: %+v", h)
	}
	is := page.Issues[0]
	r = run("decide", "--issue", is.Fingerprint, "--kind", "FalsePositive", "--reason", "decorative", "-o", "json")
	var out mcpapi.DecideOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Organisation != "CWAC Test Org" {
		t.Fatalf("decide --issue: %+v", r)
	}
	got := decisions()
	if len(got) != 2 {
		t.Fatalf("%d decisions, want 2", len(got))
	}
	for _, d := range got {
		if d.Annotations[cwacv1alpha1.AnnotationDecidedBy] != "system:serviceaccount:"+defaultMCPNamespace+":decider" {
			t.Errorf("%s decided by %q", d.Name, d.Annotations[cwacv1alpha1.AnnotationDecidedBy])
		}
		if d.Spec.Issue != nil && (d.Spec.Issue.ID != is.Fingerprint || d.Spec.Issue.Element != is.ElementHash || d.Spec.Organisation != "CWAC Test Org") {
			t.Errorf("issue decision %+v, want issue %s element %s of CWAC Test Org", d.Spec, is.Fingerprint, is.ElementHash)
		}
	}

	// Without RBAC create on cwacissuedecisions: refused, nothing made.
	r = as("decide-reader", reader)("decide", "--rule", "image-alt", "--organisation", "CWAC Test Org", "--kind", "WontFix", "--reason", "r")
	if r.code != ExitError || !strings.Contains(r.stderr, "cwacissuedecisions") || len(decisions()) != 2 {
		t.Fatalf("decide without RBAC create: %+v (%d decisions)", r, len(decisions()))
	}
}
