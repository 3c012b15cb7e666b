//go:build integration

package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/seaweedfs"
)

// TestResultsFromABucketReadTheSame: the same scans' results on the
// results volume and in a bucket (a real S3 server, read with an account
// that may only read) give the same answer to every tool that reads
// results, the same resources (CSV, SARIF, JUnit) and the same issue
// history, recorded by a writer reading each store. Paths naming keys
// outside the scans' are refused as they are on the volume.
func TestResultsFromABucketReadTheSame(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, "cwac-results")
	bucketCfg := func(a seaweedfs.Account) objectstore.Config { return srv.Config(t, a, "cwac-results", "results") }
	historyOnVolume, historyFromBucket := storetest.OpenSQLite(t), storetest.OpenSQLite(t)
	volume, base, scan, _ := compareFixture(t, func(c *Config) { c.History = store.NewHandle(historyOnVolume) })

	// The scans' directories go to the bucket as the runner stores them.
	writer, err := objectstore.Open(bucketCfg(srv.Admin))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := writer.Upload(ctx, filepath.Join(volume.root, volume.ns), volume.ns, objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	reader, err := objectstore.Open(bucketCfg(srv.Reader))
	if err != nil {
		t.Fatal(err)
	}
	bucket := connectHarness(t, volume.ns, func(c *Config) {
		c.ResultsBucket, c.History = reader, store.NewHandle(historyFromBucket)
	})

	runHistoryWriter(t, volume.ns, historyOnVolume, OpenScanResults(volume.root, nil))
	runHistoryWriter(t, volume.ns, historyFromBucket, OpenScanResults(t.TempDir(), reader))
	for _, st := range []*store.Store{historyOnVolume, historyFromBucket} {
		waitRecordedIn(t, st, volume.ns, base, scan)
	}

	type call struct {
		tool string
		args map[string]any
	}
	perScan := []string{
		"cwac_get_summary", "cwac_get_results", "cwac_get_templates", "cwac_get_page_titles",
		"cwac_get_readability", "cwac_get_broken_responses", "cwac_scan_status", "cwac_generate_report",
	}
	calls := make([]call, 0, 7+2*(len(perScan)+2))
	calls = append(calls,
		call{"cwac_list_scans", map[string]any{}},
		call{"cwac_compare_scans", map[string]any{"scan_id": scan}},
		call{"cwac_compare_scans", map[string]any{"scan_id": scan, "change": "fixed"}},
		call{"cwac_issue_history", map[string]any{"organisation": fixtureOrg}},
		call{"cwac_issue_history", map[string]any{"state": "fixed"}},
		call{"cwac_organisation_trend", map[string]any{"organisation": fixtureOrg}},
		call{"cwac_scan_changes", map[string]any{"scan_id": scan}},
	)
	for _, id := range []string{base, scan} {
		for _, tool := range perScan {
			calls = append(calls, call{tool, map[string]any{"scan_id": id}})
		}
		calls = append(calls,
			call{"cwac_get_results", map[string]any{"scan_id": id, "audit_type": "axe_core_audit", "impact": "serious", "limit": 5}},
			call{"cwac_generate_report", map[string]any{"scan_id": id, "regenerate": true}})
	}
	for _, c := range calls {
		want, got := volume.mustCall(c.tool, c.args), bucket.mustCall(c.tool, c.args)
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%s %v differs:\nvolume %.1500s\nbucket %.1500s", c.tool, c.args, a, b)
		}
		if len(a) < 100 {
			t.Errorf("%s %v answered only %s: the comparison proves little", c.tool, c.args, a)
		}
	}

	prefix := "cwac://scans/" + volume.ns + "/" + scan + "/"
	for _, uri := range []string{
		prefix + "axe_core_audit.csv", prefix + "pages_scanned.csv", prefix + cireport.SARIFFile, prefix + cireport.JUnitFile + "?fail_at=moderate",
	} {
		want, err := readResourceText(volume, uri)
		if err != nil {
			t.Fatalf("%s from the volume: %v", uri, err)
		}
		got, err := readResourceText(bucket, uri)
		if err != nil || got != want {
			t.Errorf("%s from the bucket: %d bytes (%v), want the volume's %d", uri, len(got), err, len(want))
		}
	}

	// Nothing outside a scan's directory is read through a scan ID naming a path.
	for _, id := range []string{"../results", volume.ns + "/../" + volume.ns, "/" + volume.ns, volume.ns + "/" + scan + "/..", "results/" + volume.ns} {
		_, want := volume.call("cwac_get_summary", map[string]any{"scan_id": id})
		_, got := bucket.call("cwac_get_summary", map[string]any{"scan_id": id})
		if got == "" || got != want {
			t.Errorf("scan_id %q: the bucket answered %q, the volume %q; want the same refusal", id, got, want)
		}
	}
}

// readResourceText reads one resource's text through h's client.
func readResourceText(h *harness, uri string) (string, error) {
	got, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range got.Contents {
		b.WriteString(c.Text)
	}
	return b.String(), nil
}

// waitRecordedIn waits until st holds each of the scans.
func waitRecordedIn(t *testing.T, st *store.Store, ns string, ids ...string) {
	t.Helper()
	for range 1000 {
		all := true
		for _, id := range ids {
			ok, err := st.HasScan(context.Background(), string(getScanObj(t, ns, id).UID))
			all = all && ok && err == nil
		}
		if all {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("scans %v not recorded within 20s", ids)
}

// TestRunningScanProgressFromABucket: while a scan whose results go to a
// bucket runs, the progress its pod sends there (CWAC's progress.csv, and
// the pod's .upload-check beside it) is what cwac_scan_status shows.
func TestRunningScanProgressFromABucket(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, "cwac-results")
	reader, err := objectstore.Open(srv.Config(t, srv.Reader, "cwac-results", "results"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(c *Config) { c.ResultsBucket = reader })
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "life"})["scan_id"].(string)
	scan := getScanObj(t, h.ns, id)
	pod := t.TempDir()
	progress := "\xef\xbb\xbftime,iteration,total,speed,percent,elapsed,remaining\r\n" +
		"1795303112.5,1,50,0.11,2.0,0h 0m,0h 7m\r\n" +
		"1795303118.6,3,50,0.13,6.0,0h 0m,0h 6m\r\n"
	if err := os.MkdirAll(filepath.Join(pod, "2026-11-22_01-00-00_life"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{".upload-check": "2026-11-22T01:00:00Z", "2026-11-22_01-00-00_life/progress.csv": progress} {
		if err := os.WriteFile(filepath.Join(pod, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writer, err := objectstore.Open(srv.Config(t, srv.Admin, "cwac-results", "results"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Upload(context.Background(), pod, scanspec.ScanDir(scan), objectstore.UploadRetry); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, StartTime: &now, ResultsPath: scanspec.ScanDir(scan)})
	st := h.mustCall("cwac_scan_status", map[string]any{"scan_id": id})
	if diff := cmp.Diff(map[string]any{"pages_done": 3.0, "pages_estimated": 50.0, "percent": 6.0}, st["progress"]); diff != "" {
		t.Errorf("progress from the bucket (-want +got):\n%s", diff)
	}
}
