package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

// A finished scan's files are MCP resources:
//
//	cwac://scans/{namespace}/{scan}/{file}
//
// file is report.html, summary.json, leaderboard.csv, diff.json, trend.json,
// results.sarif, junit.xml (built when the volume lacks them, or when asked
// for at another fail-at impact: ?fail_at=moderate) or one of CWAC's result
// CSVs; nothing else on the volume (screenshots, logs, CWAC's config) can
// be named. Reads go through the same store, confinement and
// caller authorisation (get on cwacscans) as the tools.
const (
	resourceScheme   = "cwac"
	resourceTemplate = "cwac://scans/{namespace}/{scan}/{file}{?" + cireport.FailAtParameter + "}"
	// resourceReadName is the audit log's name for resource reads, and the
	// key of the caller verb they need.
	resourceReadName = "resources/read"
	resourceListName = "resources/list"
	// trendReadName is the audit log's name for reads of an organisation's
	// trend resource: what cwac_organisation_trend answers, so it needs
	// what that tool needs (and a grant of the organisation is enough).
	trendReadName = "resources/read trend"
	// maxListedScans bounds resources/list: the newest finished scans.
	maxListedScans = 50
)

// resourceFiles are the files a scan's resources may name beyond its result
// CSVs, with their MIME types.
var resourceFiles = map[string]string{
	report.HTMLFile:        "text/html",
	results.SummaryFile:    mimeJSON,
	report.LeaderboardFile: mimeCSV,
	results.DiffFile:       mimeJSON,
	report.TrendFile:       mimeJSON,
	cireport.SARIFFile:     mimeSARIF,
	cireport.JUnitFile:     mimeXML,
}

// MIME types of the resources.
const (
	mimeJSON = "application/json"
	mimeCSV  = "text/csv"
)

// resourceURI is the URI of one file of a scan.
func resourceURI(namespace, scan, file string) string {
	return fmt.Sprintf("%s://scans/%s/%s/%s", resourceScheme, namespace, scan, file)
}

// parseResourceURI splits a resource URI, refusing anything that is not
// exactly cwac://scans/<namespace>/<scan>/<file> with a file a scan's
// resources may name.
func parseResourceURI(uri string) (namespace, scan, file string, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != resourceScheme || u.Host != "scans" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", "", fmt.Errorf("not a CWAC resource URI (want %s): %q", resourceTemplate, truncate(uri, 256))
	}
	parts := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	if len(parts) != 3 {
		return "", "", "", fmt.Errorf("not a CWAC resource URI (want %s): %q", resourceTemplate, truncate(uri, 256))
	}
	namespace, scan, file = parts[0], parts[1], parts[2]
	if !scanIDRE.MatchString(namespace) || !scanIDRE.MatchString(scan) {
		return "", "", "", fmt.Errorf("not a CWAC resource URI: namespace and scan must be Kubernetes names: %q", truncate(uri, 256))
	}
	if mimeType(file) == "" {
		return "", "", "", fmt.Errorf("%q is not a file a scan's resources hold: %s, or a result CSV",
			truncate(file, 128), strings.Join(slices.Sorted(mapsKeys(resourceFiles)), ", "))
	}
	return namespace, scan, file, nil
}

// mimeType is the MIME type of a file a scan's resources may name, or "".
func mimeType(file string) string {
	if t, ok := resourceFiles[file]; ok {
		return t
	}
	if strings.ContainsAny(file, `/\`) || file != path.Base(file) {
		return ""
	}
	if _, ok := results.AuditName(file); ok || slices.Contains(results.NotAudits, file) {
		return mimeCSV
	}
	return ""
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// addResources registers the resource template and its reader, and serves
// resources/list from the scans themselves.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "scan-file",
		Title:       "A finished CWAC scan's file",
		URITemplate: resourceTemplate,
		Description: "report.html, summary.json, leaderboard.csv, diff.json, results.sarif (SARIF 2.1.0), junit.xml or a result CSV of a finished scan " +
			"(at most " + fmt.Sprint(s.maxResourceBytes()) + " bytes; page through larger CSVs with cwac_get_results). " +
			"junit.xml and results.sarif take ?" + cireport.FailAtParameter + "=<impact>, the least impact that fails a test case or is an error: " +
			strings.Join(results.Impacts(), ", ") + " (default " + cireport.DefaultFailAt + ")",
	}, s.readResource)
	s.addTrendResources()
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			r, _ := req.(*mcp.ListResourcesRequest)
			res, err := s.listResources(ctx, r)
			if res != nil {
				// Answered here, not by the SDK: its SetCacheable is not called.
				privateAnswers(ctx, req, &res.Cacheable)
			}
			return res, err
		}
	})
}

// maxResourceBytes caps one resource read: the answer cap, so a resource is
// never larger than a tool's answer may be.
func (s *Server) maxResourceBytes() int64 { return int64(s.cfg.MaxResponseBytes) }

// readResource reads one file of a finished scan, as the caller.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	call := callFromExtra(req.Extra)
	var result *mcp.ReadResourceResult
	err := s.invoke(ctx, &tool{name: resourceReadName}, call, s.cfg.CallTimeout, truncate(uri, 512), func(ctx context.Context, c *callInfo) error {
		withoutQuery, failAt, err := splitFailAt(uri)
		if err != nil {
			return err
		}
		namespace, scan, file, err := parseResourceURI(withoutQuery)
		if err != nil {
			return err
		}
		if namespace != s.cfg.Namespace {
			return fmt.Errorf("this server reads scans in namespace %s, not %s", s.cfg.Namespace, namespace)
		}
		res, err := s.access.results(ctx, c, scan)
		if err != nil {
			return err
		}
		fsys, closeFn, err := s.access.openResults(ctx, res)
		if err != nil {
			return err
		}
		defer closeFn()
		data, err := readScanFile(ctx, fsys, file, ciReportOptions(scan, res.Scan, failAt), s.maxResourceBytes())
		if err != nil {
			return fmt.Errorf("reading %s of scan %s: %w", file, scan, err)
		}
		content := &mcp.ResourceContents{URI: uri, MIMEType: mimeType(file)}
		if utf8.Valid(data) {
			content.Text = string(data)
		} else {
			content.Blob = data
		}
		result = &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{content}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return result, nil
}

// listResources lists the files of the newest finished scans, and the
// organisations' trends of the issue history.
func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	var extra *mcp.RequestExtra
	if req != nil {
		extra = req.Extra
	}
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	err := s.invoke(ctx, &tool{name: resourceListName}, callFromExtra(extra), s.cfg.CallTimeout, "", func(ctx context.Context, c *callInfo) error {
		scans, err := s.access.scans(ctx)
		if err != nil {
			return err
		}
		scans = slices.DeleteFunc(scans, func(sc cwacv1alpha1.CwacScan) bool {
			return !sc.Status.Phase.Finished() || sc.Status.CompletionTime == nil
		})
		slices.SortFunc(scans, func(a, b cwacv1alpha1.CwacScan) int {
			return b.Status.CompletionTime.Compare(a.Status.CompletionTime.Time)
		})
		if len(scans) > maxListedScans {
			scans = scans[:maxListedScans]
		}
		for i := range scans {
			out.Resources = append(out.Resources, s.scanResources(ctx, c, &scans[i])...)
		}
		out.Resources = append(out.Resources, s.trendResources(ctx)...)
		return nil
	})
	return out, err
}

// scanResources lists one finished scan's files that exist.
func (s *Server) scanResources(ctx context.Context, c *callInfo, scan *cwacv1alpha1.CwacScan) []*mcp.Resource {
	res, err := s.access.results(ctx, c, scan.Name)
	if err != nil {
		return nil // failed before CWAC wrote anything, or its files are gone
	}
	fsys, closeFn, err := s.access.openResults(ctx, res)
	if err != nil {
		return nil
	}
	defer closeFn()
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil
	}
	var out []*mcp.Resource
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || mimeType(e.Name()) == "" {
			continue
		}
		out = append(out, &mcp.Resource{
			URI: resourceURI(scan.Namespace, scan.Name, e.Name()), Name: scan.Name + "/" + e.Name(),
			MIMEType: mimeType(e.Name()), Size: info.Size(),
			Annotations: &mcp.Annotations{LastModified: info.ModTime().UTC().Format(time.RFC3339)},
		})
	}
	return out
}

// callFromExtra is the caller of a request that is not a tool call.
func callFromExtra(extra *mcp.RequestExtra) *callInfo {
	call := &callInfo{Caller: "stdio", Transport: transportStdio}
	if extra != nil && extra.Header != nil {
		call.Identity = decodeIdentity(extra.Header.Get(IdentityHeader))
		if c := extra.Header.Get(CallerHeader); c != "" {
			call.Caller = c
		}
		call.Transport = transportHTTP
	}
	return call
}

// linksOf are the resource links a tool's answer carries, if its output
// type names any (see linker).
func linksOf(out any) []mcp.Content {
	if l, ok := out.(linker); ok {
		return l.links()
	}
	return nil
}

// linker is a tool output that points at files: its answer carries resource
// links to them besides the JSON.
type linker interface{ links() []mcp.Content }
