//go:build integration

package mcpserver

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// deciderToken is a token of a new service account with the rules in ns.
func deciderToken(t *testing.T, cs kubernetes.Interface, ns, name string, rules ...rbacv1.PolicyRule) string {
	t.Helper()
	token := serviceAccountToken(t, cs, ns, name)
	if len(rules) > 0 {
		ctx := context.Background()
		if err := k8s.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: rules}); err != nil {
			t.Fatal(err)
		}
		if err := k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}}); err != nil {
			t.Fatal(err)
		}
	}
	return token
}

// TestDecide: cwac_decide makes a CwacIssueDecision in the caller's name
// (user and groups) for a caller with RBAC create on cwacissuedecisions
// who may read the organisation (a namespace reader, or by grant), fills
// an issue decision's organisation and element from the history, and
// refuses, saying why, a caller without the right, an organisation outside
// their grants and arguments that do not make a decision.
func TestDecide(t *testing.T) {
	st := storetest.OpenSQLite(t)
	h, k, cs := kubernetesAuthHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	scans := StartScanCache(ctx, cfg, scheme, h.ns, slog.New(slog.DiscardHandler))
	grants := WatchGrants(ctx, scans, h.ns, slog.New(slog.DiscardHandler))
	h.srv.cfg.History, h.srv.cfg.Grants = store.NewHandle(st), grants
	storetest.TwoAgencies(t, st, h.ns)
	issueID, element := storetest.OneIssue(t, st, h.ns)
	_, base := serveAsTheBinaryDoes(t, h, HTTPOptions{Auth: k})

	decide := rbacv1.PolicyRule{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacissuedecisions"}, Verbs: []string{"create"}}
	read := rbacv1.PolicyRule{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacscans"}, Verbs: []string{"get", "list"}}
	lead := deciderToken(t, cs, h.ns, "accessibility-lead", decide, read)
	healthWeb := deciderToken(t, cs, h.ns, "health-web", decide)
	readerOnly := deciderToken(t, cs, h.ns, "reader-only", read)
	createGrant(t, h.ns, "health", cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "system:serviceaccount:" + h.ns + ":health-web"}},
		Organisations: []string{"Ministry of Health"}})

	// The lead decides about a rule of any organisation.
	out := output(t, grantExecute(t, base, lead, "cwac_decide",
		`{"rule":"color-contrast","organisation":"Ministry of Education","pages":"https://education.example/news","kind":"WontFix","reason":"a supplier's widget"}`))
	d := getDecision(t, h.ns, out["decision"].(string))
	leadUser := "system:serviceaccount:" + h.ns + ":accessibility-lead"
	groups := d.Annotations[cwacv1alpha1.AnnotationDecidedByGroups]
	if d.Annotations[cwacv1alpha1.AnnotationDecidedBy] != leadUser || !strings.Contains(groups, "system:serviceaccounts:"+h.ns) ||
		d.Spec.Rule != "color-contrast" || d.Spec.Pages != "https://education.example/news" || d.Spec.Organisation != "Ministry of Education" || d.Spec.Issue != nil {
		t.Errorf("decision %+v %+v", d.Annotations, d.Spec)
	}
	// An issue decision names the issue's organisation and element as the history has them.
	out = output(t, grantExecute(t, base, lead, "cwac_decide",
		`{"issue_id":"`+issueID+`","kind":"Accepted","reason":"the search box gets a label in the next release","review_by":"2027-03-31"}`))
	d = getDecision(t, h.ns, out["decision"].(string))
	if d.Spec.Issue == nil || d.Spec.Issue.ID != issueID || d.Spec.Issue.Element != mcpapi.ElementHash(element) ||
		d.Spec.Organisation != "Ministry of Health" || d.Spec.ReviewBy == nil || d.Spec.ReviewBy.UTC().Format(time.DateOnly) != "2027-03-31" {
		t.Errorf("issue decision %+v", d.Spec)
	}

	// By grant: Health, once the informer has the grant; never Education.
	var got map[string]any
	for range 200 {
		if got = grantExecute(t, base, healthWeb, "cwac_decide",
			`{"rule":"image-alt","organisation":"Ministry of Health","kind":"FalsePositive","reason":"decorative images"}`); got["status"] == "success" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got["status"] != "success" {
		t.Fatalf("a decision by grant: %v", got)
	}
	for name, tc := range map[string]struct{ token, args, want string }{
		"outside the grant": {healthWeb, `{"rule":"image-alt","organisation":"Ministry of Education","kind":"WontFix","reason":"r"}`,
			"is not among the organisations your CwacOrganisationGrants give you"},
		"no right to decide": {readerOnly, `{"rule":"image-alt","organisation":"Ministry of Health","kind":"WontFix","reason":"r"}`,
			"may not create cwacissuedecisions"},
		"an unknown kind":     {lead, `{"rule":"image-alt","organisation":"Ministry of Health","kind":"Ignore","reason":"r"}`, "Invalid kind"},
		"accepted for ever":   {lead, `{"rule":"image-alt","organisation":"Ministry of Health","kind":"Accepted","reason":"r"}`, "Invalid review_by"},
		"both issue and rule": {lead, `{"issue_id":"` + issueID + `","rule":"label","kind":"WontFix","reason":"r"}`, "give issue_id or rule, not both"},
		"no reason":           {lead, `{"rule":"image-alt","organisation":"Ministry of Health","kind":"WontFix","reason":" "}`, "Invalid reason"},
		"not an id":           {lead, `{"issue_id":"Healtha","kind":"WontFix","reason":"r"}`, "Invalid issue_id"},
		"an unknown issue":    {lead, `{"issue_id":"` + strings.Repeat("0", 32) + `","kind":"WontFix","reason":"r"}`, "no issue"},
		"a page prefix the API refuses": {lead, `{"rule":"image-alt","organisation":"Ministry of Health","pages":"ftp://x/","kind":"WontFix","reason":"r"}`,
			"pages is an http(s) address"},
	} {
		got := grantExecute(t, base, tc.token, "cwac_decide", tc.args)
		if msg, _ := got["error"].(string); got["status"] == "success" || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, got, tc.want)
		}
	}
	var list cwacv1alpha1.CwacIssueDecisionList
	if err := k8s.List(context.Background(), &list, client.InNamespace(h.ns)); err != nil || len(list.Items) != 3 {
		t.Errorf("%d decisions (%v), want the 3 made", len(list.Items), err)
	}
}

func getDecision(t *testing.T, ns, ref string) *cwacv1alpha1.CwacIssueDecision {
	t.Helper()
	name := strings.TrimPrefix(ref, ns+"/")
	d := &cwacv1alpha1.CwacIssueDecision{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
		t.Fatalf("decision %s: %v", ref, err)
	}
	return d
}

// TestIssueHistoryNamesTheDecision: cwac_issue_history names, on each
// issue, the applied decision that covers it now — only once the operator
// has applied it, and only the issue it is about.
func TestIssueHistoryNamesTheDecision(t *testing.T) {
	st := storetest.OpenSQLite(t)
	h, k, cs := kubernetesAuthHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	scans := StartScanCache(ctx, cfg, scheme, h.ns, slog.New(slog.DiscardHandler))
	h.srv.cfg.History, h.srv.cfg.Decisions = store.NewHandle(st), WatchDecisions(ctx, scans, slog.New(slog.DiscardHandler))
	storetest.TwoAgencies(t, st, h.ns)
	issueID, _ := storetest.OneIssue(t, st, h.ns)
	_, base := serveAsTheBinaryDoes(t, h, HTTPOptions{Auth: k})
	lead := deciderToken(t, cs, h.ns, "history-lead",
		rbacv1.PolicyRule{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacissuedecisions"}, Verbs: []string{"create"}},
		rbacv1.PolicyRule{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacscans"}, Verbs: []string{"get", "list"}})
	out := output(t, grantExecute(t, base, lead, "cwac_decide",
		`{"issue_id":"`+issueID+`","kind":"FalsePositive","reason":"the field is labelled by its visible legend"}`))
	name := out["decision"].(string)
	decisionOn := func() (map[string]any, int) {
		t.Helper()
		page := output(t, grantExecute(t, base, lead, "cwac_issue_history", `{"organisation":"Ministry of Health","limit":500}`))
		var mine map[string]any
		decided := 0
		for _, is := range page["issues"].([]any) {
			is := is.(map[string]any)
			if d, ok := is["decision"].(map[string]any); ok {
				decided++
				if is["fingerprint"] == issueID {
					mine = d
				}
			}
		}
		return mine, decided
	}
	if d, n := decisionOn(); d != nil || n != 0 {
		t.Fatalf("before the operator applied it: %v on the issue, %d decided", d, n)
	}
	// The operator applies it.
	obj := getDecision(t, h.ns, name)
	obj.Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: metav1.ConditionTrue,
		Reason: cwacv1alpha1.ReasonEntitled, Message: "applies", ObservedGeneration: obj.Generation, LastTransitionTime: metav1.Now()}}
	if err := k8s.Status().Update(ctx, obj); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	var n int
	for range 100 {
		if d, n = decisionOn(); d != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d == nil || n != 1 || d["kind"] != "FalsePositive" || d["decision"] != name || d["reason"] != "the field is labelled by its visible legend" ||
		d["decided_by"] != "system:serviceaccount:"+h.ns+":history-lead" {
		t.Errorf("once applied: %v on the issue, %d decided; want this decision on it alone", d, n)
	}
}
