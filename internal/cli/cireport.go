package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// The CI formats `kubectl cwac results --format` writes, and the scan
// resource each is read from (docs/ci.md).
var ciFormats = map[string]string{
	"junit": cireport.JUnitFile,
	"sarif": cireport.SARIFFile,
}

// flagFailAt is the flag that sets the CI report's fail-at impact.
const flagFailAt = "fail-at"

// checkCIFormat refuses a format other than junit or sarif, and the row
// flags beside one: a CI report is the whole scan's.
func checkCIFormat(format string, rowFlagsSet []string) error {
	if _, ok := ciFormats[format]; !ok {
		return fmt.Errorf("--format %q: must be junit or sarif", textcap.Head(format, 40))
	}
	if len(rowFlagsSet) > 0 {
		slices.Sort(rowFlagsSet)
		return fmt.Errorf("--format %s writes the whole scan's report: %s do not apply to it",
			format, "--"+strings.Join(rowFlagsSet, ", --"))
	}
	return nil
}

// checkFailAt refuses a fail-at impact that is not one of axe's.
func checkFailAt(failAt string) error {
	if impacts := results.Impacts(); !slices.Contains(impacts, failAt) {
		return fmt.Errorf("--%s %q: must be one of %s", flagFailAt, textcap.Head(failAt, 40), strings.Join(impacts, ", "))
	}
	return nil
}

// readScanResource reads a scan's file through the MCP server's resources
// (MCP over streamable HTTP, with the user's token) and writes its text to
// w. failAt, when set, asks for a CI report at that fail-at impact.
func readScanResource(ctx context.Context, conn *MCPConn, token, namespace, scan, file, failAt string, w io.Writer) error {
	base := conn.Client
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	hc.Transport = bearerTransport{next: base.Transport, token: token}
	client := mcp.NewClient(&mcp.Implementation{Name: "kubectl-cwac", Version: "v1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: conn.BaseURL + "/mcp", HTTPClient: &hc, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return fmt.Errorf("connecting to the MCP server: %w", err)
	}
	defer func() { _ = session.Close() }() // a read: nothing to lose
	uri := "cwac://scans/" + namespace + "/" + scan + "/" + file
	if failAt != "" {
		uri += "?" + url.Values{cireport.FailAtParameter: {failAt}}.Encode()
	}
	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return fmt.Errorf("reading %s: %w", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text == "" {
		return fmt.Errorf("reading %s: the MCP server answered no text", uri)
	}
	_, err = io.WriteString(w, res.Contents[0].Text)
	return err
}

// bearerTransport sends the user's token with every request.
type bearerTransport struct {
	next  http.RoundTripper
	token string
}

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := b.next
	if next == nil {
		next = http.DefaultTransport
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return next.RoundTrip(req)
}
