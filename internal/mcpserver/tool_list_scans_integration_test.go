//go:build integration

package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// listCounter counts the CwacScan lists that reach the API server.
func listCounter(n *atomic.Int64) client.Client {
	return interceptor.NewClient(withWatchClient(), interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*cwacv1alpha1.CwacScanList); ok {
				n.Add(1)
			}
			return c.List(ctx, list, opts...)
		},
	})
}

func withWatchClient() client.WithWatch {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	return c
}

// With the cache, cwac_list_scans lists no scans from the API server, and a
// scan created through the tools is listed once the watch brings it.
func TestListScansFromCache(t *testing.T) {
	var direct atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := newHarness(t, func(c *Config) {
		c.Client = WithScanListCache(ctx, cfg, scheme, c.Namespace, listCounter(&direct), log)
	})
	if _, ok := h.srv.access.client.(scanListClient); !ok {
		t.Fatalf("client %T: the cache did not sync", h.srv.access.client)
	}
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "cached"})["scan_id"].(string)
	deadline := time.Now().Add(30 * time.Second) // a wait for the watch, not a timing assertion
	for {
		out := h.mustCall("cwac_list_scans", map[string]any{})
		if out["total"] == 1.0 && out["scans"].([]any)[0].(map[string]any)["scan_id"] == id {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new scan never appeared: %v", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A Get stays direct: the status of the scan just created is found.
	if st := h.mustCall("cwac_scan_status", map[string]any{"scan_id": id}); st["status"] != "pending" {
		t.Errorf("status = %v", st)
	}
	if n := direct.Load(); n != 0 {
		t.Errorf("%d CwacScan lists reached the API server, want 0", n)
	}
}

// A finished scan's directory stats are remembered until the directory
// itself changes.
func TestListScansRemembersDirStats(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "stats"})["scan_id"].(string)
	dir := filepath.Join(h.root, h.completeScan(id))
	size := func() float64 {
		t.Helper()
		return h.mustCall("cwac_list_scans", map[string]any{})["scans"].([]any)[0].(map[string]any)["size_bytes"].(float64)
	}
	appendTo := func(name string, n int) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	first := size()
	appendTo("title_audit.csv", 1000) // the directory's own modification time does not change
	if got := size(); got != first {
		t.Errorf("size %v after an append, want the remembered %v", got, first)
	}
	appendTo("new.txt", 10) // a new file changes the directory: counted again
	if got := size(); got != first+1010 {
		t.Errorf("size %v after a new file, want %v", got, first+1010)
	}
}

// The walk for directories with no CwacScan is reused for walkCacheTTL.
func TestListScansWalkIsCached(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := newHarness(t, func(c *Config) { c.Now = func() time.Time { return now } })
	count := func() float64 { return h.mustCall("cwac_list_scans", map[string]any{})["total"].(float64) }
	copyFixture(t, filepath.Join(h.root, "by-hand", "2025-01-02_03-04-05_one"))
	if got := count(); got != 1 {
		t.Fatalf("total = %v, want 1", got)
	}
	copyFixture(t, filepath.Join(h.root, "by-hand", "2025-01-02_03-04-06_two"))
	if got := count(); got != 1 {
		t.Errorf("total = %v within the walk's lifetime, want the remembered 1", got)
	}
	now = now.Add(walkCacheTTL)
	if got := count(); got != 2 {
		t.Errorf("total = %v after %v, want 2", got, walkCacheTTL)
	}
}
