package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
)

// Each organisation in the issue history has its trend as a resource:
//
//	cwac://history/{namespace}/{organisation}/trend
//
// organisation path-escaped (CWAC's organisation names hold spaces and may
// hold slashes). Its JSON is cwac_organisation_trend's answer for the
// organisation; it is read under the same check (get on cwacscans in the
// namespace).
const (
	trendResourceHost     = "history"
	trendResourceTemplate = "cwac://history/{namespace}/{organisation}/trend"
	// maxListedOrganisations bounds the trends resources/list names.
	maxListedOrganisations = 100
)

// trendResourceURI is the URI of an organisation's trend.
func trendResourceURI(namespace, organisation string) string {
	return fmt.Sprintf("%s://%s/%s/%s/trend", resourceScheme, trendResourceHost, namespace, url.PathEscape(organisation))
}

// parseTrendResourceURI splits a trend resource's URI, refusing anything
// that is not exactly cwac://history/<namespace>/<organisation>/trend.
func parseTrendResourceURI(uri string) (namespace, organisation string, err error) {
	bad := fmt.Errorf("not an organisation's trend (want %s): %q", trendResourceTemplate, truncate(uri, 256))
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != resourceScheme || u.Host != trendResourceHost || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", bad
	}
	parts := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	if len(parts) != 3 || parts[2] != "trend" {
		return "", "", bad
	}
	if !scanIDRE.MatchString(parts[0]) {
		return "", "", fmt.Errorf("not an organisation's trend: the namespace must be a Kubernetes name: %q", truncate(uri, 256))
	}
	organisation, err = url.PathUnescape(parts[1])
	if err != nil || organisation == "" {
		return "", "", bad
	}
	return parts[0], organisation, nil
}

// addTrendResources registers the trend resource template.
func (s *Server) addTrendResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "organisation-trend",
		Title:       "An organisation's figures in every recorded scan",
		URITemplate: trendResourceTemplate,
		MIMEType:    mimeJSON,
		Description: "cwac_organisation_trend's answer for one organisation of the issue history (organisation path-escaped)",
	}, s.readTrendResource)
}

// readTrendResource reads an organisation's trend, as the caller.
func (s *Server) readTrendResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	var result *mcp.ReadResourceResult
	call := callFromExtra(req.Extra)
	err := s.invoke(ctx, &tool{name: trendReadName}, call, s.cfg.CallTimeout, truncate(uri, 512), func(ctx context.Context, c *callInfo) error {
		namespace, organisation, err := parseTrendResourceURI(uri)
		if err != nil {
			return err
		}
		if namespace != s.cfg.Namespace {
			return fmt.Errorf("this server reads the history of namespace %s, not %s", s.cfg.Namespace, namespace)
		}
		out, err := s.organisationTrend(ctx, c, mcpapi.OrganisationTrendInput{Organisation: organisation})
		if err != nil {
			return err
		}
		data, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encoding the trend: %w", err)
		}
		result = &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeJSON, Text: string(data)}}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return result, nil
}

// trendResources lists the trends of the namespace's organisations (the
// first maxListedOrganisations by name), when there is a history. A store
// that fails is logged, and the scans' files are listed without them.
func (s *Server) trendResources(ctx context.Context) []*mcp.Resource {
	st, namespaces, err := s.history()
	if err != nil {
		return nil
	}
	orgs, err := st.Organisations(ctx, namespaces)
	if err != nil {
		s.cfg.Log.Warn("listing the issue history's organisations", "err", err)
		return nil
	}
	out := make([]*mcp.Resource, 0, min(len(orgs), maxListedOrganisations))
	for _, o := range orgs[:min(len(orgs), maxListedOrganisations)] {
		r := &mcp.Resource{URI: trendResourceURI(o.Namespace, o.Name), Name: "trend of " + o.Name, MIMEType: mimeJSON}
		if o.Latest != nil {
			r.Annotations = &mcp.Annotations{LastModified: o.Latest.FinishedAt.Format(time.RFC3339)}
		}
		out = append(out, r)
	}
	return out
}
