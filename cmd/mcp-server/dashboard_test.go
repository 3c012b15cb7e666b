package main

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
)

// TestDashboardAccess: the MCP server's authenticators decide who a
// dashboard request is (401 without credentials), and a
// SubjectAccessReview per namespace decides what it may read.
func TestDashboardAccess(t *testing.T) {
	req := func(token string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	static := dashboardAccess{auth: mcpserver.StaticTokenAuth{Token: "secret"}}
	if _, err := static.Identify(req("")); !errors.Is(err, dashboard.ErrUnauthenticated) {
		t.Errorf("no token: %v", err)
	}
	if _, err := static.Identify(req("wrong")); !errors.Is(err, dashboard.ErrUnauthenticated) {
		t.Errorf("wrong token: %v", err)
	}
	p, err := static.Identify(req("secret"))
	if err != nil || p.Name != "mcp-token" {
		t.Fatalf("static token: %+v %v", p, err)
	}
	if r, err := static.Reach(context.Background(), p, "any"); !r.IsWhole() || err != nil {
		t.Errorf("static token reads the server's namespace: %v %v", r.IsWhole(), err)
	}
	open := dashboardAccess{auth: mcpserver.AnonymousAuth{}}
	if p, err := open.Identify(req("")); err != nil || !p.Anonymous {
		t.Errorf("--auth=none: %+v %v", p, err)
	}

	cs := k8sfake.NewClientset()
	var asked []authorizationv1.SubjectAccessReviewSpec
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		asked = append(asked, sar.Spec)
		if sar.Spec.ResourceAttributes.Namespace == "down" {
			return true, nil, errors.New("connection refused")
		}
		sar.Status.Allowed = sar.Spec.User == "alice" && sar.Spec.ResourceAttributes.Namespace == "cwac"
		return true, sar, nil
	})
	// bob reads one organisation by grant; carol's grant is in another namespace's list.
	grants := fakeGrants{{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "bob"}},
		Organisations: []string{"Ministry of Health"}}}}
	kube := dashboardAccess{auth: mcpserver.AnonymousAuth{}, clientset: cs, grants: grants}
	alice := dashboard.Principal{Name: "alice", Subject: &mcpserver.Identity{User: "alice", Groups: []string{"team"}, Method: "kubernetes"}}
	for _, tc := range []struct {
		p      dashboard.Principal
		ns     string
		want   bool
		failed bool
	}{
		{alice, "cwac", true, false},
		{alice, "other", false, false},
		{dashboard.Principal{Name: "bob", Subject: &mcpserver.Identity{User: "bob", Method: "kubernetes"}}, "cwac", false, false},
		{dashboard.Principal{Name: "anonymous", Subject: &mcpserver.Identity{User: "anonymous", Method: "anonymous"}}, "cwac", false, false},
		{alice, "down", false, true},
	} {
		r, err := kube.Reach(context.Background(), tc.p, tc.ns)
		if r.IsWhole() != tc.want || (err != nil) != tc.failed {
			t.Errorf("%s in %s: %v %v", tc.p.Name, tc.ns, r.IsWhole(), err)
		}
	}
	bob, err := kube.Reach(context.Background(), dashboard.Principal{Name: "bob", Subject: &mcpserver.Identity{User: "bob", Method: "kubernetes"}}, "cwac")
	if err != nil || bob.IsWhole() || !bob.Covers("Ministry of Health", "") || bob.Covers("Ministry of Education", "") {
		t.Errorf("bob by grant: whole %v, covers Health %v, Education %v, %v", bob.IsWhole(),
			bob.Covers("Ministry of Health", ""), bob.Covers("Ministry of Education", ""), err)
	}
	// A reader of the namespace is not limited by grants; without grants, bob reads nothing.
	if r, _ := kube.Reach(context.Background(), alice, "cwac"); !r.IsWhole() {
		t.Error("alice, a namespace reader, is limited")
	}
	if r, _ := (dashboardAccess{auth: mcpserver.AnonymousAuth{}, clientset: cs}).Reach(context.Background(),
		dashboard.Principal{Name: "bob", Subject: &mcpserver.Identity{User: "bob", Method: "kubernetes"}}, "cwac"); r.Any() {
		t.Error("bob reads something with no grants read")
	}
	a := asked[0]
	if a.User != "alice" || len(a.Groups) != 1 || a.ResourceAttributes.Verb != "get" || a.ResourceAttributes.Resource != "cwacscans" ||
		a.ResourceAttributes.Group != cwacv1alpha1.GroupVersion.Group {
		t.Errorf("review asked %+v", a)
	}
}

// scanFixture is a fake client with a complete scan (results on disk
// under root) and a failed one.
func scanFixture(t *testing.T) (c client.Client, root, dir string, done metav1.Time) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := cwacv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	exit := int32(2)
	done = metav1.NewTime(time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC))
	complete := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cwac", Name: "weekly-1", CreationTimestamp: metav1.NewTime(done.Add(-time.Hour)),
			Labels: map[string]string{cwacv1alpha1.LabelSchedule: "weekly"}},
		Spec: cwacv1alpha1.CwacScanSpec{Baseline: "weekly-0"},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, CompletionTime: &done, ResultsPath: "cwac/weekly-1-abc/2026-11-02_03-00-00_weekly",
			Summary: &cwacv1alpha1.ScanSummary{TotalIssues: 12, PagesScanned: 4, UrlsScanned: 4, IssuesByImpact: map[string]int64{"critical": 3},
				Diff: &cwacv1alpha1.ScanDiff{Baseline: "weekly-0", New: 1, Fixed: 5,
					ByOrganisation: []cwacv1alpha1.OrganisationDiff{{Organisation: "O", New: 1, NewByImpact: map[string]int64{"critical": 1}}}}}},
	}
	failed := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cwac", Name: "broken", CreationTimestamp: metav1.NewTime(done.Time)},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed, Message: "CWAC exited with code 2",
			Failure: &cwacv1alpha1.ScanFailure{Reason: "CWACExitedNonZero", ExitCode: &exit, Cause: "ValueError"}},
	}
	c = fake.NewClientBuilder().WithScheme(scheme).WithObjects(complete, failed).Build()
	root = t.TempDir()
	dir = filepath.Join(root, complete.Status.ResultsPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.html"), []byte("<p>report</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return c, root, dir, done
}

// TestDashboardScans: CwacScans as the dashboard sees them, and their
// result files through the confined results root.
func TestDashboardScans(t *testing.T) {
	c, root, dir, done := scanFixture(t)
	src := dashboardScans{client: c, open: mcpserver.OpenScanResults(root, nil)}
	ctx := context.Background()
	list, err := src.ListScans(ctx, []string{"cwac"})
	if err != nil || len(list) != 2 || list[0].Name != "broken" || list[1].Name != "weekly-1" {
		t.Fatalf("list (newest first): %+v %v", list, err)
	}
	s := list[1]
	if s.Schedule != "weekly" || s.Phase != "Complete" || s.Baseline != "weekly-0" || s.Finished == nil || !s.Finished.Equal(done.Time) ||
		s.Summary == nil || s.Summary.Issues != 12 || s.Summary.ByImpact["critical"] != 3 || s.Summary.Diff == nil ||
		s.Summary.Diff.Fixed != 5 || len(s.Summary.Diff.ByOrganisation) != 1 || s.Summary.Diff.ByOrganisation[0].NewByImpact["critical"] != 1 {
		t.Errorf("complete scan: %+v", s)
	}
	b := list[0]
	if b.Failure == nil || b.Failure.Reason != "CWACExitedNonZero" || *b.Failure.ExitCode != 2 || b.Failure.Cause != "ValueError" {
		t.Errorf("failed scan: %+v", b)
	}
	if _, err := src.GetScan(ctx, "cwac", "nothing"); !errors.Is(err, dashboard.ErrScanNotFound) {
		t.Errorf("unknown scan: %v", err)
	}
	if _, _, err := src.OpenResults(ctx, "cwac", "broken"); !errors.Is(err, dashboard.ErrNoResults) {
		t.Errorf("a scan without results: %v", err)
	}
	fsys, closeFn, err := src.OpenResults(ctx, "cwac", "weekly-1")
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if data, err := fs.ReadFile(fsys, "report.html"); err != nil || string(data) != "<p>report</p>" {
		t.Errorf("report.html: %q %v", data, err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "escape.csv")); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(fsys, "escape.csv"); err == nil {
		t.Error("a symlink out of the results root was followed")
	}
}

// TestDashboardHandler: the whole dashboard over the scan source,
// unauthenticated (--auth=none), and none with --dashboard=false.
func TestDashboardHandler(t *testing.T) {
	c, root, _, _ := scanFixture(t)
	h, err := newDashboard(dashboardFlags{enabled: true}, dashboardDeps{auth: mcpserver.AnonymousAuth{},
		client: c, namespace: "cwac", resultsRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/scans/cwac/weekly-1", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Download report.html") ||
		!strings.Contains(rec.Body.String(), "The issue history is not configured") {
		t.Errorf("scan page: %d %s", rec.Code, rec.Body.String())
	}
	if off, err := newDashboard(dashboardFlags{}, dashboardDeps{}); off != nil || err != nil {
		t.Errorf("--dashboard=false: %v %v", off, err)
	}
}

// fakeGrants is a GrantSource of fixed grants.
type fakeGrants []cwacv1alpha1.CwacOrganisationGrant

func (g fakeGrants) Grants(context.Context) ([]cwacv1alpha1.CwacOrganisationGrant, error) {
	return g, nil
}
