//go:build integration

package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// writeLargeAudit replaces the scan's axe CSV with rows numbered in their
// issue_id column, a third of them critical.
func writeLargeAudit(t *testing.T, dir string, rows int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("\xef\xbb\xbforganisation,url,issue_id,impact,num_issues,html\n")
	for i := range rows {
		fmt.Fprintf(&b, "Org,http://a.example/%d,%d,%s,1,\"<p>\n%d</p>\"\n", i%50, i, []string{"critical", "serious", "minor"}[i%3], i)
	}
	if err := os.WriteFile(filepath.Join(dir, "axe_core_audit.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeRowIndex(t *testing.T, dir string) []byte {
	t.Helper()
	b := results.NewIndexBuilder(0)
	if err := results.Walk(context.Background(), os.DirFS(dir), b); err != nil {
		t.Fatal(err)
	}
	data, err := b.Index().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The row index gives the exact total and the same page as a read from the
// start; without it, or with an index that fails validation, the page is
// the same and the total a lower bound.
func TestGetResultsPagesWithRowIndex(t *testing.T) {
	h := newHarness(t)
	id := h.mustCall("cwac_scan", map[string]any{"urls": []any{"https://a.example/"}, "audit_name": "paged"})["scan_id"].(string)
	dir := filepath.Join(h.root, h.completeScan(id))
	const rows = 3 * results.CountAheadRows
	writeLargeAudit(t, dir, rows)
	index := writeRowIndex(t, dir)
	lying := strings.Replace(string(index), `"every":1024`, `"every":7`, 1) // fails validation: checkpoint counts disagree

	tests := []struct {
		name      string
		index     []byte // nil: no index file
		wantExact bool
	}{
		{name: "no index (CWAC run by hand)"},
		{name: "the runner's index", index: index, wantExact: true},
		{name: "garbage", index: []byte("\x00{not json")},
		{name: "an index that does not add up", index: []byte(lying)},
	}
	args := map[string]any{"scan_id": id, "audit_type": "axe_core_audit", "impact": "critical", "offset": 5000, "limit": 3}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(dir, results.RowIndexFile))
			if tt.index != nil {
				if err := os.WriteFile(filepath.Join(dir, results.RowIndexFile), tt.index, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := h.mustCall("cwac_get_results", args)
			rowsGot := out["results"].([]any)
			got := make([]string, 0, len(rowsGot))
			for _, r := range rowsGot {
				got = append(got, r.(map[string]any)["issue_id"].(string))
			}
			// Critical rows are every third: the 5000th is row 15000.
			if diff := cmp.Diff([]string{"15000", "15003", "15006"}, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if tt.wantExact {
				if out["total_results"] != float64(rows/3) || out["total_is_lower_bound"] != nil ||
					!strings.Contains(out["note"].(string), fmt.Sprintf("3 of %d matching rows", rows/3)) {
					t.Errorf("indexed answer: total %v, lower bound %v, note %v", out["total_results"], out["total_is_lower_bound"], out["note"])
				}
				return
			}
			if out["total_is_lower_bound"] != true || out["total_results"].(float64) >= float64(rows/3) ||
				!strings.Contains(out["note"].(string), "of at least") {
				t.Errorf("unindexed answer: total %v, lower bound %v, note %v", out["total_results"], out["total_is_lower_bound"], out["note"])
			}
		})
	}
}

// BenchmarkGetResultsPage is one indexed page of 100 rows of a real scan's
// axe rows: the tool's own work (getResults) and the whole MCP call.
func BenchmarkGetResultsPage(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "2026-11-21_23-18-23_bench")
	if err := os.CopyFS(dir, os.DirFS(fixtureDir)); err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(fixtureDir, "axe_core_audit.csv"))
	if err != nil {
		b.Fatal(err)
	}
	header, body, _ := strings.Cut(string(src), "\n")
	big := header + "\n" + strings.Repeat(body, 100) // 1,400 rows
	if err := os.WriteFile(filepath.Join(dir, "axe_core_audit.csv"), []byte(big), 0o644); err != nil {
		b.Fatal(err)
	}
	idx := results.NewIndexBuilder(0)
	if err := results.Walk(context.Background(), os.DirFS(dir), idx); err != nil {
		b.Fatal(err)
	}
	data, _ := idx.Index().Marshal()
	if err := os.WriteFile(filepath.Join(dir, results.RowIndexFile), data, 0o644); err != nil {
		b.Fatal(err)
	}
	srv, err := New(Config{Client: k8s, Namespace: "default", ResultsRoot: root, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	in := mcpapi.ResultsInput{ScanID: "2026-11-21_23-18-23_bench", AuditType: "axe_core_audit", Limit: 100, Offset: 500}
	b.Run("getResults", func(b *testing.B) {
		for b.Loop() {
			if _, err := srv.getResults(context.Background(), &callInfo{}, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	ctx := b.Context()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"scan_id": in.ScanID, "audit_type": in.AuditType, "limit": in.Limit, "offset": in.Offset}
	b.Run("MCP call", func(b *testing.B) {
		for b.Loop() {
			if res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "cwac_get_results", Arguments: args}); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
