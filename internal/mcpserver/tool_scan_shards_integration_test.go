//go:build integration

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// threeSites are three sites of two organisations.
var threeSites = []any{
	map[string]any{"url": "https://a.example/", "organisation": "A"},
	map[string]any{"url": "https://a2.example/", "organisation": "A"},
	map[string]any{"url": "https://b.example/", "organisation": "B"},
}

// TestScanShardsReachSpec: shards and shard_failure_policy become the
// scan's spec.shards and spec.shardFailurePolicy; left out, they stay unset.
func TestScanShardsReachSpec(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name       string
		args       map[string]any
		wantShards int32
		wantPolicy cwacv1alpha1.ShardFailurePolicy
	}{
		{"left out", map[string]any{}, 0, ""},
		{"one shard", map[string]any{"shards": 1}, 1, ""},
		{"as many as sites, partial", map[string]any{"shards": 3, "shard_failure_policy": "Partial"}, 3, cwacv1alpha1.ShardFailurePolicyPartial},
		{"two, fail", map[string]any{"shards": 2, "shard_failure_policy": "Fail"}, 2, cwacv1alpha1.ShardFailurePolicyFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["sites"] = threeSites
			out := h.mustCall("cwac_scan", tt.args)
			scan := getScanObj(t, h.ns, out["scan_id"].(string))
			if scan.Spec.Shards != tt.wantShards || scan.Spec.ShardFailurePolicy != tt.wantPolicy {
				t.Errorf("spec shards %d policy %q, want %d %q", scan.Spec.Shards, scan.Spec.ShardFailurePolicy, tt.wantShards, tt.wantPolicy)
			}
		})
	}
}

// TestScanShardsRefusals: the CRD's bounds on shards and its policy names
// are the API server's to enforce (the dry run), and the refusal names the
// argument. Nothing is created.
func TestScanShardsRefusals(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		args map[string]any
		want []string // each must be in the error
	}{
		{"zero shards", map[string]any{"shards": 0}, []string{"invalid scan: shards: ", "greater than or equal to 1"}},
		{"negative shards", map[string]any{"shards": -2}, []string{"shards: ", "greater than or equal to 1"}},
		{"65 shards", map[string]any{"shards": 65}, []string{"shards: ", "less than or equal to 64"}},
		{"shards beyond 32 bits", map[string]any{"shards": int64(1) << 40}, []string{"shards: ", "less than or equal to 64"}},
		{"more shards than sites", map[string]any{"shards": 4}, []string{"shards: ", "may not exceed the number of sites"}},
		{"unknown policy", map[string]any{"shards": 2, "shard_failure_policy": "Ignore"}, []string{"shard_failure_policy: ", `"Fail"`, `"Partial"`}},
		{"policy in lower case", map[string]any{"shards": 2, "shard_failure_policy": "partial"}, []string{"shard_failure_policy: "}},
		{"shards not a number", map[string]any{"shards": "two"}, []string{"shards"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["sites"] = threeSites
			_, errText := h.call("cwac_scan", tt.args)
			t.Log(errText)
			for _, want := range tt.want {
				if !strings.Contains(strings.ToLower(errText), strings.ToLower(want)) {
					t.Errorf("error %q, want it to contain %q", errText, want)
				}
			}
			if strings.Contains(errText, "spec.") {
				t.Errorf("error %q names API fields, not the tool's arguments", errText)
			}
		})
	}
	if n := scanCount(t, h.ns); n != 0 {
		t.Errorf("refused calls created %d scans", n)
	}
}

// TestShardsInStatusAndList: a sharded scan's status.shards shows in
// cwac_scan_status and cwac_list_scans, as fields and in words; an
// unsharded scan shows none.
func TestShardsInStatusAndList(t *testing.T) {
	h := newHarness(t)
	sharded := h.mustCall("cwac_scan", map[string]any{"sites": threeSites, "shards": 3, "audit_name": "sharded"})["scan_id"].(string)
	plain := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://c.example/"}})["scan_id"].(string)
	now := metav1.Now()
	tests := []struct {
		name   string
		shards cwacv1alpha1.ShardStatus
		want   map[string]any
	}{
		{"running", cwacv1alpha1.ShardStatus{Total: 3, Running: 2, Succeeded: 1},
			map[string]any{"total": 3.0, "running": 2.0, "succeeded": 1.0, "failed": 0.0, "merged": false,
				"summary": "1/3 done, 2 running, 0 failed"}},
		{"one failed", cwacv1alpha1.ShardStatus{Total: 3, Running: 1, Succeeded: 1, Failed: 1, FailedIndexes: "2"},
			map[string]any{"total": 3.0, "running": 1.0, "succeeded": 1.0, "failed": 1.0, "failed_indexes": "2", "merged": false,
				"summary": "1/3 done, 1 running, 1 failed (shards 2)"}},
		{"merged", cwacv1alpha1.ShardStatus{Total: 3, Succeeded: 3, Merged: true},
			map[string]any{"total": 3.0, "running": 0.0, "succeeded": 3.0, "failed": 0.0, "merged": true,
				"summary": "3/3 done, 0 running, 0 failed, merged"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.setStatus(sharded, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, StartTime: &now, Shards: &tt.shards})
			st := h.mustCall("cwac_scan_status", map[string]any{"scan_id": sharded})
			if diff := cmp.Diff(tt.want, st["shards"]); diff != "" {
				t.Errorf("cwac_scan_status shards (-want +got):\n%s", diff)
			}
			list := h.mustCall("cwac_list_scans", map[string]any{})
			for _, e := range list["scans"].([]any) {
				entry := e.(map[string]any)
				switch entry["scan_id"] {
				case sharded:
					if diff := cmp.Diff(tt.want, entry["shards"]); diff != "" {
						t.Errorf("cwac_list_scans shards (-want +got):\n%s", diff)
					}
				case plain:
					if _, ok := entry["shards"]; ok {
						t.Errorf("unsharded scan listed with shards: %v", entry)
					}
				}
			}
		})
	}
	if st := h.mustCall("cwac_scan_status", map[string]any{"scan_id": plain}); st["shards"] != nil {
		t.Errorf("unsharded scan's status has shards: %v", st["shards"])
	}
}

// TestShardedScanProgress: while a sharded scan runs, its progress is its
// shards' progress.csv added up, and a waiting client's notifications say
// how many shards are done.
func TestShardedScanProgress(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"sites": threeSites, "shards": 2, "audit_name": "paced"})["scan_id"].(string)
	scan := getScanObj(t, h.ns, id)
	for i, rows := range []string{
		"1795303112.5,1,20,0.11,5.0,0h 0m,0h 7m\r\n1795303118.6,6,20,0.13,30.0,0h 0m,0h 6m\r\n",
		"1795303112.5,4,10,0.11,40.0,0h 0m,0h 7m\r\n",
	} {
		dir := filepath.Join(h.root, scanspec.ScanDir(scan), scanpod.ShardDir(i), "2026-11-22_01-00-00_paced")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		progress := "\xef\xbb\xbftime,iteration,total,speed,percent,elapsed,remaining\r\n" + rows
		if err := os.WriteFile(filepath.Join(dir, "progress.csv"), []byte(progress), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := metav1.Now()
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, StartTime: &now, ResultsPath: scanspec.ScanDir(scan),
		Shards: &cwacv1alpha1.ShardStatus{Total: 2, Running: 2}})

	var mu sync.Mutex
	var notes []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := h.srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "waiter", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, req.Params.Message)
		},
	})
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = session.Close() }()
	params := &mcp.CallToolParams{Name: "cwac_scan_status", Arguments: map[string]any{"scan_id": id}}
	params.SetProgressToken("shards-1")
	res, err := session.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("cwac_scan_status: %v %+v", err, res)
	}
	got := res.StructuredContent.(map[string]any)["progress"]
	if diff := cmp.Diff(map[string]any{"pages_done": 10.0, "pages_estimated": 30.0, "percent": 33.3}, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	// The notification may be handled just after the answer arrives.
	for i := 0; i < 250 && noteCount(&mu, &notes) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "10 of about 30 pages; shards 0/2 done, 2 running, 0 failed"
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("progress notifications %q, want [%q]", notes, want)
	}
}

func noteCount(mu *sync.Mutex, notes *[]string) int {
	mu.Lock()
	defer mu.Unlock()
	return len(*notes)
}
