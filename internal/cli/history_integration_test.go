//go:build integration

package cli

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// TestHistoryAgainstTheMCPServer runs history and history trend against
// the real MCP server's HTTP handler and a real SQLite store holding two
// weeks of the real CWAC run (the logo's alt text fixed in the second), in
// Kubernetes auth mode: the caller's token and RBAC decide.
func TestHistoryAgainstTheMCPServer(t *testing.T) {
	c := envtestCluster(t)
	ctx := t.Context()
	st := storetest.OpenSQLite(t)
	week0 := time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC)
	for w, fixLogo := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := realcwac.Copy(dir); err != nil {
			t.Fatal(err)
		}
		if fixLogo {
			axe := filepath.Join(dir, "axe_core_audit.csv")
			data, err := os.ReadFile(axe)
			if err != nil {
				t.Fatal(err)
			}
			var kept [][]byte
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				if !bytes.Contains(line, []byte(`logo.png`)) {
					kept = append(kept, line)
				}
			}
			if err := os.WriteFile(axe, bytes.Join(kept, nil), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		name := []string{"week-1", "week-2"}[w]
		if _, err := ingest.Ingest(ctx, st, os.DirFS(dir), store.Scan{UID: name, Namespace: defaultMCPNamespace, Name: name,
			Schedule: "weekly", FinishedAt: week0.AddDate(0, 0, 7*w), Phase: "Complete"}, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	hostile := ingestHostileOrganisation(t, st, week0.AddDate(0, 0, 21))
	o := historyServer(t, c, st)
	kc := c.authKubeconfig(t, "history-reader", &clientcmdapi.AuthInfo{Token: serviceAccountToken(t, c, "history-reader")})
	run := func(args ...string) result { return runCLI(ctx, o(), kc, append(args, "-n", defaultMCPNamespace)...) }

	r := run("history", "--state", "fixed")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "Issues 1-2 of 2 in the issue history of namespace "+defaultMCPNamespace+":") ||
		strings.Count(r.stdout, "image-alt") != 2 || !strings.Contains(r.stdout, "week-2") {
		t.Fatalf("history --state fixed: %+v", r)
	}
	checkHistoryNamespace(t, func(args ...string) result { return runCLI(ctx, o(), kc, args...) })
	r = run("history", "--organisation", "CWAC Test Org", "--limit", "3", "-o", "json")
	var page mcpapi.IssueHistoryOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &page) != nil || page.Total != 17 || page.Returned != 3 || len(page.Issues[0].Fingerprint) != 32 {
		t.Fatalf("history -o json: %+v", r)
	}
	r = run("history", "trend", "CWAC Test Org", "--schedule", "weekly")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != ExitOK || len(lines) != 4 ||
		lines[0] != "CWAC Test Org in namespace "+defaultMCPNamespace+", schedule weekly: 2 scans" || !strings.Contains(lines[3], "week-2") {
		t.Fatalf("history trend: %+v", r)
	}
	checkHistoryChanges(t, run)
	r = run("history", "trend", "Nobody")
	if r.code != ExitError || !strings.Contains(r.stderr, `No organisation "Nobody" in the issue history`) {
		t.Fatalf("history trend of an unknown organisation: %+v", r)
	}
	checkNamesEscaped(t, run, hostile)
	r = run("history", "--state", "closed")
	if r.code != ExitError || !strings.Contains(r.stderr, `--state "closed"`) {
		t.Fatalf("a bad state: %+v", r)
	}

	// A token whose RBAC does not allow get on cwacscans reads nothing.
	r = runCLI(ctx, o(), c.authKubeconfig(t, "nobody", &clientcmdapi.AuthInfo{Token: tokenWithoutRights(t, c, "nobody")}), "history", "-n", defaultMCPNamespace)
	if r.code != ExitError || !strings.Contains(r.stderr, "Forbidden: system:serviceaccount:"+defaultMCPNamespace+":nobody may not get cwacscans") {
		t.Fatalf("history without get on cwacscans: %+v", r)
	}
}

// ingestHostileOrganisation records a scan of an organisation whose name
// carries terminal controls: OSC (the window's title), CSI (clear the
// screen), a C1 CSI and a bidirectional override. It returns the name.
func ingestHostileOrganisation(t *testing.T, st *store.Store, at time.Time) string {
	t.Helper()
	hostile := "Evil\x1b]0;owned\x07\x1b[2J\u009b31m\u202eOrg"
	dir := filepath.Join(t.TempDir(), "hostile")
	if err := realcwac.Copy(dir); err != nil {
		t.Fatal(err)
	}
	renameOrganisation(t, dir, "CWAC Test Org", hostile)
	if _, err := ingest.Ingest(t.Context(), st, os.DirFS(dir), store.Scan{UID: "hostile-1", Namespace: defaultMCPNamespace, Name: "hostile-1",
		FinishedAt: at, Phase: "Complete"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return hostile
}

// checkNamesEscaped: stored names reach the terminal shown, never acted on.
func checkNamesEscaped(t *testing.T, run func(args ...string) result, hostile string) {
	t.Helper()
	for _, args := range [][]string{{"history", "--organisation", hostile}, {"history", "trend", hostile}, {"history", "--limit", "50"}} {
		r := run(args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, `Evil\u001b]0;owned\u0007\u001b[2J\u009b31m\u202eOrg`) ||
			strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\u009b\u202e") {
			t.Errorf("%v printed controls, or not the name escaped: %+v", args[:2], r)
		}
	}
}

// renameOrganisation replaces an organisation's name in every CSV of a
// results directory.
func renameOrganisation(t *testing.T, dir, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".csv") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte(from), []byte(to)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tokenWithoutRights is the token of a new service account bound to nothing.
func tokenWithoutRights(t *testing.T, c *cluster, name string) string {
	t.Helper()
	ctx := t.Context()
	if err := c.admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: defaultMCPNamespace, Name: name}}); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(defaultMCPNamespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// checkHistoryNamespace: no scan names a namespace in history, so without
// -n it is the MCP server's; -n naming another is refused saying so.
func checkHistoryNamespace(t *testing.T, run func(args ...string) result) {
	t.Helper()
	r := run("history", "--state", "fixed")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "Issues 1-2 of 2 in the issue history of namespace "+defaultMCPNamespace+":") {
		t.Fatalf("history without -n: %+v", r)
	}
	r = run("history", "-n", "team-b")
	if r.code != ExitError || !strings.Contains(r.stderr, "and -n asks for team-b: leave out -n, or use --mcp-namespace team-b") ||
		strings.Contains(r.stderr, "scan") {
		t.Fatalf("history -n team-b: %+v", r)
	}
}

// historyServer serves the real MCP server over HTTP in Kubernetes auth
// mode with st as its issue history, until the test ends, and returns the
// plugin's options to reach it (a fresh set each run: Options keep what a
// run loaded).
func historyServer(t *testing.T, c *cluster, st *store.Store) func() *Options {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := &mcpserver.KubernetesAuth{Clientset: cs}
	srv, err := mcpserver.New(mcpserver.Config{Client: c.admin, Namespace: defaultMCPNamespace, ResultsRoot: t.TempDir(),
		Authorizer: auth, History: store.NewHandle(st)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler(mcpserver.HTTPOptions{Auth: auth}))
	t.Cleanup(hs.Close)
	return func() *Options { return &Options{MCP: StaticMCP{URL: hs.URL, Client: hs.Client()}} }
}

// checkHistoryChanges: week 2 fixed the logo's two image-alt issues (one a
// viewport): its changes, page by page, and as JSON for automation; a scan
// the history has not recorded is refused.
func checkHistoryChanges(t *testing.T, run func(args ...string) result) {
	t.Helper()
	// Week 2 fixed the logo's two image-alt issues (one a viewport): its
	// changes, page by page, and as JSON for automation.
	r := run("history", "changes", "week-2", "--limit", "1")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != ExitOK || len(lines) != 4 ||
		lines[0] != "1 changes to issues by scan week-2 in namespace "+defaultMCPNamespace+":" ||
		!strings.HasPrefix(lines[2], "fixed ") || !strings.Contains(lines[2], "image-alt") || !strings.HasPrefix(lines[3], "More: --after ") {
		t.Fatalf("history changes: %+v", r)
	}
	after := strings.TrimPrefix(strings.Split(strings.TrimSpace(r.stdout), "\n")[3], "More: --after ")
	r = run("history", "changes", "week-2", "--after", after, "-o", "json")
	var changes mcpapi.ScanChangesOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &changes) != nil || changes.Returned != 1 || changes.Next != 0 ||
		changes.Changes[0].Change != "fixed" || len(changes.Changes[0].Issue.Fingerprint) != 32 {
		t.Fatalf("history changes --after -o json: %+v", r)
	}
	r = run("history", "changes", "week-9")
	if r.code != ExitError || !strings.Contains(r.stderr, "Scan week-9 is not in the issue history") {
		t.Fatalf("history changes of a scan not recorded: %+v", r)
	}
}
