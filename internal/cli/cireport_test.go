package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckCIFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		set    []string
		want   string
	}{
		{"junit", nil, ""},
		{"sarif", nil, ""},
		{"xml", nil, `--format "xml": must be junit or sarif`},
		{"", nil, `--format "": must be junit or sarif`},
		{"sarif", []string{"limit", "audit"}, "--format sarif writes the whole scan's report: --audit, --limit do not apply to it"},
	} {
		err := checkCIFormat(tc.format, tc.set)
		if got := errText(err); got != tc.want {
			t.Errorf("checkCIFormat(%q, %v) = %q, want %q", tc.format, tc.set, got, tc.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestReadScanResource reads a resource from an MCP server over streamable
// HTTP, sending the user's token with every request.
func TestReadScanResource(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "f", URITemplate: "cwac://scans/{namespace}/{scan}/{file}"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if !strings.HasSuffix(req.Params.URI, "/results.sarif") {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: `{"version": "2.1.0"}` + "\n"}}}, nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	var tokens []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokens = append(tokens, r.Header.Get("Authorization"))
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()
	conn := &MCPConn{BaseURL: hs.URL, Client: hs.Client()}

	var out bytes.Buffer
	if err := readScanResource(context.Background(), conn, "tok", "ns", "scan-a", "results.sarif", &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"version": "2.1.0"}`+"\n" {
		t.Errorf("wrote %q", out.String())
	}
	if len(tokens) == 0 {
		t.Fatal("no request reached the server")
	}
	for _, tok := range tokens {
		if tok != "Bearer tok" {
			t.Errorf("a request carried %q", tok)
		}
	}
	err := readScanResource(context.Background(), conn, "tok", "ns", "scan-a", "junit.xml", &out)
	if err == nil || !strings.Contains(err.Error(), "reading cwac://scans/ns/scan-a/junit.xml") {
		t.Errorf("a missing resource: %v", err)
	}
}
