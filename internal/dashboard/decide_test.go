package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// fakeDecisions keeps decisions in memory, as the API server would: a
// create gets the next name; who may decide is a set of users.
type fakeDecisions struct {
	mu       sync.Mutex
	items    []cwacv1alpha1.CwacIssueDecision
	deciders map[string]bool
	down     bool
}

func (f *fakeDecisions) List(_ context.Context, ns string) ([]cwacv1alpha1.CwacIssueDecision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, errors.New("the API server did not answer")
	}
	var out []cwacv1alpha1.CwacIssueDecision
	for _, d := range f.items {
		if d.Namespace == ns {
			out = append(out, d)
		}
	}
	return out, nil
}

func (f *fakeDecisions) MayDecide(_ context.Context, user string, _ []string, _ string) (bool, error) {
	return f.deciders[user], nil
}

func (f *fakeDecisions) Create(_ context.Context, d *cwacv1alpha1.CwacIssueDecision) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d.Name = fmt.Sprintf("%s%d", d.GenerateName, len(f.items)+1)
	d.UID = types.UID("uid-" + d.Name)
	d.Generation = 1
	d.CreationTimestamp = metav1.Now()
	f.items = append(f.items, *d.DeepCopy())
	return nil
}

func (f *fakeDecisions) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items)
}

// decideForm posts the form's fields.
func formBody(fields map[string]string) io.Reader {
	v := url.Values{}
	for k, x := range fields {
		v.Set(k, x)
	}
	return strings.NewReader(v.Encode())
}

// TestDecideFormRequest: the scope chosen makes decide's request; the
// form's own refusals name the field they are shown beside.
func TestDecideFormRequest(t *testing.T) {
	is := store.Issue{Fingerprint: "0123456789abcdef0123456789abcdef", Organisation: orgAlpha, Rule: "image-alt", Page: "https://alpha.example/news"}
	for _, tc := range []struct {
		scope, pages string
		want         decide.Request
		field        string
	}{
		{scopeIssue, "https://ignored.example/", decide.Request{IssueID: is.Fingerprint}, ""},
		{scopePages, "https://alpha.example/news", decide.Request{Rule: "image-alt", Organisation: orgAlpha, Pages: "https://alpha.example/news"}, ""},
		{scopePages, "", decide.Request{}, decide.FieldPages},
		{scopeOrganisation, "https://ignored.example/", decide.Request{Rule: "image-alt", Organisation: orgAlpha}, ""},
		{"", "", decide.Request{}, fieldScope},
		{"everything", "", decide.Request{}, fieldScope},
	} {
		f := &decideForm{Scope: tc.scope, Pages: tc.pages, Kind: "WontFix", Reason: "r"}
		got, err := f.request(is.Fingerprint, is)
		var e *decide.Error
		switch {
		case tc.field != "":
			if !errors.As(err, &e) || e.Field != tc.field {
				t.Errorf("scope %q pages %q: %v, want a refusal of %s", tc.scope, tc.pages, err, tc.field)
			}
		case err != nil:
			t.Errorf("scope %q: %v", tc.scope, err)
		default:
			tc.want.Kind, tc.want.Reason = "WontFix", "r"
			if got != tc.want {
				t.Errorf("scope %q: %+v, want %+v", tc.scope, got, tc.want)
			}
		}
	}
	// Each of decide's fields is shown beside a field of the form.
	for field, target := range map[string]string{decide.FieldKind: "decide-kind-FalsePositive", decide.FieldReason: "decide-reason",
		decide.FieldReviewBy: "decide-review-by", decide.FieldPages: "decide-pages", decide.FieldArguments: "decide-scope-issue",
		decide.FieldRule: "decide-scope-issue", decide.FieldOrganisation: "decide-scope-issue", decide.FieldIssueID: "decide-scope-issue",
		fieldScope: "decide-scope-issue"} {
		f := &decideForm{}
		f.refuse(&decide.Error{Field: field, Problem: "p"})
		if f.ErrorTarget != target || f.FieldLabel() == "" {
			t.Errorf("%s: shown at %q (%q), want %q", field, f.ErrorTarget, f.FieldLabel(), target)
		}
	}
}

// decideFixture is a dashboard with sign-in and decisions: "reader"
// reads the namespace and may decide, "both" reads it and may not,
// "alpha-web" reads Alpha Agency by grant and may decide.
type decideFixture struct {
	h         *Handler
	st        *store.Store
	decisions *fakeDecisions
	c         *clock
	s         *SignIn
	// alpha is Alpha's oldest open issue (listed on its page), path its
	// page, beta an issue of Beta Board.
	alpha, path, beta string
	cookie            *http.Cookie
	csrf              string
}

func newDecideFixture(t *testing.T) *decideFixture {
	t.Helper()
	f := &decideFixture{c: &clock{t: time.Now()}, decisions: &fakeDecisions{deciders: map[string]bool{"reader": true, "alpha-web": true}}}
	f.s = newSignIn(t, f.c)
	f.h, f.st = newTestHandler(t, Options{SignIn: f.s, Access: grantAccess(), Decisions: f.decisions})
	f.beta = issueOf(t, f.st, orgBeta)
	oldest, err := f.st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: []string{testNS}, Organisation: orgAlpha,
		State: store.StateOpen, Limit: 1})
	if err != nil || len(oldest.Issues) == 0 {
		t.Fatal(err)
	}
	f.alpha = oldest.Issues[0].Fingerprint
	f.path = IssuePath(testNS, f.alpha)
	f.cookie, f.csrf = sessionCookie(t, f.s, "reader", f.c.t)
	return f
}

// form is a good form of "reader"'s with the fields given changed.
func (f *decideFixture) form(kv ...string) io.Reader {
	fields := map[string]string{"csrf": f.csrf, "kind": "WontFix", "scope": "issue", "reason": "a supplier's widget"}
	for i := 0; i+1 < len(kv); i += 2 {
		fields[kv[i]] = kv[i+1]
	}
	return formBody(fields)
}

// TestDecideFormOffered: the form, with the session's token, to a
// signed-in person who may decide; to anyone else, why not.
func TestDecideFormOffered(t *testing.T) {
	f := newDecideFixture(t)
	res, body := do(f.h, http.MethodGet, f.path, nil, withCookie(f.cookie))
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `action="`+f.path+`/decisions"`) ||
		!strings.Contains(body, `name="csrf" value="`+f.csrf+`"`) || !strings.Contains(body, "No decision is about this issue.") {
		t.Fatalf("issue page: %d\n%s", res.StatusCode, body)
	}
	both, _ := sessionCookie(t, f.s, "both", f.c.t)
	open, _ := newTestHandler(t, Options{Access: Open{}, Decisions: f.decisions})
	for name, tc := range map[string]struct {
		h    http.Handler
		opts []reqOpt
		says string
	}{
		"may not decide": {f.h, []reqOpt{withCookie(both)}, "both may not make decisions in namespace cwac: that needs RBAC create on cwacissuedecisions there."},
		"a bearer token": {f.h, []reqOpt{withHeader("Authorization", "Bearer reader")}, "With a token, use the MCP tool cwac_decide"},
		"no sign-in":     {open, nil, "This dashboard has no sign-in"},
	} {
		if _, body := do(tc.h, http.MethodGet, f.path, nil, tc.opts...); strings.Contains(body, `<form class="decide"`) || !strings.Contains(body, tc.says) {
			t.Errorf("%s: offered the form, or not saying %q", name, tc.says)
		}
	}
}

// TestDecideFormRefused: nothing is made for anyone but a signed-in person
// who may decide, for a request from another site or without the
// session's token, for an organisation the person may not read, or for
// what makes no decision; that is shown again with the field at fault.
func TestDecideFormRefused(t *testing.T) {
	f := newDecideFixture(t)
	alphaCookie, alphaCSRF := sessionCookie(t, f.s, "alpha-web", f.c.t)
	both, bothCSRF := sessionCookie(t, f.s, "both", f.c.t)
	open, _ := newTestHandler(t, Options{Access: Open{}, Decisions: f.decisions})
	me := []reqOpt{withCookie(f.cookie)}
	for name, tc := range map[string]struct {
		h    http.Handler
		path string
		form io.Reader
		opts []reqOpt
		code int
		says string
	}{
		"no credentials":          {f.h, f.path, f.form(), nil, http.StatusUnauthorized, "Sign in"},
		"no token":                {f.h, f.path, f.form("csrf", ""), me, http.StatusForbidden, "does not match your session"},
		"another session's token": {f.h, f.path, f.form("csrf", alphaCSRF), me, http.StatusForbidden, "does not match your session"},
		"from another site":       {f.h, f.path, f.form(), append(me, withHeader("Sec-Fetch-Site", "cross-site")), http.StatusForbidden, "another site"},
		"from another origin":     {f.h, f.path, f.form(), append(me, withHeader("Origin", "https://evil.example")), http.StatusForbidden, "another site"},
		"a bearer token":          {f.h, f.path, f.form(), []reqOpt{withHeader("Authorization", "Bearer reader")}, http.StatusForbidden, "no sign-in session"},
		"an open dashboard":       {open, f.path, f.form(), nil, http.StatusForbidden, "no sign-in session"},
		"may not decide":          {f.h, f.path, f.form("csrf", bothCSRF), []reqOpt{withCookie(both)}, http.StatusForbidden, "needs RBAC create"},
		"outside the grant": {f.h, IssuePath(testNS, f.beta), f.form("csrf", alphaCSRF), []reqOpt{withCookie(alphaCookie)},
			http.StatusNotFound, "that you may read"},
		"another namespace":    {f.h, IssuePath(otherNS, f.alpha), f.form(), me, http.StatusNotFound, "that you may read"},
		"not an issue id":      {f.h, "/issues/cwac/nope", f.form(), me, http.StatusBadRequest, "is not an issue"},
		"Accepted for ever":    {f.h, f.path, f.form("kind", "Accepted"), me, http.StatusBadRequest, "an Accepted decision needs one"},
		"no kind":              {f.h, f.path, f.form("kind", ""), me, http.StatusBadRequest, "choose one"},
		"no reason":            {f.h, f.path, f.form("reason", "  "), me, http.StatusBadRequest, "say why"},
		"a review date passed": {f.h, f.path, f.form("review_by", "2020-01-01"), me, http.StatusBadRequest, "has passed"},
		"no scope":             {f.h, f.path, f.form("scope", ""), me, http.StatusBadRequest, "choose what the decision covers"},
		"a prefix not http": {f.h, f.path, f.form("scope", "pages", "pages", "ftp://alpha.example/"), me, http.StatusBadRequest,
			`aria-describedby="decide-pages-hint decide-pages-error" aria-invalid="true"`},
	} {
		res, body := do(tc.h, http.MethodPost, tc.path+"/decisions", tc.form, tc.opts...)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d, want %d saying %q", name, res.StatusCode, tc.code, tc.says)
		}
		if f.decisions.count() != 0 {
			t.Fatalf("%s: a decision was made", name)
		}
	}

	// Shown again: what was entered, the error first in the title,
	// summarised with a link to the field, beside the field, which is
	// marked invalid and described by it.
	_, body := do(f.h, http.MethodPost, f.path+"/decisions", f.form("kind", "Accepted", "reason", "the <booking> widget"), me...)
	for _, want := range []string{"<title>Error: Issue:", `<a href="#decide-review-by">Review by: an Accepted decision needs one`,
		`id="decide-review-by-error" class="field-error">Error: an Accepted decision needs one`,
		`aria-describedby="decide-review-by-hint decide-review-by-error" aria-invalid="true"`,
		`value="Accepted" checked`, `>the &lt;booking&gt; widget</textarea>`, `value="issue" checked`} {
		if !strings.Contains(body, want) {
			t.Errorf("refused form: no %q in\n%s", want, body)
		}
	}
}

// TestDecideFormMade: a decision is made once, in the person's name, and
// announced on the issue page redirected to; once applied it covers the
// issue there and on the organisation's lists.
func TestDecideFormMade(t *testing.T) {
	f := newDecideFixture(t)
	res, _ := do(f.h, http.MethodPost, f.path+"/decisions", f.form("review_by", f.c.t.AddDate(0, 2, 0).Format(time.DateOnly)),
		withCookie(f.cookie), withHeader("Sec-Fetch-Site", "same-origin"))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != f.path+"?decided=decision-1#decisions" {
		t.Fatalf("decide: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if f.decisions.count() != 1 {
		t.Fatalf("%d decisions made, want 1", f.decisions.count())
	}
	d := f.decisions.items[0]
	is, _ := f.st.Issue(context.Background(), []string{testNS}, f.alpha)
	if d.Namespace != testNS || d.Annotations[cwacv1alpha1.AnnotationDecidedBy] != "reader" || d.Annotations[cwacv1alpha1.AnnotationDecidedByGroups] != "team" ||
		d.Spec.Issue == nil || d.Spec.Issue.ID != f.alpha || d.Spec.Issue.Element != fmt.Sprintf("%016x", is.ElementHash) || d.Spec.Organisation != orgAlpha ||
		d.Spec.Kind != cwacv1alpha1.DecisionWontFix || d.Spec.ReviewBy == nil {
		t.Errorf("decision made: %+v %+v", d.ObjectMeta, d.Spec)
	}
	res, body := do(f.h, http.MethodGet, f.path+"?decided=decision-1", nil, withCookie(f.cookie))
	for _, want := range []string{"<title>Decision recorded: Issue:", `<div role="status"><p class="note">Decision <code>decision-1</code> recorded.`,
		"Won&#39;t fix: does not cover it, not applied yet: the operator has not checked it", "<dd>reader</dd>", "still the one decided about"} {
		if res.StatusCode != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("after deciding: %d, no %q", res.StatusCode, want)
		}
	}
	// Only a decision that exists is announced.
	if _, body := do(f.h, http.MethodGet, f.path+"?decided=decision-9", nil, withCookie(f.cookie)); strings.Contains(body, "recorded") {
		t.Errorf("a decision that does not exist was announced")
	}
	// Once the operator applies it, it covers the issue, on the issue's
	// page and in the organisation's lists.
	f.decisions.items[0].Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: metav1.ConditionTrue,
		Reason: cwacv1alpha1.ReasonEntitled, ObservedGeneration: 1}}
	if _, body := do(f.h, http.MethodGet, f.path, nil, withCookie(f.cookie)); !strings.Contains(body, "Won&#39;t fix: covers this issue") ||
		!strings.Contains(body, "<dt>Decision</dt><dd>Won&#39;t fix until") {
		t.Errorf("an applied decision does not cover its issue")
	}
	_, body = do(f.h, http.MethodGet, OrganisationPath(testNS, orgAlpha), nil, withCookie(f.cookie))
	if n := strings.Count(body, "; decided: won&#39;t fix"); n != 1 {
		t.Errorf("the organisation's lists mark %d issues decided, want 1", n)
	}
	f.decisions.down = true
	if res, _ := do(f.h, http.MethodGet, f.path, nil, withCookie(f.cookie)); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("decisions unreadable: %d", res.StatusCode)
	}
}

// TestIssueDecisionHistory: each listed decision's recorded history, and
// the decisions about the issue withdrawn since, with theirs; a withdrawn
// decision about another page prefix or issue is not shown.
func TestIssueDecisionHistory(t *testing.T) {
	f := newDecideFixture(t)
	ctx := context.Background()
	res, _ := do(f.h, http.MethodPost, f.path+"/decisions", f.form(), withCookie(f.cookie))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("decide: %d", res.StatusCode)
	}
	is, _ := f.st.Issue(ctx, []string{testNS}, f.alpha)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ev := func(uid, name string, seq int64, event, rule, pages, issue string) store.DecisionEvent {
		return store.DecisionEvent{Namespace: testNS, UID: uid, Seq: seq, Name: name, Event: event, At: at.Add(time.Duration(seq) * time.Hour),
			Organisation: orgAlpha, Kind: "FalsePositive", Reason: "decorative", DecidedBy: "lead", Rule: rule, Pages: pages, IssueID: issue}
	}
	refused := ev("uid-decision-1", "decision-1", 2, store.DecisionNotApplied, "", "", f.alpha)
	refused.Applied = "NotEntitled"
	if err := f.st.AddDecisionEvents(ctx, []store.DecisionEvent{
		ev("uid-decision-1", "decision-1", 1, store.DecisionMade, "", "", f.alpha), refused,
		ev("old", "old", 1, store.DecisionMade, is.Rule, "", ""),
		ev("old", "old", 2, store.DecisionWithdrawn, is.Rule, "", ""),
		ev("elsewhere", "elsewhere", 1, store.DecisionMade, is.Rule, "https://elsewhere.example/", ""),
		ev("elsewhere", "elsewhere", 2, store.DecisionWithdrawn, is.Rule, "https://elsewhere.example/", ""),
	}); err != nil {
		t.Fatal(err)
	}
	_, body := do(f.h, http.MethodGet, f.path, nil, withCookie(f.cookie))
	for _, want := range []string{"<summary>History (2 events)</summary>", "made by lead: False positive", "not applied: NotEntitled</li>",
		`<h3 id="withdrawn">Withdrawn decisions</h3>`, "False positive by lead, about rule " + is.Rule + " on every page of " + orgAlpha,
		"withdrawn (deleted)"} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q on the issue page", want)
		}
	}
	if strings.Contains(body, "elsewhere.example") {
		t.Error("a withdrawn decision about other pages is shown")
	}
}
