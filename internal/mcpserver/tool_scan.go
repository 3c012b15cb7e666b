package mcpserver

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// Annotations the MCP server puts on the scans it creates.
const (
	AnnotationCreatedBy = "cwac.a11y.dev/created-by"
	AnnotationCaller    = "cwac.a11y.dev/mcp-caller"
	CreatedByMCP        = "mcp-server"
)

// ScanInput are cwac_scan's arguments.
type ScanInput struct {
	URLs               []string       `json:"urls,omitempty" jsonschema:"base URLs to scan: absolute http:// or https:// URLs; each is its own site, its organisation the URL's host (at least one URL here or in sites)"`
	Sites              []SiteArg      `json:"sites,omitempty" jsonschema:"base URLs with the organisation and sector CWAC groups results by (the leaderboard ranks organisations)"`
	AuditName          string         `json:"audit_name,omitempty" jsonschema:"name for the audit: 1-50 characters of A-Z a-z 0-9 _ . - (default: derived from the scan ID)"`
	Plugins            any            `json:"plugins,omitempty" jsonschema:"CWAC audit plugins: an object of name to true/false, or a list of names to run (others off). Valid names: axe_core_audit, language_audit, reflow_audit, title_audit, focus_indicator_audit, screenshot_audit, element_audit"`
	MaxLinksPerDomain  int            `json:"max_links_per_domain,omitempty" jsonschema:"most pages to visit per site (default 50)"`
	ViewportSizes      any            `json:"viewport_sizes,omitempty" jsonschema:"viewports to render each page at: CWAC's named map {\"small\": {\"width\": 320, \"height\": 450}}, a list of {width, height}, or one {width, height}"`
	OnlyAllowHTTPS     *bool          `json:"only_allow_https,omitempty" jsonschema:"CWAC's only_allow_https (default true: http:// sites are skipped and yield no page); false to scan http:// sites"`
	Thresholds         *ThresholdsArg `json:"thresholds,omitempty" jsonschema:"pass/fail limits judged when the scan finishes (cwac_scan_status reports thresholds_met)"`
	Timeout            string         `json:"timeout,omitempty" jsonschema:"the scan's hard deadline, a duration from 1m to 24h such as 30m or 1h30m (default 1h)"`
	ThreadCount        int32          `json:"thread_count,omitempty" jsonschema:"browsers CWAC runs in parallel, 1-16 (default 1); each needs about 0.5-0.8 GiB of memory"`
	Baseline           string         `json:"baseline,omitempty" jsonschema:"an earlier scan's ID to compare with when this one finishes: cwac_get_summary then counts new, fixed and unchanged issues"`
	Shards             *int64         `json:"shards,omitempty" jsonschema:"split the sites into this many shards, 1-64 and at most the number of sites (default 1): each shard is a pod scanning its share of the sites side by side with the others, and their results are merged into one that every tool reads as one scan. An organisation's sites stay in one shard unless it alone has more than a shard's share"`
	ShardFailurePolicy string         `json:"shard_failure_policy,omitempty" jsonschema:"what a failed shard does: Fail (default) stops the other shards and fails the scan; Partial lets the others finish and completes the scan with their merged results, naming the failed shards"`
}

// SiteArg is one site of cwac_scan's sites argument (a CwacScan's spec.sites).
type SiteArg struct {
	URL          string `json:"url" jsonschema:"the site's base URL (http:// or https://)"`
	Organisation string `json:"organisation,omitempty" jsonschema:"who owns the site (default: the URL's host)"`
	Sector       string `json:"sector,omitempty" jsonschema:"the organisation's sector (default: unknown)"`
}

// ThresholdsArg is cwac_scan's thresholds argument (the CwacScan's spec.thresholds).
type ThresholdsArg struct {
	MaxTotalIssues    *int64           `json:"max_total_issues,omitempty" jsonschema:"most issues of all audits"`
	MaxIssuesByImpact map[string]int64 `json:"max_issues_by_impact,omitempty" jsonschema:"most axe issues per impact, e.g. {\"critical\": 0}; impacts: critical, serious, moderate, minor"`
	MinPagesScanned   *int32           `json:"min_pages_scanned,omitempty" jsonschema:"fewest pages the scan must scan"`
	MaxNewIssues      *int64           `json:"max_new_issues,omitempty" jsonschema:"most issues the baseline scan did not have (needs baseline)"`
	RequireComplete   bool             `json:"require_complete,omitempty" jsonschema:"true to fail unless every organisation was scanned completely: one that was partial, blocked (refused or challenged) or unreachable is named with its reason, and a scan whose completeness is not known fails too (cwac_scan_status reports all_sites_complete)"`
}

// ScanOutput is cwac_scan's answer.
type ScanOutput struct {
	ScanID    string `json:"scan_id" jsonschema:"the scan's ID (its CwacScan name); pass it to the other tools"`
	Status    string `json:"status" jsonschema:"always started: the scan runs in the background"`
	AuditName string `json:"audit_name"`
	Namespace string `json:"namespace"`
	Message   string `json:"message"`
}

// scanDescription is what MCP clients show of cwac_scan.
const scanDescription = "Start a CWAC accessibility scan of one or more websites. " +
	"Returns at once with a scan_id; the scan runs as a Kubernetes Job. " +
	"For many sites, shards splits them between pods that run side by side, and the results read as one scan."

func init() { defineTool("cwac_scan", scanDescription, false, (*Server).scan) }

// scan creates a CwacScan. The checks run cheapest and most telling first:
// the URLs, as the original server checked them and in its words (none
// given, or one of a form no scan may name), the operator's cap on URLs,
// the API server's own validation (a dry run),
// then the scan-target policy (which resolves names and asks the sites), and
// only then the caller's rate, so refused calls cost no rate.
func (s *Server) scan(ctx context.Context, call *callInfo, in ScanInput) (ScanOutput, error) {
	urls := in.allURLs()
	if err := checkScanURLs(in); err != nil {
		return ScanOutput{}, err
	}
	// The cap is operator configuration (--max-urls-per-scan), not a CRD rule.
	if s.cfg.MaxURLs > 0 && len(urls) > s.cfg.MaxURLs {
		return ScanOutput{}, fmt.Errorf("Too many URLs: %d (at most %d per scan)", len(urls), s.cfg.MaxURLs)
	}
	scan, err := s.scanFromArgs(in, call)
	if err != nil {
		return ScanOutput{}, err
	}
	if err := s.dryRunCreate(ctx, scan, in.rawSpec()); err != nil {
		return ScanOutput{}, err
	}
	if s.cfg.Policy != nil {
		if d := s.cfg.Policy.CheckAll(ctx, urls); d != nil {
			return ScanOutput{}, d
		}
	}
	if ok, wait := s.limiter.allow(call.Caller); !ok {
		return ScanOutput{}, fmt.Errorf("Rate limit: too many scans from %s; try again in %s", call.Caller, wait.Round(time.Second))
	}
	if err := s.cfg.Client.Create(ctx, scan); err != nil {
		return ScanOutput{}, fmt.Errorf("creating the scan: %w", err)
	}
	call.Target = scan.Namespace + "/" + scan.Name
	s.recordCreation(ctx, scan, call)
	return ScanOutput{
		ScanID:    scan.Name,
		Status:    "started",
		AuditName: scanspec.AuditName(scan),
		Namespace: scan.Namespace,
		Message:   "Scan started. Poll cwac_scan_status with this scan_id until it is complete.",
	}, nil
}

// scanFromArgs translates the arguments into a CwacScan, changing shapes only.
func (s *Server) scanFromArgs(in ScanInput, call *callInfo) (*cwacv1alpha1.CwacScan, error) {
	plugins, err := pluginsArg(in.Plugins)
	if err != nil {
		return nil, err
	}
	viewports, err := viewportsArg(in.ViewportSizes)
	if err != nil {
		return nil, err
	}
	maxLinks, err := maxLinksArg(in.MaxLinksPerDomain)
	if err != nil {
		return nil, err
	}
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: scanspec.GenerateNamePrefix(in.AuditName),
			Namespace:    s.cfg.Namespace,
			Annotations:  map[string]string{AnnotationCreatedBy: CreatedByMCP, AnnotationCaller: truncate(call.Caller, 256)},
		},
		Spec: cwacv1alpha1.CwacScanSpec{
			URLs:              in.URLs,
			AuditName:         in.AuditName,
			Plugins:           plugins,
			MaxLinksPerDomain: maxLinks,
			ViewportSizes:     viewports,
			Timeout:           in.Timeout,
			ThreadCount:       in.ThreadCount,
			Baseline:          in.Baseline,
			// Only a shards value the API server accepts reaches this
			// object's create; the dry run sees the number as given (rawSpec).
			Shards:             int32(min(max(in.shardsOrZero(), 0), math.MaxInt32)),
			ShardFailurePolicy: cwacv1alpha1.ShardFailurePolicy(in.ShardFailurePolicy),
		},
	}
	for _, site := range in.Sites {
		scan.Spec.Sites = append(scan.Spec.Sites, cwacv1alpha1.Site{URL: site.URL, Organisation: site.Organisation, Sector: site.Sector})
	}
	if t := in.Thresholds; t != nil {
		scan.Spec.Thresholds = &cwacv1alpha1.Thresholds{
			MaxTotalIssues: t.MaxTotalIssues, MaxIssuesByImpact: t.MaxIssuesByImpact, MinPagesScanned: t.MinPagesScanned, MaxNewIssues: t.MaxNewIssues,
			RequireComplete: t.RequireComplete,
		}
	}
	if in.OnlyAllowHTTPS != nil {
		scan.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte(strconv.FormatBool(*in.OnlyAllowHTTPS))}}
	}
	return scan, nil
}

// shardsOrZero is the shards argument, 0 when not given.
func (in ScanInput) shardsOrZero() int64 {
	if in.Shards == nil {
		return 0
	}
	return *in.Shards
}

// rawSpec holds the arguments the typed spec cannot carry as given, for the
// dry run to check: spec.shards is an int32 left out when 0, so shards 0 or
// beyond 32 bits would otherwise become "unset" or a different number
// instead of being refused by the CRD's bounds.
func (in ScanInput) rawSpec() map[string]any {
	if in.Shards == nil {
		return nil
	}
	return map[string]any{"shards": *in.Shards}
}

// allURLs are the base URLs of urls and sites, for the operator's cap and
// the scan-target policy.
func (in ScanInput) allURLs() []string {
	urls := append([]string(nil), in.URLs...)
	for _, site := range in.Sites {
		urls = append(urls, site.URL)
	}
	return urls
}
