//go:build integration

package mcpserver

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// TestStatusWaits: with wait_seconds the answer comes when the scan
// finishes, with progress notifications meanwhile for a client that asked.
func TestStatusWaits(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "wait"})["scan_id"].(string)
	scan := getScanObj(t, h.ns, id)
	rel := scanspec.ScanDir(scan) + "/2026-11-21_23-18-23_" + scanspec.AuditName(scan)
	copyFixture(t, h.root+"/"+rel)
	now := metav1.Now()
	h.setStatus(id, cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, ResultsPath: rel, StartTime: &now})

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

	go func() {
		time.Sleep(3 * time.Second)
		h.completeScan(id)
	}()
	start := time.Now()
	params := &mcp.CallToolParams{Name: "cwac_scan_status", Arguments: map[string]any{"scan_id": id, "wait_seconds": 20}}
	params.SetProgressToken("wait-1")
	res, err := session.CallTool(ctx, params)
	took := time.Since(start)
	if err != nil || res.IsError {
		t.Fatalf("cwac_scan_status: %v %+v", err, res)
	}
	if got := res.StructuredContent.(map[string]any)["status"]; got != "complete" {
		t.Errorf("status %v after waiting %s, want complete", got, took)
	}
	if took >= 15*time.Second {
		t.Errorf("the answer waited %s, past the scan's completion", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) < 2 || !strings.Contains(notes[0], "pages") {
		t.Errorf("progress notifications %q, want one per look while it ran", notes)
	}

	for _, wait := range []int{-1, 26} {
		_, errText := h.call("cwac_scan_status", map[string]any{"scan_id": id, "wait_seconds": wait})
		if !strings.Contains(errText, "wait_seconds must be between 0 and 25") {
			t.Errorf("wait_seconds %d: %q", wait, errText)
		}
	}
}
