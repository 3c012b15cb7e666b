//go:build integration

package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestScanGetListCancel(t *testing.T) {
	c := envtestCluster(t)
	ctx := t.Context()
	r := runCLI(ctx, &Options{}, c.adminKubeconfig, "scan", "-n", "team-a", "--name", "s1",
		"--url", "https://www.example.govt.nz/", "--site", "https://example.org/,Example Org,Health",
		"--threads", "2", "--timeout", "30m", "--max-critical", "0", "--max-total", "100")
	if r.code != ExitOK || r.stdout != "cwacscan/s1\n" {
		t.Fatalf("scan: %+v", r)
	}
	got := &cwacv1alpha1.CwacScan{}
	if err := c.admin.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "s1"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.ThreadCount != 2 || got.Spec.Timeout != "30m" || len(got.Spec.Sites) != 1 || got.Spec.Sites[0].Organisation != "Example Org" ||
		got.Spec.Thresholds == nil || got.Spec.Thresholds.MaxIssuesByImpact["critical"] != 0 || *got.Spec.Thresholds.MaxTotalIssues != 100 {
		t.Errorf("created spec: %+v", got.Spec)
	}

	// A generated name is printed.
	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "scan", "-n", "team-a", "--url", "https://www.example.govt.nz/")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "cwacscan/cwac-") {
		t.Fatalf("scan with a generated name: %+v", r)
	}

	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "get", "s1", "-n", "team-a", "-o", "json")
	var fromJSON cwacv1alpha1.CwacScan
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &fromJSON) != nil || fromJSON.Name != "s1" || fromJSON.Kind != "CwacScan" {
		t.Fatalf("get -o json: %+v", r)
	}
	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "list", "-n", "team-a")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "NAME ") || !strings.Contains(r.stdout, "\ns1 ") || !strings.Contains(r.stdout, "\ncwac-") {
		t.Fatalf("list: %+v", r)
	}
	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "list", "-A", "-o", "yaml")
	if r.code != ExitOK || !strings.Contains(r.stdout, "\nkind: List\n") || !strings.Contains(r.stdout, "  kind: CwacScan\n") {
		t.Fatalf("list -A -o yaml: %+v", r)
	}
	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "get", "nope", "-n", "team-a")
	if r.code != ExitError || !strings.Contains(r.stderr, `cannot get CwacScan team-a/nope: cwacscans.cwac.a11y.dev "nope" not found`) {
		t.Fatalf("get of a missing scan: %+v", r)
	}
}

func TestCancel(t *testing.T) {
	c := envtestCluster(t)
	ctx := t.Context()
	c.createScan(t, "team-a", "to-cancel")
	r := runCLI(ctx, &Options{}, c.adminKubeconfig, "cancel", "to-cancel", "-n", "team-a")
	if r.code != ExitOK || r.stdout != "cwacscan/to-cancel cancel requested\n" {
		t.Fatalf("cancel: %+v", r)
	}
	got := &cwacv1alpha1.CwacScan{}
	if err := c.admin.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "to-cancel"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Annotations[cwacv1alpha1.AnnotationCancel] != "true" {
		t.Errorf("annotations after cancel: %v", got.Annotations)
	}
	r = runCLI(ctx, &Options{}, c.adminKubeconfig, "cancel", "nope", "-n", "team-a")
	if r.code != ExitError || !strings.Contains(r.stderr, "cancel CwacScan team-a/nope") {
		t.Fatalf("cancel of a missing scan: %+v", r)
	}
}

func TestUsageErrors(t *testing.T) {
	c := envtestCluster(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"scan", "-n", "team-a"}, "no URL to scan"},
		// The API server judges a URL's form; the refusal names the flag.
		{[]string{"scan", "-n", "team-a", "--url", "ftp://x/"},
			`the API server refused the scan: --url or --urls-file (spec.urls[0]): Invalid value: "ftp://x/": should match '^https?://`},
		{[]string{"scan", "-n", "team-a", "--site", "https://a.example/" + strings.Repeat("x", 2048) + ",Org"},
			"--site or --urls-file (spec.sites[0].url): Too long: may not be more than 2048"},
		{[]string{"scan", "-n", "team-a", "--url", "https://a.example/", "--threads", "x"}, `invalid argument "x" for "--threads"`},
		{[]string{"scan", "-n", "team-a", "--url", "https://a.example/", "-o", "xml"}, `-o/--output "xml"`},
		{[]string{"get"}, "expected one scan name, got 0 arguments"},
		{[]string{"results", "s", "--impact", "severe"}, `--impact "severe"`},
		{[]string{"diff", "s", "--change", "gone"}, `--change "gone"`},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runCLI(t.Context(), &Options{MCP: unusedMCP{t}}, c.adminKubeconfig, tt.args...)
			if r.code != ExitError || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("got %+v, want exit 1 and %q", r, tt.want)
			}
		})
	}
}

func TestScanWait(t *testing.T) {
	c := envtestCluster(t)
	running := func(st *cwacv1alpha1.CwacScanStatus) {
		st.Phase = cwacv1alpha1.PhaseRunning
		st.Message = "CWAC is running"
	}
	complete := func(met metav1.ConditionStatus, reason, msg string) func(*cwacv1alpha1.CwacScanStatus) {
		return func(st *cwacv1alpha1.CwacScanStatus) {
			st.Phase = cwacv1alpha1.PhaseComplete
			st.Message = "scanned 6 pages"
			st.Summary = &cwacv1alpha1.ScanSummary{TotalIssues: 17, PagesScanned: 6, UrlsScanned: 1, IssuesByImpact: map[string]int64{"critical": 2}}
			setCondition(st, cwacv1alpha1.ConditionThresholdsMet, met, reason, msg)
		}
	}
	failed := func(st *cwacv1alpha1.CwacScanStatus) {
		st.Phase = cwacv1alpha1.PhaseFailed
		st.Message = "CWAC exited with code 1"
		st.Failure = &cwacv1alpha1.ScanFailure{Reason: "CWACExitedNonZero", Cause: "ValueError: bad config"}
		setCondition(st, cwacv1alpha1.ConditionThresholdsMet, metav1.ConditionFalse, cwacv1alpha1.ReasonScanFailed, "no results")
	}
	tests := []struct {
		name      string
		extra     []string
		updates   []func(*cwacv1alpha1.CwacScanStatus)
		wantCode  int
		wantErr   string
		wantLines []string
	}{
		{"passes", nil, []func(*cwacv1alpha1.CwacScanStatus){running, complete(metav1.ConditionTrue, cwacv1alpha1.ReasonNoThresholds, "none")},
			ExitOK, "", []string{"w-passes: Pending", "w-passes: Running - CWAC is running", "w-passes: Complete, 6 pages, 17 issues"}},
		{"gate fails", []string{"--max-critical", "0"}, []func(*cwacv1alpha1.CwacScanStatus){running,
			complete(metav1.ConditionFalse, cwacv1alpha1.ReasonThresholdsCrossed, "critical issues: 2 > 0")},
			ExitThresholdsCrossed, "scan w-gate-fails crossed its thresholds: critical issues: 2 > 0", []string{"w-gate-fails: Complete, 6 pages, 17 issues"}},
		{"scan fails", nil, []func(*cwacv1alpha1.CwacScanStatus){failed},
			ExitScanFailed, "scan w-scan-fails failed: CWACExitedNonZero: CWAC exited with code 1 (ValueError: bad config)", []string{"w-scan-fails: Failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "w-" + strings.ReplaceAll(tt.name, " ", "-")
			done := make(chan result, 1)
			stderr := &syncBuffer{}
			go func() {
				args := append([]string{"scan", "-n", "team-a", "--name", name, "--url", "https://www.example.govt.nz/", "--wait", "-o", "name"}, tt.extra...)
				done <- runCLIWith(t.Context(), &Options{}, stderr, c.adminKubeconfig, args...)
			}()
			// The status changes only once the command has read the new
			// scan: a change made before its first read would be the first
			// state it sees, and the Pending line would never be written.
			stderr.waitFor(t, "team-a/"+name+": Pending\n")
			for _, u := range tt.updates {
				c.setStatus(t, "team-a", name, u)
			}
			r := <-done
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %+v", r.code, tt.wantCode, r)
			}
			if tt.wantErr != "" && !strings.Contains(r.stderr, "error: "+tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, r.stderr)
			}
			if r.stdout != "cwacscan/"+name+"\n" {
				t.Errorf("stdout %q", r.stdout)
			}
			for _, want := range tt.wantLines {
				if !strings.Contains(r.stderr, "team-a/"+want+"\n") {
					t.Errorf("progress lacks line %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "\r") {
				t.Errorf("progress off a terminal must be plain lines:\n%q", r.stderr)
			}
		})
	}
}

func TestWaitLiveProgressAndTimeout(t *testing.T) {
	c := envtestCluster(t)
	c.createScan(t, "team-a", "live")
	c.setStatus(t, "team-a", "live", func(st *cwacv1alpha1.CwacScanStatus) { st.Phase = cwacv1alpha1.PhaseRunning })
	o := &Options{IsTerminal: func(io.Writer) bool { return true }}
	ctx, cancel := context.WithCancel(t.Context())
	stderr := &syncBuffer{}
	done := make(chan result, 1)
	go func() { done <- runCLIWith(ctx, o, stderr, c.adminKubeconfig, "wait", "live", "-n", "team-a") }()
	c.setStatus(t, "team-a", "live", func(st *cwacv1alpha1.CwacScanStatus) { st.Message = "CWAC is running" })
	stderr.waitFor(t, "team-a/live: Running - CWAC is running")
	cancel()
	r := <-done
	if r.code != ExitError || !strings.Contains(r.stderr, "\r\x1b[Kteam-a/live: Running") {
		t.Fatalf("live progress: %+v", r)
	}

	r = runCLI(t.Context(), &Options{}, c.adminKubeconfig, "wait", "live", "-n", "team-a", "--wait-timeout", "1ms")
	if r.code != ExitError || !strings.Contains(r.stderr, "gave up waiting (--wait-timeout)") {
		t.Fatalf("wait timeout: %+v", r)
	}
}

func TestRBACRefusal(t *testing.T) {
	c := envtestCluster(t)
	kc, err := c.userKubeconfig("alice")
	if err != nil {
		t.Fatal(err)
	}
	c.grant(t, "team-a", "alice-scans", rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"},
		"get", "list", "watch", "create", "patch")
	c.createScan(t, "team-b", "other-team")
	ctx := t.Context()
	if r := runCLI(ctx, &Options{}, kc, "list", "-n", "team-a"); r.code != ExitOK {
		t.Fatalf("list in her own namespace: %+v", r)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "-n", "team-b"}, "the API server refused to list CwacScans in namespace team-b (403 Forbidden: your RBAC does not allow it)"},
		{[]string{"list", "-A"}, "refused to list CwacScans in all namespaces (403 Forbidden"},
		{[]string{"get", "other-team", "-n", "team-b"}, "refused to get CwacScan team-b/other-team (403 Forbidden"},
		{[]string{"scan", "-n", "team-b", "--url", "https://a.example/"}, "refused to create a CwacScan in namespace team-b (403 Forbidden"},
		{[]string{"cancel", "other-team", "-n", "team-b"}, "refused to cancel CwacScan team-b/other-team (patch its annotations) (403 Forbidden"},
		{[]string{"wait", "other-team", "-n", "team-b"}, "refused to get CwacScan team-b/other-team (403 Forbidden"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runCLI(ctx, &Options{}, kc, tt.args...)
			if r.code != ExitError || !strings.Contains(r.stderr, tt.want) || !strings.Contains(r.stderr, `User "alice" cannot`) {
				t.Errorf("got %+v\nwant exit 1 and %q", r, tt.want)
			}
		})
	}
	got := &cwacv1alpha1.CwacScan{}
	err = c.admin.Get(ctx, client.ObjectKey{Namespace: "team-b", Name: "other-team"}, got)
	if err != nil || got.Annotations[cwacv1alpha1.AnnotationCancel] != "" {
		t.Errorf("the refused cancel changed the scan: %v %v", err, got.Annotations)
	}
}
