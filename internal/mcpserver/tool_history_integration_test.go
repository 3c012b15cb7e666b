//go:build integration

package mcpserver

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/historywriter"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// fixtureOrg is the real run's one organisation.
const fixtureOrg = "CWAC Test Org"

// historyFixture is a harness whose server reads a real SQLite store, and
// a writer recording the namespace's finished scans into it through the
// scan cache's informer, as the MCP server runs them.
type historyFixture struct {
	*harness
	st    *store.Store
	scans []string
	week0 time.Time
}

func newHistoryFixture(t *testing.T, mutate ...func(*Config)) *historyFixture {
	t.Helper()
	st := storetest.OpenSQLite(t)
	h := newHarness(t, append([]func(*Config){func(c *Config) { c.History = store.NewHandle(st) }}, mutate...)...)
	return &historyFixture{harness: h, st: st, week0: time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC)}
}

// weeklyScan creates a scan and plays the operator finishing it in week
// w with the real run's results, edited by edit first: the results are in
// place before the status says Complete, as a scan pod leaves them.
func (f *historyFixture) weeklyScan(w int, edit func(t *testing.T, dir string)) string {
	f.t.Helper()
	id := f.mustCall("cwac_scan", map[string]any{"urls": []any{"http://127.0.0.1:8765/"}, "audit_name": "weekly"})["scan_id"].(string)
	scan := getScanObj(f.t, f.ns, id)
	rel := scanspec.ScanDir(scan) + "/2026-11-21_23-18-23_" + scanspec.AuditName(scan)
	copyFixture(f.t, filepath.Join(f.root, rel))
	if edit != nil {
		edit(f.t, filepath.Join(f.root, rel))
	}
	scan.Status = cwacv1alpha1.CwacScanStatus{
		Phase: cwacv1alpha1.PhaseComplete, ResultsPath: rel, CompletionTime: &metav1.Time{Time: f.week0.AddDate(0, 0, 7*w)},
		JobName: scanspec.JobName(scan), Summary: &cwacv1alpha1.ScanSummary{PagesScanned: 4},
	}
	if err := k8s.Status().Update(context.Background(), scan); err != nil {
		f.t.Fatal(err)
	}
	f.scans = append(f.scans, id)
	return id
}

// runWriter runs the history's writer on the namespace's scan cache until
// the test ends.
func (f *historyFixture) runWriter() {
	f.t.Helper()
	runHistoryWriter(f.t, f.ns, f.st, OpenScanResults(f.root, nil))
}

// runHistoryWriter runs a history writer recording the namespace's
// finished scans into st, reading their results through open, until the
// test ends.
func runHistoryWriter(t *testing.T, ns string, st *store.Store, open func(context.Context, *cwacv1alpha1.CwacScan) (fs.FS, func(), error)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.DiscardHandler)
	scans := StartScanCache(ctx, cfg, scheme, ns, log)
	if scans == nil {
		t.Fatal("the scan cache did not sync")
	}
	informer, err := scans.GetInformer(ctx, &cwacv1alpha1.CwacScan{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := historywriter.NewWriter(historywriter.Config{Store: st, Scans: ScanLister{Reader: scans, Namespace: ns}, Changes: informer,
		Open: open, Clientset: cs, Holder: "test", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = w.Run(ctx) }()
}

// waitRecorded waits until the store holds each of the scans.
func (f *historyFixture) waitRecorded(ids ...string) {
	f.t.Helper()
	waitRecordedIn(f.t, f.st, f.ns, ids...)
}

// restoreLogo undoes fixLogoAlt: the real run's results again.
func restoreLogo(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "axe_core_audit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "axe_core_audit.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIssueHistoryAndTrend: three weekly scans — the real run, the logo's
// alt text fixed, the fix undone — recorded by the writer (the first two
// by its backfill, the third when it finishes), then read through the two
// tools and the trend resource.
func TestIssueHistoryAndTrend(t *testing.T) {
	f := newHistoryFixture(t)
	w1 := f.weeklyScan(0, nil)
	w2 := f.weeklyScan(1, fixLogoAlt)
	f.runWriter()
	f.waitRecorded(w1, w2)
	w3 := f.weeklyScan(2, restoreLogo)
	f.waitRecorded(w3)

	f.checkTrend(w1, w2, w3)
	f.checkIssues(w1, w3)
	f.checkTrendResource()
	// Each scan says it was recorded.
	for _, id := range f.scans {
		if !hasEvent(t, f.ns, id, cwacv1alpha1.ReasonHistoryRecorded) {
			t.Errorf("scan %s has no %s Event", id, cwacv1alpha1.ReasonHistoryRecorded)
		}
	}
}

// checkTrend: the organisation's three points, with the fix and its undoing.
func (f *historyFixture) checkTrend(w1, w2, w3 string) {
	t, ns := f.t, f.ns
	t.Helper()
	trend := f.mustCall("cwac_organisation_trend", map[string]any{"organisation": fixtureOrg})
	points, _ := trend["points"].([]any)
	if len(points) != 3 || trend["namespace"] != ns || trend["organisation"] != fixtureOrg {
		t.Fatalf("trend: %v", trend)
	}
	want := []struct {
		scan                                string
		issues, new, fixed, reopened, pages float64
	}{{w1, 17, 17, 0, 0, 4}, {w2, 15, 0, 2, 0, 4}, {w3, 17, 0, 0, 2, 4}}
	for i, w := range want {
		p := points[i].(map[string]any)
		if p["scan"] != ns+"/"+w.scan || p["issues"] != w.issues || p["new"] != w.new || p["fixed"] != w.fixed ||
			p["reopened"] != w.reopened || p["pages"] != w.pages || p["elements"] == nil || p["by_impact"] == nil {
			t.Errorf("point %d: %v, want %+v", i, p, w)
		}
		if at, _ := time.Parse(time.RFC3339, p["finished_at"].(string)); !at.Equal(f.week0.AddDate(0, 0, 7*i)) {
			t.Errorf("point %d finished at %v", i, p["finished_at"])
		}
	}

}

// checkIssues: the issues, the two reopened ones in detail, and the filters.
func (f *historyFixture) checkIssues(w1, w3 string) {
	t, ns := f.t, f.ns
	t.Helper()
	all := f.mustCall("cwac_issue_history", nil)
	issues, _ := all["issues"].([]any)
	if all["total"] != 17.0 || all["returned"] != 17.0 || len(issues) != 17 || all["namespace"] != ns {
		t.Fatalf("all issues: total %v, returned %v", all["total"], all["returned"])
	}
	reopened := f.mustCall("cwac_issue_history", map[string]any{"reopened_only": true, "organisation": fixtureOrg})
	rows, _ := reopened["issues"].([]any)
	if reopened["total"] != 2.0 || len(rows) != 2 {
		t.Fatalf("reopened: %v", reopened)
	}
	for _, r := range rows {
		is := r.(map[string]any)
		if is["state"] != "open" || is["reopened"] != 1.0 || is["scans_present"] != 2.0 || is["first_seen_scan"] != ns+"/"+w1 ||
			is["last_seen_scan"] != ns+"/"+w3 || is["fixed_in_scan"] != nil || is["rule"] != "image-alt" || is["organisation"] != fixtureOrg ||
			!strings.Contains(is["element_html"].(string), "logo.png") || len(is["fingerprint"].(string)) != 32 || is["impact"] != "critical" {
			t.Errorf("a reopened issue: %v", is)
		}
	}
	for _, tc := range []struct {
		name            string
		args            map[string]any
		total, returned float64
	}{
		{"open", map[string]any{"state": "open"}, 17, 17},
		{"fixed", map[string]any{"state": "FIXED"}, 0, 0},
		{"one rule", map[string]any{"rule": "image-alt"}, 4, 4},
		{"a page", map[string]any{"page": "http://127.0.0.1:8765/"}, issuesOnHome(t, f), issuesOnHome(t, f)},
		{"a page, written otherwise", map[string]any{"page": "HTTP://127.0.0.1:8765"}, issuesOnHome(t, f), issuesOnHome(t, f)},
		{"a page not scanned", map[string]any{"page": "http://127.0.0.1:8765/nowhere"}, 0, 0},
		{"paged", map[string]any{"limit": 5, "offset": 15}, 17, 2},
		{"past the end", map[string]any{"offset": 40}, 17, 0},
	} {
		out := f.mustCall("cwac_issue_history", tc.args)
		if out["total"] != tc.total || out["returned"] != tc.returned || len(out["issues"].([]any)) != int(tc.returned) {
			t.Errorf("%s: total %v, returned %v; want %v, %v", tc.name, out["total"], out["returned"], tc.total, tc.returned)
		}
	}

}

// checkTrendResource: the trend as a resource, listed and read, and no
// other namespace's.
func (f *historyFixture) checkTrendResource() {
	t := f.t
	t.Helper()
	uri := "cwac://history/" + f.ns + "/CWAC%20Test%20Org/trend"
	list, err := f.session.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, r := range list.Resources {
		listed = listed || r.URI == uri
	}
	if !listed {
		t.Errorf("resources/list does not name %s", uri)
	}
	res, err := f.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	var fromResource map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &fromResource); err != nil || len(fromResource["points"].([]any)) != 3 {
		t.Errorf("the trend resource: %v %v", res.Contents[0].Text, err)
	}
	if _, err := f.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "cwac://history/other/CWAC%20Test%20Org/trend"}); err == nil {
		t.Error("another namespace's trend was read")
	}
}

func issuesOnHome(t *testing.T, f *historyFixture) float64 {
	t.Helper()
	page, err := f.st.IssueHistory(context.Background(), store.IssueFilter{Namespaces: []string{f.ns}, Page: "http://127.0.0.1:8765/"})
	if err != nil || page.Total == 0 {
		t.Fatalf("issues on the home page: %v %v", page.Total, err)
	}
	return float64(page.Total)
}

func hasEvent(t *testing.T, ns, scan, reason string) bool {
	t.Helper()
	for range 250 {
		list := &eventsv1.EventList{}
		if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, e := range list.Items {
			if e.Regarding.Name == scan && e.Reason == reason {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestIssueHistoryScopeAndErrors: the tools read only the server's
// namespace (totals included), page within the answer's cap, and refuse bad
// arguments; without a store they say history is not configured.
func TestIssueHistoryScopeAndErrors(t *testing.T) {
	f := newHistoryFixture(t, func(c *Config) { c.MaxResponseBytes = 12 << 10 })
	f.weeklyScan(0, nil)
	f.runWriter()
	f.waitRecorded(f.scans...)
	// The same organisation's issues recorded in another namespace.
	root, err := os.OpenRoot(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = root.Close() }()
	if _, err := ingest.Ingest(context.Background(), f.st, root.FS(), store.Scan{UID: "other-1", Namespace: "other", Name: "w",
		FinishedAt: f.week0, Phase: "Complete"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}

	out := f.mustCall("cwac_issue_history", map[string]any{"limit": 17})
	if out["total"] != 17.0 || out["truncated"] != true || out["returned"].(float64) >= 17 ||
		!strings.Contains(out["note"].(string), "continue with offset") {
		t.Errorf("a capped page: total %v, returned %v, truncated %v, note %v", out["total"], out["returned"], out["truncated"], out["note"])
	}
	if data, _ := json.Marshal(out); len(data) > 12<<10 {
		t.Errorf("the answer is %d bytes, over the cap", len(data))
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"cwac_issue_history", map[string]any{"state": "closed"}, `Invalid state: "closed"`},
		{"cwac_issue_history", map[string]any{"limit": 501}, "Invalid limit: 501"},
		{"cwac_issue_history", map[string]any{"offset": -1}, "Invalid offset: -1"},
		{"cwac_issue_history", map[string]any{"organisation": "Nobody"}, `No organisation "Nobody" in the issue history of namespace ` + f.ns},
		{"cwac_organisation_trend", map[string]any{"organisation": "Nobody"}, `No organisation "Nobody"`},
		{"cwac_organisation_trend", map[string]any{"organisation": ""}, "organisation is required"},
		{"cwac_organisation_trend", map[string]any{}, "invalid arguments"},
	} {
		if _, text := f.call(tc.tool, tc.args); !strings.HasPrefix(text, tc.want) {
			t.Errorf("%s(%v): %q, want it to start with %q", tc.tool, tc.args, text, tc.want)
		}
	}

	bare := newHarness(t)
	for _, tool := range []string{"cwac_issue_history", "cwac_organisation_trend"} {
		if _, text := bare.call(tool, map[string]any{"organisation": fixtureOrg}); !strings.HasPrefix(text, "The issue history is not configured") {
			t.Errorf("%s without a store: %q", tool, text)
		}
	}
}
