package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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
	var uris []string
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "f", URITemplate: "cwac://scans/{namespace}/{scan}/{file}{?fail_at}"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uris = append(uris, req.Params.URI)
			if !strings.Contains(req.Params.URI, "/results.sarif") {
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
	if err := readScanResource(context.Background(), conn, "tok", "ns", "scan-a", "results.sarif", "", &out); err != nil {
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
	err := readScanResource(context.Background(), conn, "tok", "ns", "scan-a", "junit.xml", "", &out)
	if err == nil || !strings.Contains(err.Error(), "reading cwac://scans/ns/scan-a/junit.xml") {
		t.Errorf("a missing resource: %v", err)
	}

	// A fail-at impact goes to the server as the resource's fail_at parameter.
	out.Reset()
	uris = nil
	if err := readScanResource(context.Background(), conn, "tok", "ns", "scan-a", "results.sarif", "moderate", &out); err != nil {
		t.Fatal(err)
	}
	if want := []string{"cwac://scans/ns/scan-a/results.sarif?fail_at=moderate"}; !slices.Equal(uris, want) {
		t.Errorf("the server was asked for %q, want %q", uris, want)
	}
}

func TestCheckFailAt(t *testing.T) {
	for _, impact := range []string{"critical", "serious", "moderate", "minor"} {
		if err := checkFailAt(impact); err != nil {
			t.Errorf("checkFailAt(%q) = %v", impact, err)
		}
	}
	for _, bad := range []string{"", "high", "Serious", "minor,serious"} {
		want := fmt.Sprintf("--fail-at %q: must be one of critical, serious, moderate, minor", bad)
		if got := errText(checkFailAt(bad)); got != want {
			t.Errorf("checkFailAt(%q) = %q, want %q", bad, got, want)
		}
	}
}

// `results --fail-at` is refused before anything is read: without --format
// junit or sarif, with an impact axe does not have (or none), and with a
// format that is not a CI report's.
func TestResultsFailAtRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fail-at", "moderate"}, "error: --fail-at sets the CI report's fail-at impact: it needs --format junit or --format sarif\n"},
		{[]string{"--format", "junit", "--fail-at", "high"}, `error: --fail-at "high": must be one of critical, serious, moderate, minor` + "\n"},
		{[]string{"--format", "sarif", "--fail-at="}, `error: --fail-at "": must be one of critical, serious, moderate, minor` + "\n"},
		{[]string{"--format", "xml", "--fail-at", "minor"}, `error: --format "xml": must be junit or sarif` + "\n"},
	} {
		var out, errOut bytes.Buffer
		o := &Options{Streams: genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}}
		code := Run(context.Background(), o, append([]string{"--kubeconfig", "/nonexistent", "results", "weekly-1"}, tc.args...))
		if code == ExitOK || errOut.String() != tc.want || out.Len() != 0 {
			t.Errorf("results %v: exit %d, stderr %q, stdout %q; want stderr %q", tc.args, code, errOut.String(), out.String(), tc.want)
		}
	}
}
