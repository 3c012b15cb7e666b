//go:build integration

package chart

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/testutil/kubesim"
)

// The chart's two identities, as system:serviceaccount:<ns>:<name> users.
type accounts struct{ operator, mcp string }

// installRBAC creates (for real) the chart's CRD, service accounts, roles and
// bindings, and returns the operator's and the MCP server's accounts.
func installRBAC(t *testing.T, objs []*unstructured.Unstructured) accounts {
	t.Helper()
	var sa accounts
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			ensureCRD(t, o)
		}
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
		default:
			continue
		}
		if ns := o.GetNamespace(); ns != "" {
			ensureNamespace(t, ns)
		}
		if o.GetKind() == "ServiceAccount" {
			user := "system:serviceaccount:" + o.GetNamespace() + ":" + o.GetName()
			if o.GetLabels()["app.kubernetes.io/component"] == "mcp-server" {
				sa.mcp = user
			} else {
				sa.operator = user
			}
		}
		if err := serverSideApply(context.Background(), o, client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	if sa.operator == "" || sa.mcp == "" || sa.operator == sa.mcp {
		t.Fatalf("the chart rendered service accounts %+v, want the operator's and the MCP server's", sa)
	}
	return sa
}

// as returns a config that acts as the given service account.
func as(serviceAccount string) *rest.Config {
	c := rest.CopyConfig(cfg)
	ns := strings.Split(serviceAccount, ":")[2]
	c.Impersonate = rest.ImpersonationConfig{
		UserName: serviceAccount,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	return c
}

func tokenFor(t *testing.T, ns, name string) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// waitFor waits up to 45 seconds for what the chart's pods do.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	wait.For(t, what, 45*time.Second, cond)
}

// runScanAs runs the operator as the chart's service account and drives one
// scan in scanNS to Complete; every API call the operator makes must be
// allowed by the chart's RBAC for that to happen.
func runScanAs(t *testing.T, sa, releaseNS, scanNS string, watch []string, leaderElect bool) {
	t.Helper()
	ensureNamespace(t, scanNS)
	restCfg := as(sa)
	cacheOpts := cache.Options{ByObject: controller.CacheByObject()}
	if len(watch) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range watch {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Cache: cacheOpts,
		LeaderElection: leaderElect, LeaderElectionID: "cwac-operator.cwac.a11y.dev", LeaderElectionNamespace: releaseNS,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := scanjob.Options{
		ResultsPVC: "cwac-results", DefaultImage: "cwac:rbac", RunnerImage: "cwac-operator:rbac",
		CWACDir: "/cwac", Resources: scanjob.DefaultResources(),
	}
	if err := controller.Setup(mgr, controller.Options{JobOptions: opts, MaxConcurrentScans: 2, SkipNameValidation: true}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = mgr.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: "rbac-check", Namespace: scanNS},
		Spec:       cwacv1alpha1.CwacScanSpec{URLs: []string{"https://www.example.govt.nz/"}},
	}
	if err := admin.Create(context.Background(), scan); err != nil {
		t.Fatal(err)
	}
	job := &batchv1.Job{}
	waitFor(t, "the operator (as "+sa+") to create the Job", func() (bool, string) {
		s := &cwacv1alpha1.CwacScan{}
		_ = admin.Get(context.Background(), client.ObjectKeyFromObject(scan), s)
		if s.Status.JobName == "" {
			return false, fmt.Sprintf("phase %q message %q", s.Status.Phase, s.Status.Message)
		}
		return admin.Get(context.Background(), client.ObjectKey{Namespace: scanNS, Name: s.Status.JobName}, job) == nil, "job not found"
	})
	pod, err := kubesim.StartPod(context.Background(), admin, job, kubesim.Running())
	if err != nil {
		t.Fatal(err)
	}
	msg := string(scanpod.Encode(scanpod.Report{Outcome: scanpod.OutcomeComplete, ResultsDir: "2026-11-22_00-00-00_rbac-check"}, scanpod.MaxBytes))
	if err := kubesim.SetPodStatus(context.Background(), admin, pod, kubesim.Terminated(0, "Completed", msg)); err != nil {
		t.Fatal(err)
	}
	if err := kubesim.FinishJob(context.Background(), admin, job, true, "", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the scan to complete", func() (bool, string) {
		s := &cwacv1alpha1.CwacScan{}
		_ = admin.Get(context.Background(), client.ObjectKeyFromObject(scan), s)
		return s.Status.Phase == cwacv1alpha1.PhaseComplete, string(s.Status.Phase) + ": " + s.Status.Message
	})
	waitFor(t, "events recorded as the service account", func() (bool, string) {
		list := &eventsv1.EventList{}
		_ = admin.List(context.Background(), list, client.InNamespace(scanNS))
		for _, e := range list.Items {
			if e.Reason == "Succeeded" && e.Regarding.Name == scan.Name {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events", len(list.Items))
	})
}

// TestChartRBACSufficesForTheOperator renders metrics over plain HTTP: with
// secure metrics (the default) the operator also holds system:auth-delegator
// for its metrics endpoint, which TestChartRBACServesSecureMetrics covers.
func TestChartRBACSufficesForTheOperator(t *testing.T) {
	t.Run("cluster scope", func(t *testing.T) {
		sa := installRBAC(t, render(t, "rbac-cluster", "metrics.secure=false"))
		runScanAs(t, sa.operator, "rbac-cluster", "some-team", nil, false)
		operatorHoldsNoMCPRights(t, sa.operator, "rbac-cluster")
	})
	t.Run("namespaced scope with leader election", func(t *testing.T) {
		sa := installRBAC(t, render(t, "rbac-ns", "rbac.scope=namespaced", "rbac.watchNamespaces={team-x}", "replicaCount=2", "metrics.secure=false"))
		runScanAs(t, sa.operator, "rbac-ns", "team-x", []string{"team-x"}, true)
		operatorHoldsNoMCPRights(t, sa.operator, "rbac-ns")
	})
}

// operatorHoldsNoMCPRights: the operator's account is bound neither to the
// MCP Role nor to system:auth-delegator any more: it reviews no tokens and
// reads no pod logs (it does review access, for decisions).
func operatorHoldsNoMCPRights(t *testing.T, sa, ns string) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(as(sa))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "x"}}
	_, err = cs.AuthenticationV1().TokenReviews().Create(ctx, review, metav1.CreateOptions{})
	forbidden(t, "a TokenReview as the operator", err)
	// The operator asks SubjectAccessReviews of its own: whether a
	// decision's decider may make it (internal/controller's decisions).
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "u",
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Group: "cwac.a11y.dev", Resource: "cwacissuedecisions", Namespace: ns},
	}}
	if _, err = cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{}); err != nil {
		t.Errorf("a SubjectAccessReview as the operator: %v", err)
	}
	// The operator does create CwacScans: a CwacScanSchedule's scans.
	err = cs.CoreV1().Pods(ns).GetLogs("any", &corev1.PodLogOptions{}).Do(ctx).Error()
	forbidden(t, "reading a pod log as the operator", err)
}

// forbidden: err must be the API server's 403, not any other failure.
func forbidden(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s: %v, want Forbidden", what, err)
	}
}

// TestChartRBACSufficesForTheMCPServer runs the MCP tools as the MCP server's
// own service account: creating, reading and listing scans and reading pod
// logs must all be allowed (the log read may still fail later: envtest has no
// kubelet), and nothing of the operator's rights is.
func TestChartRBACSufficesForTheMCPServer(t *testing.T) {
	const ns = "rbac-mcp"
	accts := installRBAC(t, render(t, ns))
	sa := accts.mcp
	restCfg := as(sa)
	c, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Config{Client: c, Clientset: cs, Namespace: ns, ResultsRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "rbac"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Teardown only: the test has its answers, and a failed close changes none.
	defer func() { _ = session.Close() }()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s as %s: %v", name, sa, err)
		}
		if res.IsError {
			// The tool's own words say why (a refusal names the permission).
			var text []string
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text = append(text, tc.Text)
				}
			}
			t.Fatalf("%s as %s refused: %s", name, sa, strings.Join(text, " "))
		}
		return res.StructuredContent.(map[string]any)
	}
	id := call("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}})["scan_id"].(string)
	// Give it a Job name and a pod so the status tool lists pods and asks for logs.
	scan := &cwacv1alpha1.CwacScan{}
	if err := admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: id}, scan); err != nil {
		t.Fatal(err)
	}
	job := scanjob.Job(scan, scanjob.Options{ResultsPVC: "r", DefaultImage: "i", RunnerImage: "r", CWACDir: "/cwac"}, scanjob.Baseline{})
	if err := admin.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	if _, err := kubesim.StartPod(ctx, admin, job, kubesim.Running()); err != nil {
		t.Fatal(err)
	}
	scan.Status = cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, JobName: job.Name}
	if err := admin.Status().Update(ctx, scan); err != nil {
		t.Fatal(err)
	}
	st2 := call("cwac_scan_status", map[string]any{"scan_id": id})
	if notes, _ := st2["notes"].([]any); len(notes) > 0 && strings.Contains(strings.ToLower(fmt.Sprint(notes)), "forbidden") {
		t.Errorf("reading the scan's log was forbidden: %v", notes)
	}
	list := call("cwac_list_scans", map[string]any{})
	if list["total"].(float64) < 1 {
		t.Errorf("list = %v", list)
	}
	if out := call("cwac_cancel_scan", map[string]any{"scan_id": id}); !strings.Contains(fmt.Sprint(out["message"]), "cancellation asked for") {
		t.Errorf("cancel = %v", out)
	}
	// The creation Event was recorded as the MCP server.
	events := &eventsv1.EventList{}
	_ = admin.List(ctx, events, client.InNamespace(ns))
	recorded := false
	for _, e := range events.Items {
		recorded = recorded || (e.Reason == "CreatedViaMCP" && e.Regarding.Name == id)
	}
	if !recorded {
		t.Error("the MCP server could not record who created the scan")
	}
	// In kubernetes auth mode it reviews callers' tokens and permissions, as
	// system:auth-delegator (bound by the chart) allows.
	callerToken := tokenFor(t, ns, "some-caller")
	auth := &mcpserver.KubernetesAuth{Clientset: cs}
	req, _ := http.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+callerToken)
	id2, err := auth.Authenticate(ctx, req)
	if err != nil || id2.User != "system:serviceaccount:"+ns+":some-caller" {
		t.Fatalf("TokenReview as the MCP server: %v %v", id2, err)
	}
	if err := auth.Authorize(ctx, id2, "list", "cwacscans", ns); err == nil || !strings.Contains(err.Error(), "may not list") {
		t.Errorf("SubjectAccessReview as the MCP server: %v (want a clear denial for a caller without RBAC)", err)
	}
	// It lists and watches decisions (the dashboard shows them, the history
	// records their changes).
	if err := c.List(ctx, &cwacv1alpha1.CwacIssueDecisionList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("listing decisions as the MCP server: %v", err)
	}
	if wc, err := client.NewWithWatch(restCfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	} else if w, err := wc.Watch(ctx, &cwacv1alpha1.CwacIssueDecisionList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("watching decisions as the MCP server: %v", err)
	} else {
		w.Stop()
	}
	mcpServerSendsDigests(t, c, ns)
	// And nothing beyond: the MCP server cannot delete or change scans, create
	// Jobs, Pods or ConfigMaps (what the operator may), or read Secrets.
	forbidden(t, "deleting a scan as the MCP server", c.Delete(ctx, scan))
	forbidden(t, "updating a scan as the MCP server", c.Update(ctx, scan))
	forbidden(t, "creating a Job as the MCP server", c.Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "mcp-job", Namespace: ns},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}}},
	}))
	forbidden(t, "creating a ConfigMap as the MCP server", c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mcp-cm", Namespace: ns}}))
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "mcp-secret", Namespace: ns}, StringData: map[string]string{"k": "v"}}
	if err := admin.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Secrets(ns).Get(ctx, secret.Name, metav1.GetOptions{})
	forbidden(t, "reading a Secret as the MCP server", err)
	_, err = cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	forbidden(t, "listing Secrets as the MCP server", err)
	// Its rights end at its namespace: no scans elsewhere.
	ensureNamespace(t, "rbac-mcp-other")
	forbidden(t, "listing scans in another namespace as the MCP server", c.List(ctx, &cwacv1alpha1.CwacScanList{}, client.InNamespace("rbac-mcp-other")))
}

// mcpServerSendsDigests: as the MCP server (c), a CwacDigest's status can
// be recorded and the schedules its owners are declared in listed, but the
// digest's spec cannot be changed.
func mcpServerSendsDigests(t *testing.T, c client.Client, ns string) {
	t.Helper()
	ctx := context.Background()
	digest := &cwacv1alpha1.CwacDigest{ObjectMeta: metav1.ObjectMeta{Name: "weekly", Namespace: ns},
		Spec: cwacv1alpha1.CwacDigestSpec{Schedule: "0 8 * * MON"}}
	if err := admin.Create(ctx, digest); err != nil {
		t.Fatal(err)
	}
	if err := c.List(ctx, &cwacv1alpha1.CwacScanScheduleList{}, client.InNamespace(ns)); err != nil {
		t.Errorf("listing schedules as the MCP server: %v", err)
	}
	sent := digest.DeepCopy()
	sent.Status.Period = &cwacv1alpha1.DigestPeriod{From: metav1.Now(), To: metav1.Now()}
	if err := c.Status().Patch(ctx, sent, client.MergeFrom(digest)); err != nil {
		t.Errorf("recording a digest's status as the MCP server: %v", err)
	}
	suspended := digest.DeepCopy()
	suspended.Spec.Suspend = true
	forbidden(t, "changing a digest's spec as the MCP server", c.Patch(ctx, suspended, client.MergeFrom(digest)))
}
