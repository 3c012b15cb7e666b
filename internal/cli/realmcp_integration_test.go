//go:build integration

package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
)

// TestAgainstTheMCPServer runs results, diff and report against the real
// MCP server's HTTP handler, in Kubernetes auth mode against envtest (a
// TokenReview of the user's token and a SubjectAccessReview per call), over
// testdata's real CWAC output: the plugin and the server agree on the wire.
func TestAgainstTheMCPServer(t *testing.T) {
	c := envtestCluster(t)
	ctx := t.Context()
	root := t.TempDir()
	const resultsDir = "2026-11-21_23-18-23_real-scan-1"
	for _, name := range []string{"real-base", "real-scan"} {
		scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: name},
			Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"http://127.0.0.1:8765/"}, AuditName: "real-scan-1"}}
		if name == "real-scan" {
			scan.Spec.Baseline = "real-base"
		}
		if err := c.admin.Create(ctx, scan); err != nil {
			t.Fatal(err)
		}
		rel := defaultMCPNamespace + "/" + name + "/" + resultsDir
		if err := files.CopyDir(filepath.Join("..", "..", "testdata", "cwac-results", resultsDir), filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
		c.setStatus(t, defaultMCPNamespace, name, func(st *cwacv1alpha1.CwacScanStatus) {
			st.Phase = cwacv1alpha1.PhaseComplete
			st.ResultsPath = rel
			if name == "real-scan" {
				st.Summary = &cwacv1alpha1.ScanSummary{TotalIssues: 17, PagesScanned: 4,
					Diff: &cwacv1alpha1.ScanDiff{Baseline: "real-base", Unchanged: 17}}
			}
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionTrue,
				Reason: cwacv1alpha1.ReasonNoThresholds, Message: "none"})
		})
	}
	cs, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := &mcpserver.KubernetesAuth{Clientset: cs}
	srv, err := mcpserver.New(mcpserver.Config{Client: c.admin, Namespace: defaultMCPNamespace, ResultsRoot: root, Authorizer: auth})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler(mcpserver.HTTPOptions{Auth: auth}))
	defer hs.Close()
	token := serviceAccountToken(t, c, "real-reader")
	kc := c.authKubeconfig(t, "real-reader", &clientcmdapi.AuthInfo{Token: token})
	o := func() *Options {
		return &Options{MCP: StaticMCP{URL: hs.URL, Client: hs.Client()}, OpenBrowser: func(string) error { t.Error("a browser was opened"); return nil }}
	}
	run := func(args ...string) result {
		return runCLI(ctx, o(), kc, append(args, "-n", defaultMCPNamespace)...)
	}

	r := run("results", "real-scan", "--audit", "axe_core_audit", "--impact", "serious", "--limit", "2")
	if r.code != ExitOK || !strings.Contains(r.stdout, "color-contrast") || !strings.Contains(r.stdout, "CWAC Test Org") ||
		!strings.Contains(r.stderr, "2 of ") {
		t.Fatalf("results: %+v", r)
	}
	r = run("results", "real-scan", "--issues-only", "-o", "csv", "--limit", "1000")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "audit_type,organisation,sector,page_title,base_url,url,viewport_size,id,impact,num_issues,") {
		t.Fatalf("results csv: %+v", r)
	}
	checkCIFormats(t, run)
	checkSignals(t, run)
	r = run("diff", "real-scan")
	if r.code != ExitOK || !strings.Contains(r.stdout, "real-scan compared with real-base") || !strings.Contains(r.stdout, " 0 new, 0 fixed, ") {
		t.Fatalf("diff: %+v", r)
	}
	out := filepath.Join(t.TempDir(), "report.html")
	r = run("report", "real-scan", "--output", out)
	data, err := os.ReadFile(out)
	if r.code != ExitOK || err != nil || !strings.Contains(strings.ToLower(string(data[:min(len(data), 200)])), "<!doctype html>") {
		t.Fatalf("report: %+v %v %q", r, err, data[:min(len(data), 200)])
	}

	// The counts in the status need neither the MCP server nor a token.
	r = runCLI(ctx, &Options{MCP: unusedMCP{t}}, c.adminKubeconfig, "diff", "real-scan", "--counts-only", "-n", defaultMCPNamespace)
	if r.code != ExitOK || r.stdout != "real-scan compared with real-base: 0 new, 0 fixed, 17 unchanged, 0 unstable\n" {
		t.Fatalf("diff --counts-only: %+v", r)
	}
	r = runCLI(ctx, &Options{MCP: unusedMCP{t}}, c.adminKubeconfig, "summary", "real-scan", "-n", defaultMCPNamespace, "-o", "json")
	var sum ScanSummaryOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.Summary == nil || sum.Summary.Diff.Unchanged != 17 || sum.Thresholds != "None" {
		t.Fatalf("summary -o json: %+v", r)
	}

	// The server's own refusal, in words: the API server takes the admin's
	// client certificate, the MCP server cannot review the token.
	r = runCLI(ctx, o(), c.adminKubeconfig, "results", "real-scan", "-n", defaultMCPNamespace, "--token", "not-a-token")
	if r.code != ExitError || !strings.Contains(r.stderr, "the MCP server did not accept your token (401 Unauthorized)") {
		t.Fatalf("bad token: %+v", r)
	}
}

// checkCIFormats: `results --format` writes the scan's SARIF and JUnit
// reports, read through the MCP server's resources.
func checkCIFormats(t *testing.T, run func(args ...string) result) {
	t.Helper()
	r := run("results", "real-scan", "--format", "sarif")
	if r.code != ExitOK || !strings.Contains(r.stdout, `"version": "2.1.0"`) || !strings.Contains(r.stdout, `"ruleId":"color-contrast"`) ||
		!strings.Contains(r.stdout, `"scan": "real-scan"`) {
		t.Fatalf("results --format sarif: %+v", r)
	}
	r = run("results", "real-scan", "--format", "junit")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "<?xml") || !strings.Contains(r.stdout, `<testsuites name="cwac real-scan" tests="7" failures="6"`) {
		t.Fatalf("results --format junit: %+v", r)
	}
	r = run("results", "real-scan", "--format", "sarif", "--limit", "2")
	if r.code == ExitOK || !strings.Contains(r.stderr, "--limit do not apply") {
		t.Fatalf("results --format with --limit: %+v", r)
	}
}

// checkSignals: `signals --kind` shows each of CWAC's signals as the MCP
// tools give them, over testdata's real output (its one broken link is
// missing.html, a 404 linked from the home page).
func checkSignals(t *testing.T, run func(args ...string) result) {
	t.Helper()
	r := run("signals", "real-scan", "--kind", "responses")
	if r.code != ExitOK || !strings.Contains(r.stdout, "1 broken responses met while crawling (404 1)") ||
		!strings.Contains(r.stdout, "http://127.0.0.1:8765/missing.html") || !strings.Contains(r.stderr, "1 of 1 items.") {
		t.Fatalf("signals responses: %+v", r)
	}
	r = run("signals", "real-scan", "--kind", "titles", "-o", "json")
	var titles map[string]any
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &titles) != nil || titles["scan_id"] != "real-scan" || titles["pages"] == nil {
		t.Fatalf("signals titles -o json: %+v", r)
	}
	r = run("signals", "real-scan", "--kind", "templates")
	if r.code != ExitOK || !strings.Contains(r.stdout, "template issues holding") || !strings.Contains(r.stdout, "ORGANISATION  RULE") {
		t.Fatalf("signals templates: %+v", r)
	}
	r = run("signals", "real-scan", "--kind", "readability")
	if r.code != ExitOK || !strings.Contains(r.stdout, "1 pages measured") ||
		!strings.Contains(r.stdout, "CWAC Test Org  5.3    8.1   http://127.0.0.1:8765/clean.html") {
		t.Fatalf("signals readability: %+v", r)
	}
	r = run("signals", "real-scan", "--kind", "headings")
	if r.code == ExitOK || !strings.Contains(r.stderr, `--kind "headings": want one of readability, responses, templates, titles`) {
		t.Fatalf("signals --kind headings: %+v", r)
	}
}
