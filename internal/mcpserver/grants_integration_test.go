//go:build integration

package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestOrganisationGrants: in one namespace with one scan of two
// organisations, a caller without RBAC on CwacScans reads, through the
// history tools, what the namespace's CwacOrganisationGrants give their
// user or groups, and nothing else; a refusal reads the same for an
// organisation that exists and one that does not; every tool that reads
// whole scans stays refused; a namespace reader still reads everything; a
// grant created while the server runs applies at once (the informer).
func TestOrganisationGrants(t *testing.T) {
	st := storetest.OpenSQLite(t)
	h, k, cs := kubernetesAuthHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	scans := StartScanCache(ctx, cfg, scheme, h.ns, slog.New(slog.DiscardHandler))
	grants := WatchGrants(ctx, scans, h.ns, slog.New(slog.DiscardHandler))
	if grants == nil {
		t.Fatal("the grants are not watched")
	}
	h.srv.cfg.History, h.srv.cfg.Grants = store.NewHandle(st), grants
	storetest.TwoAgencies(t, st, h.ns)
	_, base := serveAsTheBinaryDoes(t, h, HTTPOptions{Auth: k})

	health := serviceAccountToken(t, cs, h.ns, "health-reader")
	nobody := serviceAccountToken(t, cs, h.ns, "nobody")
	reader := serviceAccountToken(t, cs, h.ns, "namespace-reader", "get", "list")
	createGrant(t, h.ns, "health", cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "system:serviceaccount:" + h.ns + ":health-reader"}},
		Organisations: []string{"Ministry of Health"},
	})

	// The health reader: Health's issues only, once the informer has the grant.
	var out map[string]any
	for range 200 {
		if out = grantExecute(t, base, health, "cwac_issue_history", `{}`); out["status"] == "success" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	issues := output(t, out)
	if issues["total"] != 2.0 || strings.Contains(mustJSON(t, issues), "Education") {
		t.Fatalf("health reader's issues: %s", mustJSON(t, out))
	}
	if trend := output(t, grantExecute(t, base, health, "cwac_organisation_trend", `{"organisation":"Ministry of Health"}`)); len(trend["points"].([]any)) != 1 {
		t.Errorf("health reader's own trend: %v", trend)
	}
	checkGrantRefusals(t, base, health)
	checkGrantResources(t, base, health, h.ns)
	if _, err := mcpSession(t, base, nobody).GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "organisation_summary",
		Arguments: map[string]string{"scan_id": "weekly-1", "organisation": "Ministry of Health"}}); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a prompt for a caller with no access: %v", err)
	}
	// Nobody: no RBAC, no grant.
	if got := grantExecute(t, base, nobody, "cwac_issue_history", `{}`); !strings.Contains(got["error"].(string), "no CwacOrganisationGrant in namespace") {
		t.Errorf("nobody: %v", got)
	}
	// A namespace reader: everything.
	if all := output(t, grantExecute(t, base, reader, "cwac_issue_history", `{}`)); all["total"] != 5.0 {
		t.Errorf("namespace reader: %v", all)
	}

	// A group grant of a sector, created now: its members (every service
	// account of the namespace) read Education too.
	createGrant(t, h.ns, "education", cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectGroup, Name: "system:serviceaccounts:" + h.ns}},
		Sectors:  []string{"Education"},
	})
	for range 200 {
		if out = grantExecute(t, base, nobody, "cwac_issue_history", `{}`); out["status"] == "success" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := output(t, out); got["total"] != 3.0 {
		t.Errorf("nobody, by the group's grant: %v", got)
	}
	if got := output(t, grantExecute(t, base, health, "cwac_issue_history", `{}`)); got["total"] != 5.0 {
		t.Errorf("health reader, by both grants: %v", got)
	}
	if got := grantExecute(t, base, nobody, "cwac_sector_trend", `{"sector":"Education"}`); got["status"] != "success" {
		t.Errorf("a sector grant's sums: %v", got)
	}
	// The audit trail names the refused calls.
	for _, want := range []string{`"tool":"cwac_list_scans","caller":"kubernetes:system:serviceaccount:` + h.ns + `:health-reader"`,
		`"tool":"cwac_organisation_trend","caller":"kubernetes:system:serviceaccount:` + h.ns + `:health-reader"`} {
		found := false
		for _, line := range strings.Split(h.audit.String(), "\n") {
			found = found || (strings.Contains(line, want) && strings.Contains(line, `"outcome":"forbidden"`))
		}
		if !found {
			t.Errorf("no forbidden audit line with %s", want)
		}
	}
}

func createGrant(t *testing.T, ns, name string, spec cwacv1alpha1.CwacOrganisationGrantSpec) {
	t.Helper()
	g := &cwacv1alpha1.CwacOrganisationGrant{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}
	if err := k8s.Create(context.Background(), g); err != nil {
		t.Fatal(err)
	}
}

// grantExecute calls a tool over REST /execute with a bearer token.
func grantExecute(t *testing.T, base, token, tool, args string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/execute", strings.NewReader(`{"tool_name":"`+tool+`","arguments":`+args+`}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	_, body := oauthDo(t, req)
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, body)
	}
	return out
}

func output(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	r, ok := out["output"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", out)
	}
	return r
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkGrantRefusals: as the health reader, another organisation, one that
// does not exist and a sector's sums get the same refusal, and every tool
// that reads whole scans is refused saying what a grant gives.
func checkGrantRefusals(t *testing.T, base, health string) {
	t.Helper()
	// Another organisation, one that does not exist, a sector's sums: the same refusal.
	refusals := make([]string, 0, 4)
	for _, c := range []struct{ tool, args string }{
		{"cwac_organisation_trend", `{"organisation":"Ministry of Education"}`},
		{"cwac_organisation_trend", `{"organisation":"Ministry of Nothing"}`},
		{"cwac_issue_history", `{"organisation":"Ministry of Education"}`},
		{"cwac_issue_history", `{"organisation":"Ministry of Nothing"}`},
	} {
		got := grantExecute(t, base, health, c.tool, c.args)
		msg, _ := got["error"].(string)
		if got["status"] != "error" || !strings.Contains(msg, "not among the organisations your CwacOrganisationGrants give you") {
			t.Errorf("%s %s: %v", c.tool, c.args, got)
		}
		if strings.Contains(msg, "Education") || strings.Contains(msg, "Nothing") {
			t.Errorf("%s %s: the refusal names the organisation asked for: %q", c.tool, c.args, msg)
		}
		refusals = append(refusals, msg)
	}
	for _, m := range refusals[1:] {
		if m != refusals[0] {
			t.Errorf("refusals differ: %q and %q", refusals[0], m)
		}
	}
	if got := grantExecute(t, base, health, "cwac_sector_trend", `{"sector":"Health"}`); got["status"] != "error" {
		t.Errorf("an organisation grant read its sector's sums: %v", got)
	}
	// Whole scans: refused, saying what the grant gives.
	for _, tool := range []string{"cwac_list_scans", "cwac_get_results", "cwac_get_summary", "cwac_generate_report", "cwac_get_templates"} {
		args := `{"scan_id":"weekly-1"}`
		if tool == "cwac_list_scans" {
			args = `{}`
		}
		got := grantExecute(t, base, health, tool, args)
		if msg, _ := got["error"].(string); got["status"] != "error" || !strings.Contains(msg, "Forbidden") ||
			!strings.Contains(msg, "a CwacOrganisationGrant gives only") {
			t.Errorf("%s by grant: %v", tool, got)
		}
	}
}

// mcpSession connects an MCP client over HTTP with a bearer token until the
// test ends.
func mcpSession(t *testing.T, base, token string) *mcp.ClientSession {
	t.Helper()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "grant-client", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// checkGrantResources: over MCP, the health reader gets a prompt, reads
// their organisation's trend resource, and is refused another's and a
// scan's file.
func checkGrantResources(t *testing.T, base, token, ns string) {
	t.Helper()
	ctx := context.Background()
	session := mcpSession(t, base, token)
	prompt, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "organisation_summary",
		Arguments: map[string]string{"scan_id": "weekly-1", "organisation": "Ministry of Health"}})
	if err != nil || len(prompt.Messages) == 0 {
		t.Errorf("a prompt by grant: %v %v", prompt, err)
	}
	own, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: trendResourceURI(ns, "Ministry of Health")})
	if err != nil || len(own.Contents) != 1 || !strings.Contains(own.Contents[0].Text, `"organisation":"Ministry of Health"`) {
		t.Errorf("own trend resource: %v %v", own, err)
	}
	for _, uri := range []string{trendResourceURI(ns, "Ministry of Education"), "cwac://scans/" + ns + "/weekly-1/summary.json"} {
		if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil ||
			(!strings.Contains(err.Error(), "CwacOrganisationGrant") && !strings.Contains(err.Error(), "Forbidden")) {
			t.Errorf("%s: %v", uri, err)
		}
	}
}
