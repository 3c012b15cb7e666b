package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
)

// TestLibraryLogger: what controller-runtime logs reaches the server's log
// as its own lines, at the server's level: a library's verbose lines (an
// informer's watch closing is V(4)) are left out.
func TestLibraryLogger(t *testing.T) {
	var buf bytes.Buffer
	setLibraryLogger(slog.New(slog.NewJSONHandler(&buf, nil)).With("component", "mcp-server"))
	ctrl.Log.WithName("cache").Info("informer started", "kind", "CwacScan")
	ctrl.Log.V(4).Info("watch closed")
	out := buf.String()
	if !strings.Contains(out, `"msg":"informer started"`) || !strings.Contains(out, `"component":"mcp-server"`) || !strings.Contains(out, `"kind":"CwacScan"`) {
		t.Errorf("controller-runtime's line is not in the server's log:\n%s", out)
	}
	if strings.Contains(out, "watch closed") {
		t.Errorf("a V(4) line reached the server's log at its default level:\n%s", out)
	}
}
