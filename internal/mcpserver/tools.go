package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
)

// Annotations the MCP server puts on the scans it creates.
const (
	AnnotationCreatedBy = "cwac.a11y.dev/created-by"
	AnnotationCaller    = "cwac.a11y.dev/mcp-caller"
	CreatedByMCP        = "mcp-server"
)

// The seeds' error messages, which MCP clients match on.
const (
	msgNoScan       = "No scan found with ID: %s"
	msgStillRunning = "Scan is still running. Check status first."
	msgNoAuditFile  = "No results file for audit type: %s"
)

// ---- cwac_scan ----

// ScanInput are cwac_scan's arguments.
type ScanInput struct {
	URLs              []string `json:"urls,omitempty" jsonschema:"base URLs to scan: absolute http:// or https:// URLs (at least one)"`
	AuditName         string   `json:"audit_name,omitempty" jsonschema:"name for the audit: 1-50 characters of A-Z a-z 0-9 _ . - (default: derived from the scan ID)"`
	Plugins           any      `json:"plugins,omitempty" jsonschema:"CWAC audit plugins: an object of name to true/false, or a list of names to run (others off). Valid names: axe_core_audit, language_audit, reflow_audit, title_audit, focus_indicator_audit, screenshot_audit, element_audit"`
	MaxLinksPerDomain int      `json:"max_links_per_domain,omitempty" jsonschema:"most pages to visit per site (default 50)"`
	ViewportSizes     any      `json:"viewport_sizes,omitempty" jsonschema:"viewports to render each page at: CWAC's named map {\"small\": {\"width\": 320, \"height\": 450}}, a list of {width, height}, or one {width, height}"`
	OnlyAllowHTTPS    *bool    `json:"only_allow_https,omitempty" jsonschema:"CWAC's only_allow_https (default true: http:// sites are skipped and yield no page); false to scan http:// sites"`
}

// ScanOutput is cwac_scan's answer.
type ScanOutput struct {
	ScanID    string `json:"scan_id" jsonschema:"the scan's ID (its CwacScan name); pass it to the other tools"`
	Status    string `json:"status" jsonschema:"always started: the scan runs in the background"`
	AuditName string `json:"audit_name"`
	Namespace string `json:"namespace"`
	Message   string `json:"message"`
}

func (s *Server) scan(ctx context.Context, call *callInfo, in ScanInput) (ScanOutput, error) {
	if len(in.URLs) == 0 {
		return ScanOutput{}, errors.New("At least one URL is required")
	}
	if s.cfg.MaxURLs > 0 && len(in.URLs) > s.cfg.MaxURLs {
		return ScanOutput{}, fmt.Errorf("Too many URLs: %d (at most %d per scan)", len(in.URLs), s.cfg.MaxURLs)
	}
	if _, err := cwacconfig.NormalizeSites(in.URLs, nil); err != nil {
		return ScanOutput{}, err
	}
	if in.AuditName != "" {
		if err := cwac.ValidateAuditName(in.AuditName); err != nil {
			return ScanOutput{}, fmt.Errorf("Invalid audit_name: %w", err)
		}
	}
	if in.MaxLinksPerDomain < 0 || in.MaxLinksPerDomain > 100000 {
		return ScanOutput{}, fmt.Errorf("Invalid max_links_per_domain: %d (must be 1-100000)", in.MaxLinksPerDomain)
	}
	plugins, err := parsePlugins(in.Plugins)
	if err != nil {
		return ScanOutput{}, err
	}
	viewports, err := parseViewports(in.ViewportSizes)
	if err != nil {
		return ScanOutput{}, err
	}
	if s.cfg.Policy != nil {
		if d := s.cfg.Policy.CheckAll(ctx, in.URLs); d != nil {
			return ScanOutput{}, d
		}
	}
	// Only calls that would create a scan count against the caller's rate.
	if ok, wait := s.limiter.allow(call.Caller); !ok {
		return ScanOutput{}, fmt.Errorf("Rate limit: too many scans from %s; try again in %s", call.Caller, wait.Round(time.Second))
	}
	prefix := "mcp-scan-"
	if in.AuditName != "" {
		prefix = dnsPrefix(in.AuditName)
	}
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: prefix,
			Namespace:    s.cfg.Namespace,
			Annotations:  map[string]string{AnnotationCreatedBy: CreatedByMCP, AnnotationCaller: truncate(call.Caller, 256)},
		},
		Spec: cwacv1alpha1.CwacScanSpec{
			URLs:              in.URLs,
			AuditName:         in.AuditName,
			Plugins:           plugins,
			MaxLinksPerDomain: int32(in.MaxLinksPerDomain),
			ViewportSizes:     viewports,
		},
	}
	if in.OnlyAllowHTTPS != nil {
		scan.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{"only_allow_https": {Raw: []byte(strconv.FormatBool(*in.OnlyAllowHTTPS))}}
	}
	if err := s.cfg.Client.Create(ctx, scan); err != nil {
		return ScanOutput{}, fmt.Errorf("creating the scan: %w", err)
	}
	call.Target = scan.Namespace + "/" + scan.Name
	s.recordCreation(ctx, scan, call)
	return ScanOutput{
		ScanID:    scan.Name,
		Status:    "started",
		AuditName: scanjob.AuditName(scan),
		Namespace: scan.Namespace,
		Message:   "Scan started. Poll cwac_scan_status with this scan_id until it is complete.",
	}, nil
}

var dnsUnsafe = regexp.MustCompile(`[^a-z0-9-]+`)

// dnsPrefix turns an audit name into a GenerateName prefix.
func dnsPrefix(auditName string) string {
	p := strings.Trim(dnsUnsafe.ReplaceAllString(strings.ToLower(auditName), "-"), "-")
	if p == "" {
		return "mcp-scan-"
	}
	if len(p) > 40 {
		p = strings.TrimRight(p[:40], "-")
	}
	return p + "-"
}

// parsePlugins accepts {name: bool} or [name, …] (listed on, the rest off).
func parsePlugins(v any) (map[string]bool, error) {
	switch p := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := map[string]bool{}
		var names []string
		for name, enabled := range p {
			b, ok := enabled.(bool)
			if !ok {
				return nil, fmt.Errorf("Invalid plugins: %q must be true or false", name)
			}
			out[name] = b
			names = append(names, name)
		}
		if err := cwac.ValidatePlugins(names); err != nil {
			return nil, err
		}
		return out, nil
	case []any:
		var names []string
		for _, n := range p {
			s, ok := n.(string)
			if !ok {
				return nil, errors.New("Invalid plugins: a list must hold plugin names")
			}
			names = append(names, s)
		}
		if err := cwac.ValidatePlugins(names); err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for _, name := range cwac.Plugins {
			out[name] = false
		}
		for _, name := range names {
			out[name] = true
		}
		return out, nil
	default:
		return nil, errors.New("Invalid plugins: give an object of name to true/false, or a list of names")
	}
}

var viewportNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// parseViewports accepts CWAC's named map, a list of {width, height[, name]},
// or a single {width, height}.
func parseViewports(v any) (map[string]cwacv1alpha1.Viewport, error) {
	one := func(name string, raw any) (cwacv1alpha1.Viewport, error) {
		m, ok := raw.(map[string]any)
		if !ok {
			return cwacv1alpha1.Viewport{}, fmt.Errorf("Invalid viewport_sizes: %s must be {width, height}", name)
		}
		w, wok := m["width"].(float64)
		h, hok := m["height"].(float64)
		if !wok || !hok || w != float64(int32(w)) || h != float64(int32(h)) {
			return cwacv1alpha1.Viewport{}, fmt.Errorf("Invalid viewport_sizes: %s needs whole-number width and height", name)
		}
		if w < 100 || w > 10000 || h < 100 || h > 10000 {
			return cwacv1alpha1.Viewport{}, fmt.Errorf("Invalid viewport_sizes: %s: width and height must be 100-10000", name)
		}
		return cwacv1alpha1.Viewport{Width: int32(w), Height: int32(h)}, nil
	}
	named := func(vp cwacv1alpha1.Viewport) string { return fmt.Sprintf("%dx%d", vp.Width, vp.Height) }
	out := map[string]cwacv1alpha1.Viewport{}
	switch p := v.(type) {
	case nil:
		return nil, nil
	case []any:
		for i, raw := range p {
			vp, err := one(fmt.Sprintf("item %d", i), raw)
			if err != nil {
				return nil, err
			}
			name := named(vp)
			if m, _ := raw.(map[string]any); m != nil {
				if n, ok := m["name"].(string); ok && n != "" {
					name = n
				}
			}
			out[name] = vp
		}
	case map[string]any:
		if _, hasW := p["width"]; hasW {
			vp, err := one("the viewport", p)
			if err != nil {
				return nil, err
			}
			out[named(vp)] = vp
			break
		}
		for name, raw := range p {
			vp, err := one(fmt.Sprintf("%q", name), raw)
			if err != nil {
				return nil, err
			}
			out[name] = vp
		}
	default:
		return nil, errors.New("Invalid viewport_sizes: give a map of name to {width, height}, a list of {width, height}, or one {width, height}")
	}
	if len(out) == 0 || len(out) > 10 {
		return nil, errors.New("Invalid viewport_sizes: give 1 to 10 viewports")
	}
	for name := range out {
		if !viewportNameRE.MatchString(name) {
			return nil, fmt.Errorf("Invalid viewport_sizes: name %q must be 1-32 characters of A-Z a-z 0-9 _ -", name)
		}
	}
	return out, nil
}

// ---- shared lookups ----

var scanIDRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// getScan finds a scan by ID, with the seeds' error when there is none.
func (s *Server) getScan(ctx context.Context, call *callInfo, id string) (*cwacv1alpha1.CwacScan, error) {
	if id == "" {
		return nil, errors.New("scan_id is required")
	}
	if !scanIDRE.MatchString(id) {
		return nil, fmt.Errorf(msgNoScan, truncate(id, 256))
	}
	call.Target = s.cfg.Namespace + "/" + id
	scan := &cwacv1alpha1.CwacScan{}
	if err := s.cfg.Client.Get(ctx, client.ObjectKey{Namespace: s.cfg.Namespace, Name: id}, scan); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf(msgNoScan, id)
		}
		return nil, fmt.Errorf("reading scan %s: %w", id, err)
	}
	return scan, nil
}

func seedStatus(p cwacv1alpha1.Phase) string {
	if p == "" {
		return "pending"
	}
	return strings.ToLower(string(p))
}

// formatElapsed renders a duration as the seeds did: "2m 15s", "1h 0m 5s".
func formatElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 0 {
		d = 0
	}
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %dm %ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, sec)
	default:
		return fmt.Sprintf("%ds", sec)
	}
}

// ---- cwac_scan_status ----

// StatusInput are cwac_scan_status's arguments.
type StatusInput struct {
	ScanID string `json:"scan_id" jsonschema:"the scan's ID, from cwac_scan or cwac_list_scans"`
}

// Progress is CWAC's own progress (progress.csv).
type Progress struct {
	PagesDone      int     `json:"pages_done"`
	PagesEstimated int     `json:"pages_estimated" jsonschema:"CWAC's estimate: max_links_per_domain per site until a site's crawl ends"`
	Percent        float64 `json:"percent"`
}

// StatusOutput is cwac_scan_status's answer.
type StatusOutput struct {
	ScanID         string    `json:"scan_id"`
	Status         string    `json:"status" jsonschema:"pending, queued, running, complete or failed"`
	AuditName      string    `json:"audit_name"`
	Message        string    `json:"message,omitempty"`
	Reason         string    `json:"reason,omitempty" jsonschema:"why it failed, or what it is waiting for"`
	ElapsedTime    string    `json:"elapsed_time" jsonschema:"time since the scan started, e.g. 2m 15s"`
	StartTime      string    `json:"start_time,omitempty"`
	CompletionTime string    `json:"completion_time,omitempty"`
	StdoutTail     string    `json:"stdout_tail,omitempty" jsonschema:"the last lines of CWAC's output, while it runs"`
	Progress       *Progress `json:"progress,omitempty"`
	ResultsDir     string    `json:"results_dir,omitempty" jsonschema:"the results directory, relative to the results volume"`
	ExitCode       *int32    `json:"exit_code,omitempty"`
	Stderr         string    `json:"stderr,omitempty" jsonschema:"for a failed scan: why, with CWAC's stderr tail"`
	Notes          []string  `json:"notes,omitempty"`
}

// stdoutTailLines is how much of the scan pod's log cwac_scan_status returns.
const stdoutTailLines = 20

func (s *Server) status(ctx context.Context, call *callInfo, in StatusInput) (StatusOutput, error) {
	scan, err := s.getScan(ctx, call, in.ScanID)
	if err != nil {
		return StatusOutput{}, err
	}
	st := scan.Status
	out := StatusOutput{
		ScanID:    scan.Name,
		Status:    seedStatus(st.Phase),
		AuditName: scanjob.AuditName(scan),
		Message:   st.Message,
		ExitCode:  st.ExitCode,
	}
	start := scan.CreationTimestamp.Time
	if st.StartTime != nil {
		start = st.StartTime.Time
		out.StartTime = st.StartTime.UTC().Format(time.RFC3339)
	}
	end := s.now()
	if st.CompletionTime != nil {
		end = st.CompletionTime.Time
		out.CompletionTime = st.CompletionTime.UTC().Format(time.RFC3339)
	}
	out.ElapsedTime = formatElapsed(end.Sub(start))
	for _, c := range st.Conditions {
		if c.Status == metav1.ConditionTrue && (c.Type == "Failed" || c.Type == "Degraded") || c.Type == "Started" && c.Reason == "Queued" {
			out.Reason = c.Reason
		}
	}

	switch st.Phase {
	case cwacv1alpha1.PhaseComplete:
		out.ResultsDir = st.ResultsPath
	case cwacv1alpha1.PhaseFailed:
		out.Stderr = st.Message
		if _, tail, ok := strings.Cut(st.Message, "stderr tail:\n"); ok {
			out.Stderr = tail
		}
		out.ResultsDir = st.ResultsPath
	case cwacv1alpha1.PhaseRunning, cwacv1alpha1.PhasePending:
		if st.JobName != "" {
			tail, err := s.podLogTail(ctx, scan.Namespace, st.JobName)
			if err != nil {
				out.Notes = append(out.Notes, "CWAC's output is not available: "+err.Error())
			}
			out.StdoutTail = tail
		}
	}
	if st.ResultsPath != "" && !st.Phase.Finished() {
		if dir, err := s.root.resolveResultsDir(st.ResultsPath, scanjob.AuditName(scan)); err == nil {
			if fsys, closeFn, err := s.root.sub(dir); err == nil {
				p := results.ProgressOf(fsys)
				closeFn()
				if p.PagesEstimated > 0 || p.PagesDone > 0 {
					out.Progress = &Progress{PagesDone: p.PagesDone, PagesEstimated: p.PagesEstimated, Percent: p.Percent}
					call.progress(float64(p.PagesDone), float64(p.PagesEstimated), fmt.Sprintf("%d of about %d pages", p.PagesDone, p.PagesEstimated))
				}
			}
		}
	}
	return out, nil
}

// podLogTail returns the last lines of the scan pod's CWAC container log.
func (s *Server) podLogTail(ctx context.Context, namespace, jobName string) (string, error) {
	if s.cfg.Clientset == nil {
		return "", errors.New("no Kubernetes clientset configured")
	}
	pods, err := s.cfg.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + jobName})
	if err != nil {
		return "", fmt.Errorf("listing the scan's pod: %w", err)
	}
	if len(pods.Items) == 0 {
		return "", errors.New("the scan's pod does not exist yet")
	}
	sort.Slice(pods.Items, func(i, j int) bool {
		return pods.Items[j].CreationTimestamp.Before(&pods.Items[i].CreationTimestamp)
	})
	lines := int64(stdoutTailLines)
	limit := int64(16 * 1024)
	req := s.cfg.Clientset.CoreV1().Pods(namespace).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{Container: scanjob.ContainerName, TailLines: &lines, LimitBytes: &limit})
	stream, err := req.Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the scan's log: %w", err)
	}
	defer stream.Close()
	data, err := io.ReadAll(io.LimitReader(stream, limit))
	if err != nil {
		return "", fmt.Errorf("reading the scan's log: %w", err)
	}
	return strings.ToValidUTF8(string(data), "?"), nil
}

// ---- results lookups ----

// resultsFor returns the confined results directory of a scan, or the seeds'
// errors when it has none yet. IDs naming a directory on the volume (scans
// run by hand, from cwac_list_scans) are accepted too.
func (s *Server) resultsFor(ctx context.Context, call *callInfo, id string) (string, string, *cwacv1alpha1.CwacScan, error) {
	if strings.Contains(id, "/") || isCWACDir(id) {
		if err := validRelPath(id); err != nil {
			return "", "", nil, fmt.Errorf("Invalid scan_id %q: %v", truncate(id, 256), err)
		}
		call.Target = "results:" + id
		dir, err := s.root.resolveResultsDir(id, "")
		if err != nil {
			return "", "", nil, fmt.Errorf(msgNoScan, id)
		}
		return dir, "complete", nil, nil
	}
	scan, err := s.getScan(ctx, call, id)
	if err != nil {
		return "", "", nil, err
	}
	status := seedStatus(scan.Status.Phase)
	if !scan.Status.Phase.Finished() {
		return "", status, scan, errStillRunning
	}
	if scan.Status.ResultsPath == "" {
		return "", status, scan, fmt.Errorf("Scan %s failed before CWAC wrote results: %s", scan.Name, truncate(scan.Status.Message, 512))
	}
	dir, err := s.root.resolveResultsDir(scan.Status.ResultsPath, scanjob.AuditName(scan))
	if err != nil {
		if scan.Status.Phase == cwacv1alpha1.PhaseFailed {
			return "", status, scan, fmt.Errorf("Scan %s failed and left no results: %s", scan.Name, truncate(scan.Status.Message, 512))
		}
		return "", status, scan, fmt.Errorf("Results of scan %s cannot be read: %v", scan.Name, err)
	}
	return dir, status, scan, nil
}

func isCWACDir(id string) bool { _, _, ok := cwac.ParseResultsDirName(id); return ok }

// ---- cwac_get_results ----

// ResultsInput are cwac_get_results's arguments.
type ResultsInput struct {
	ScanID     string `json:"scan_id" jsonschema:"the scan's ID"`
	AuditType  string `json:"audit_type,omitempty" jsonschema:"one audit's results, e.g. axe_core_audit, reflow_audit, focus_indicator_audit (default: all audits)"`
	Impact     string `json:"impact,omitempty" jsonschema:"only rows of this axe impact: critical, serious, moderate or minor"`
	IssuesOnly bool   `json:"issues_only,omitempty" jsonschema:"only rows that are issues (num_issues > 0)"`
	Limit      int    `json:"limit,omitempty" jsonschema:"most rows to return (default 100)"`
	Offset     int    `json:"offset,omitempty" jsonschema:"matching rows to skip first, for paging"`
}

// ResultsOutput is cwac_get_results's answer.
type ResultsOutput struct {
	ScanID          string           `json:"scan_id"`
	AuditType       string           `json:"audit_type"`
	TotalResults    int              `json:"total_results" jsonschema:"rows matching the filters"`
	ReturnedResults int              `json:"returned_results"`
	Results         []map[string]any `json:"results"`
	Truncated       bool             `json:"truncated,omitempty"`
	Note            string           `json:"note,omitempty"`
}

var auditTypeRE = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

var impacts = []string{"critical", "serious", "moderate", "minor"}

// maxCellBytes caps one cell in a tool answer.
const maxCellBytes = 4096

func (s *Server) getResults(ctx context.Context, call *callInfo, in ResultsInput) (ResultsOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = s.cfg.DefaultResults
	}
	if limit < 1 || limit > s.cfg.MaxResults {
		return ResultsOutput{}, fmt.Errorf("Invalid limit: %d (must be 1-%d)", in.Limit, s.cfg.MaxResults)
	}
	if in.Offset < 0 {
		return ResultsOutput{}, fmt.Errorf("Invalid offset: %d", in.Offset)
	}
	if in.AuditType != "" && !auditTypeRE.MatchString(in.AuditType) {
		return ResultsOutput{}, fmt.Errorf("Invalid audit_type: %q (a CSV name such as axe_core_audit)", truncate(in.AuditType, 128))
	}
	impact := strings.ToLower(in.Impact)
	if impact != "" && !slices.Contains(impacts, impact) {
		return ResultsOutput{}, fmt.Errorf("Invalid impact: %q (critical, serious, moderate or minor)", truncate(in.Impact, 64))
	}
	dir, _, _, err := s.resultsFor(ctx, call, in.ScanID)
	if err != nil {
		return ResultsOutput{}, err
	}
	fsys, closeFn, err := s.root.sub(dir)
	if err != nil {
		return ResultsOutput{}, fmt.Errorf("Results of scan %s cannot be read: %v", in.ScanID, err)
	}
	defer closeFn()

	var files []string
	if in.AuditType != "" {
		name := in.AuditType + ".csv"
		if info, err := fs.Stat(fsys, name); err != nil || !info.Mode().IsRegular() {
			return ResultsOutput{}, fmt.Errorf(msgNoAuditFile, in.AuditType)
		}
		files = []string{name}
	} else {
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil {
			return ResultsOutput{}, err
		}
		for _, e := range entries {
			if _, ok := results.AuditName(e.Name()); ok && e.Type().IsRegular() {
				files = append(files, e.Name())
			}
		}
	}
	out := ResultsOutput{ScanID: in.ScanID, AuditType: in.AuditType, Results: []map[string]any{}}
	if out.AuditType == "" {
		out.AuditType = "all"
	}
	budget := s.cfg.MaxResponseBytes - 1024
	skipped := 0
	for _, name := range files {
		audit := strings.TrimSuffix(name, ".csv")
		err := results.EachRowFS(fsys, name, func(r *results.Reader, row results.Row) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if impact != "" && strings.ToLower(row.Get("impact")) != impact {
				return nil
			}
			if in.IssuesOnly {
				if !r.Has("num_issues") || strings.TrimSpace(row.Get("num_issues")) == "0" || row.Get("num_issues") == "" {
					return nil
				}
			}
			out.TotalResults++
			if skipped < in.Offset {
				skipped++
				return nil
			}
			if len(out.Results) >= limit || out.Truncated {
				return nil // keep counting the total without holding rows
			}
			item := rowObject(audit, row)
			size := approxJSONSize(item)
			if size > budget {
				out.Truncated = true
				return nil
			}
			budget -= size
			out.Results = append(out.Results, item)
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return ResultsOutput{}, fmt.Errorf("reading results timed out: %w", ctx.Err())
			}
			return ResultsOutput{}, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	out.ReturnedResults = len(out.Results)
	switch {
	case out.Truncated:
		out.Note = fmt.Sprintf("Response capped at %d bytes: %d of %d matching rows returned; use offset=%d to read on.", s.cfg.MaxResponseBytes, out.ReturnedResults, out.TotalResults, in.Offset+out.ReturnedResults)
	case in.Offset+out.ReturnedResults < out.TotalResults:
		out.Note = fmt.Sprintf("%d of %d matching rows returned; use offset=%d to read on.", out.ReturnedResults, out.TotalResults, in.Offset+out.ReturnedResults)
	}
	return out, nil
}

// rowObject turns a CSV row into JSON, parsing CWAC's Python-literal cells.
func rowObject(audit string, row results.Row) map[string]any {
	m := map[string]any{"audit_type": audit}
	for k, v := range row.Map() {
		if k == "audit_type" {
			m["audit_class"] = v
			continue
		}
		switch k {
		case "viewport_size":
			if vp, err := results.ParseViewport(v); err == nil {
				m[k] = vp
				continue
			}
		case "tags":
			if tags, err := results.ParseTags(v); err == nil {
				m[k] = tags
				continue
			}
		}
		m[k] = truncate(v, maxCellBytes)
	}
	return m
}

func approxJSONSize(m map[string]any) int {
	n := 2
	for k, v := range m {
		n += len(k) + 6
		switch t := v.(type) {
		case string:
			n += len(t) + len(t)/8 // escapes
		case []string:
			for _, s := range t {
				n += len(s) + 3
			}
		default:
			n += 48
		}
	}
	return n
}

// ---- cwac_get_summary ----

// SummaryInput are cwac_get_summary's arguments.
type SummaryInput struct {
	ScanID string `json:"scan_id" jsonschema:"the scan's ID"`
}

// SummaryOutput is cwac_get_summary's answer: the seeds' summary shape.
type SummaryOutput struct {
	ScanID     string `json:"scan_id"`
	Status     string `json:"status"`
	ResultsDir string `json:"results_dir"`
	Source     string `json:"source" jsonschema:"results (computed from the CSVs) or status (the scan's recorded summary)"`
	results.Summary
}

func (s *Server) getSummary(ctx context.Context, call *callInfo, in SummaryInput) (SummaryOutput, error) {
	dir, status, scan, err := s.resultsFor(ctx, call, in.ScanID)
	if err != nil {
		// A finished scan whose files are gone still has its recorded summary.
		if scan != nil && scan.Status.Summary != nil && scan.Status.Phase.Finished() {
			return fromStatusSummary(scan), nil
		}
		return SummaryOutput{}, err
	}
	fsys, closeFn, err := s.root.sub(dir)
	if err != nil {
		return SummaryOutput{}, err
	}
	defer closeFn()
	var expected []string
	if scan != nil {
		if sites, err := scanjob.Sites(scan); err == nil {
			for _, site := range sites {
				expected = append(expected, site.URL)
			}
		}
	}
	sum, err := results.SummarizeFS(fsys, results.Options{ExpectedBaseURLs: expected})
	if err != nil {
		return SummaryOutput{}, fmt.Errorf("summarising results: %w", err)
	}
	if scan != nil && scan.Status.Summary != nil && scan.Status.Summary.DurationSeconds > 0 {
		sum.DurationSeconds = float64(scan.Status.Summary.DurationSeconds)
	}
	return SummaryOutput{ScanID: in.ScanID, Status: status, ResultsDir: dir, Source: "results", Summary: *sum}, nil
}

var errStillRunning = errors.New(msgStillRunning)

func fromStatusSummary(scan *cwacv1alpha1.CwacScan) SummaryOutput {
	ss := scan.Status.Summary
	out := SummaryOutput{ScanID: scan.Name, Status: seedStatus(scan.Status.Phase), ResultsDir: scan.Status.ResultsPath, Source: "status"}
	out.TotalIssues = ss.TotalIssues
	out.IssuesByAuditType = ss.IssuesByAuditType
	out.IssuesByImpact = ss.IssuesByImpact
	out.Informational = ss.Informational
	out.URLsScanned = int(ss.UrlsScanned)
	out.PagesScanned = int(ss.PagesScanned)
	out.UnscannedBaseURLs = ss.UnscannedBaseURLs
	out.DurationSeconds = float64(ss.DurationSeconds)
	for _, v := range ss.TopViolations {
		out.TopViolations = append(out.TopViolations, results.Violation{ID: v.ID, AuditType: v.AuditType, Impact: v.Impact, Description: v.Description, Count: v.Count})
	}
	return out
}

// ---- cwac_list_scans ----

// ListInput are cwac_list_scans's arguments.
type ListInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"most scans to return, newest first (default 50)"`
}

// ScanEntry is one scan in cwac_list_scans.
type ScanEntry struct {
	ScanID     string   `json:"scan_id" jsonschema:"pass to the other tools; for a directory with no CwacScan, its path"`
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	AuditName  string   `json:"audit_name"`
	Timestamp  string   `json:"timestamp" jsonschema:"when the scan was created or CWAC started it (UTC)"`
	Path       string   `json:"path,omitempty" jsonschema:"results directory, relative to the results volume"`
	AuditTypes []string `json:"audit_types"`
	FileCount  int      `json:"file_count"`
	SizeBytes  int64    `json:"size_bytes"`
	Source     string   `json:"source" jsonschema:"cwacscan, or results-dir for results with no CwacScan (run by hand)"`
}

// ListOutput is cwac_list_scans's answer.
type ListOutput struct {
	Scans []ScanEntry `json:"scans"`
	Total int         `json:"total"`
	Note  string      `json:"note,omitempty"`
}

// maxDirsScanned bounds the walk of the results volume.
const maxDirsScanned = 5000

func (s *Server) listScans(ctx context.Context, call *callInfo, in ListInput) (ListOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	if limit < 1 || limit > 500 {
		return ListOutput{}, fmt.Errorf("Invalid limit: %d (must be 1-500)", in.Limit)
	}
	call.Target = s.cfg.Namespace + "/*"
	list := &cwacv1alpha1.CwacScanList{}
	if err := s.cfg.Client.List(ctx, list, client.InNamespace(s.cfg.Namespace)); err != nil {
		return ListOutput{}, fmt.Errorf("listing scans: %w", err)
	}
	var notes []string
	var entries []ScanEntry
	claimed := map[string]bool{}
	root, rootErr := s.root.open()
	if rootErr != nil {
		notes = append(notes, "The results volume is not available ("+s.cfg.ResultsRoot+"), so no result files are listed.")
	} else {
		defer root.Close()
	}
	for _, scan := range list.Items {
		e := ScanEntry{
			ScanID: scan.Name, Name: scan.Name, Status: seedStatus(scan.Status.Phase), AuditName: scanjob.AuditName(&scan),
			Timestamp: scan.CreationTimestamp.UTC().Format(time.RFC3339), Source: "cwacscan", AuditTypes: []string{},
		}
		if p := scan.Status.ResultsPath; p != "" && rootErr == nil && validRelPath(p) == nil {
			if dir, err := s.root.resolveResultsDir(p, e.AuditName); err == nil {
				e.Path = dir
				claimed[dir] = true
				if sub, err := root.OpenRoot(dir); err == nil {
					st := statDir(sub.FS())
					sub.Close()
					e.FileCount, e.SizeBytes, e.AuditTypes = st.FileCount, st.SizeBytes, st.AuditTypes
				}
			}
		}
		entries = append(entries, e)
	}
	if rootErr == nil {
		dirs, truncated := findResultDirs(root.FS(), maxDirsScanned)
		if truncated {
			notes = append(notes, fmt.Sprintf("Only the first %d result directories on the volume were looked at.", maxDirsScanned))
		}
		for _, d := range dirs {
			if claimed[d.Path] || belongsToListedScan(d.Path, list.Items) {
				continue
			}
			e := ScanEntry{ScanID: d.Path, Name: lastSegment(d.Path), Status: "complete", AuditName: d.AuditName, Path: d.Path, Source: "results-dir", AuditTypes: []string{}}
			if t, err := time.Parse("2006-01-02_15-04-05", d.Timestamp); err == nil {
				e.Timestamp = t.UTC().Format(time.RFC3339)
			}
			if sub, err := root.OpenRoot(d.Path); err == nil {
				st := statDir(sub.FS())
				sub.Close()
				e.FileCount, e.SizeBytes, e.AuditTypes = st.FileCount, st.SizeBytes, st.AuditTypes
			}
			entries = append(entries, e)
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Timestamp != entries[j].Timestamp {
			return entries[i].Timestamp > entries[j].Timestamp
		}
		return entries[i].ScanID < entries[j].ScanID
	})
	out := ListOutput{Total: len(entries), Scans: entries, Note: strings.Join(notes, " ")}
	if len(out.Scans) > limit {
		out.Scans = out.Scans[:limit]
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" Showing the newest %d of %d.", limit, out.Total))
	}
	if out.Scans == nil {
		out.Scans = []ScanEntry{}
	}
	return out, nil
}

// belongsToListedScan: older result dirs of a listed scan's own directory.
func belongsToListedScan(p string, scans []cwacv1alpha1.CwacScan) bool {
	for i := range scans {
		if strings.HasPrefix(p, scanjob.ScanDir(&scans[i])+"/") {
			return true
		}
	}
	return false
}

func lastSegment(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// ---- cwac_generate_report ----

// ReportInput are cwac_generate_report's arguments.
type ReportInput struct {
	ScanID     string `json:"scan_id" jsonschema:"the scan's ID"`
	Regenerate bool   `json:"regenerate,omitempty" jsonschema:"write the reports again even if they exist"`
}

// ReportOutput is cwac_generate_report's answer.
type ReportOutput struct {
	ScanID         string   `json:"scan_id"`
	Files          []string `json:"files" jsonschema:"report files, relative to the results volume"`
	ReportHTML     string   `json:"report_html"`
	LeaderboardCSV string   `json:"leaderboard_csv"`
	Generated      bool     `json:"generated" jsonschema:"false when the reports the scan pod wrote were returned as they were"`
	Scoring        string   `json:"scoring"`
}

const scoringNote = "Leaderboard score = max(0, 100 - weighted issues per page scanned); axe-core issues weigh critical 10, serious 5, moderate 2, minor 1; other audits' issues 3. Higher is better."

func (s *Server) generateReport(ctx context.Context, call *callInfo, in ReportInput) (ReportOutput, error) {
	dir, _, scan, err := s.resultsFor(ctx, call, in.ScanID)
	if err != nil {
		return ReportOutput{}, err
	}
	out := ReportOutput{ScanID: in.ScanID, ReportHTML: dir + "/" + report.HTMLFile, LeaderboardCSV: dir + "/" + report.LeaderboardFile, Scoring: scoringNote}
	out.Files = []string{out.ReportHTML, out.LeaderboardCSV}
	root, err := s.root.open()
	if err != nil {
		return ReportOutput{}, err
	}
	defer root.Close()
	sub, err := root.OpenRoot(dir)
	if err != nil {
		return ReportOutput{}, err
	}
	defer sub.Close()
	if !in.Regenerate {
		_, e1 := sub.Stat(report.HTMLFile)
		_, e2 := sub.Stat(report.LeaderboardFile)
		if e1 == nil && e2 == nil {
			return out, nil
		}
	}
	title := lastSegment(dir)
	if scan != nil {
		title = scanjob.AuditName(scan)
	}
	_, err = report.Generate(sub.FS(), report.Meta{Title: title, ResultsDir: dir, GeneratedAt: s.now()}, func(name string, data []byte) error {
		return sub.WriteFile(name, data, 0o644)
	})
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), "read-only file system") {
			return ReportOutput{}, fmt.Errorf("Cannot write reports: the results volume is read-only here (%v); the scan pod writes report.html and leaderboard.csv at the end of every scan", err)
		}
		return ReportOutput{}, fmt.Errorf("generating reports: %w", err)
	}
	out.Generated = true
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…[truncated]"
}

// recordCreation leaves an Event on the new scan saying who created it
// through MCP; failing to record it does not fail the call.
func (s *Server) recordCreation(ctx context.Context, scan *cwacv1alpha1.CwacScan, call *callInfo) {
	now := metav1.NewMicroTime(s.now())
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: strings.TrimRight(scan.Name[:min(len(scan.Name), 200)], "-.") + "-created-", Namespace: scan.Namespace},
		EventTime:           now,
		ReportingController: "cwac.a11y.dev/mcp-server",
		ReportingInstance:   truncate("mcp-server-"+hostname(), 128),
		Action:              "Create",
		Reason:              "CreatedViaMCP",
		Type:                corev1.EventTypeNormal,
		Note:                truncate(fmt.Sprintf("created through MCP (%s) by %s", call.Transport, call.Caller), 1024),
		Regarding: corev1.ObjectReference{
			APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScan", Namespace: scan.Namespace, Name: scan.Name, UID: scan.UID,
		},
	}
	if err := s.cfg.Client.Create(ctx, ev); err != nil {
		s.cfg.Log.Warn("recording the creation event", "scan", scan.Name, "err", err)
	}
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
