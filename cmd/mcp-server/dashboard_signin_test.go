package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
)

// TestSignInFlagsCheck: inconsistent sign-in flags are refused at start,
// each with a message naming what is wrong.
func TestSignInFlagsCheck(t *testing.T) {
	full := signInFlags{issuer: "https://idp.example", clientID: "cwac", redirectURL: "https://dash.example/oauth2/callback", sessionKeyFile: "/k"}
	for _, tc := range []struct {
		name    string
		f       signInFlags
		enabled bool
		auth    string
		errHas  string
	}{
		{"off", signInFlags{}, true, "kubernetes", ""},
		{"complete", full, true, "kubernetes", ""},
		{"public only", signInFlags{publicNamespaces: "cwac"}, true, "kubernetes", ""},
		{"public with the static token", signInFlags{publicNamespaces: "cwac"}, true, "token", ""},
		{"client without issuer", signInFlags{clientID: "x", sessionKeyFile: "/k"}, true, "kubernetes",
			"--dashboard-oidc-client-id, --dashboard-session-key-file given without --dashboard-oidc-issuer"},
		{"dashboard off", full, false, "kubernetes", "--dashboard=false"},
		{"public, dashboard off", signInFlags{publicNamespaces: "cwac"}, false, "kubernetes", "--dashboard=false"},
		{"static token", full, true, "token", "needs --auth=kubernetes (not token)"},
		{"no auth", full, true, "none", "needs --auth=kubernetes (not none)"},
		{"public with no auth", signInFlags{publicNamespaces: "cwac"}, true, "none", "already readable"},
		{"no client", signInFlags{issuer: full.issuer, redirectURL: full.redirectURL, sessionKeyFile: "/k"}, true, "kubernetes", "client-id"},
		{"no redirect", signInFlags{issuer: full.issuer, clientID: "c", sessionKeyFile: "/k"}, true, "kubernetes", "redirect-url"},
		{"no key", signInFlags{issuer: full.issuer, clientID: "c", redirectURL: full.redirectURL}, true, "kubernetes", "session-key-file"},
	} {
		err := tc.f.check(tc.enabled, tc.auth)
		if (tc.errHas == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.errHas)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.errHas)
		}
	}
}

// TestSignInFlagsBuild: the files the flags name are read and checked.
func TestSignInFlagsBuild(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := write("key", strings.Repeat("s", 48)+"\n")
	ok := signInFlags{issuer: "https://idp.example", clientID: "cwac", redirectURL: "https://dash.example/oauth2/callback",
		sessionKeyFile: key, clientSecretFile: write("secret", "s3cret\n"), usernameClaim: "email", scopes: "openid,email"}
	if s, err := ok.build(); err != nil || s == nil {
		t.Fatalf("build: %v", err)
	}
	if s, err := (&signInFlags{}).build(); s != nil || err != nil {
		t.Errorf("no issuer: %v %v", s, err)
	}
	for name, tc := range map[string]struct {
		edit   func(*signInFlags)
		errHas string
	}{
		"missing key file": {func(f *signInFlags) { f.sessionKeyFile = filepath.Join(dir, "none") }, "--dashboard-session-key-file"},
		"short key":        {func(f *signInFlags) { f.sessionKeyFile = write("short", "abc") }, "at least 32 bytes"},
		"empty secret":     {func(f *signInFlags) { f.clientSecretFile = write("empty", " \n") }, "is empty"},
		"missing secret":   {func(f *signInFlags) { f.clientSecretFile = filepath.Join(dir, "none") }, "client-secret-file"},
		"bad CA":           {func(f *signInFlags) { f.caFile = write("ca", "not a certificate") }, "no PEM certificate"},
		"http redirect":    {func(f *signInFlags) { f.redirectURL = "http://dash.example/cb" }, "redirect URL"},
		"groups prefix":    {func(f *signInFlags) { f.groupsPrefix = "oidc:" }, "groups claim"},
	} {
		f := ok
		tc.edit(&f)
		if _, err := f.build(); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: %v, want %q", name, err, tc.errHas)
		}
	}
}

// TestDashboardAccessSession: a signed-in user's SubjectAccessReview
// names the mapped user and groups, nothing else.
func TestDashboardAccessSession(t *testing.T) {
	cs := k8sfake.NewClientset()
	var asked []authorizationv1.SubjectAccessReviewSpec
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		asked = append(asked, sar.Spec)
		sar.Status.Allowed = len(sar.Spec.Groups) == 1 && sar.Spec.Groups[0] == "oidc:team-a"
		return true, sar, nil
	})
	a := dashboardAccess{auth: &mcpserver.KubernetesAuth{Clientset: cs}, clientset: cs}
	p := dashboard.Principal{Name: "alice@example.org", Subject: dashboard.SessionUser{User: "alice@example.org", Groups: []string{"oidc:team-a"}}}
	r, err := a.Reach(context.Background(), p, "cwac")
	if err != nil || !r.IsWhole() || len(asked) != 1 {
		t.Fatalf("%v %v %d", r.IsWhole(), err, len(asked))
	}
	s := asked[0]
	if s.User != "alice@example.org" || s.UID != "" || len(s.Extra) != 0 || s.ResourceAttributes.Verb != "get" ||
		s.ResourceAttributes.Resource != "cwacscans" || s.ResourceAttributes.Namespace != "cwac" {
		t.Errorf("review %+v", s)
	}
	// A signed-in user RBAC refuses reads by their mapped groups' grants.
	a.grants = fakeGrants{{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectGroup, Name: "oidc:health-web"}},
		Organisations: []string{"Ministry of Health"}}}}
	carol := dashboard.Principal{Name: "carol@example.org", Subject: dashboard.SessionUser{User: "oidc:carol@example.org", Groups: []string{"oidc:health-web"}}}
	if r, err := a.Reach(context.Background(), carol, "cwac"); err != nil || r.IsWhole() || !r.Covers("Ministry of Health", "") || r.Covers("Other", "") {
		t.Errorf("a signed-in user by grant: whole %v, covers %v, %v", r.IsWhole(), r.Covers("Ministry of Health", ""), err)
	}
	if r, _ := a.Reach(context.Background(), dashboard.Principal{Name: "x", Subject: "something else"}, "cwac"); r.Any() {
		t.Error("an unknown subject may read")
	}
	if got := authModeOf(mcpserver.AnonymousAuth{}) + authModeOf(mcpserver.StaticTokenAuth{}) + authModeOf(a.auth); got != "nonetokenkubernetes" {
		t.Errorf("auth modes %q", got)
	}
}
