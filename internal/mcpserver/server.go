// Package mcpserver is the MCP server: the CWAC tools (the original server's
// six — cwac_scan, cwac_scan_status, cwac_get_results, cwac_get_summary,
// cwac_list_scans, cwac_generate_report — plus cwac_compare_scans,
// cwac_cancel_scan and, from the issue history (internal/store),
// cwac_issue_history and cwac_organisation_trend), a finished scan's files
// and each organisation's trend as MCP resources, and prompts,
// over MCP (streamable HTTP and stdio) and the tools also over the REST
// execution-service interface of the original CWAC MCP server, from one tool
// registry. Scans are CwacScan objects in the API server; results are read,
// never written, from the results volume through a confined root.
//
// One file per tool (tool_*.go), which defines and registers it
// (tooldefs.go); resources.go and prompts.go for the rest of
// MCP; scan_access.go is where they look scans and results up, files.go the
// confined root, args.go the argument shapes cwac_scan accepts,
// scan_validation.go the API server's check of a scan.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Config configures the server.
type Config struct {
	// Client reads and creates CwacScans (and lists pods).
	Client client.Client
	// Clientset reads scan pod logs (optional: without it stdout_tail is empty).
	Clientset kubernetes.Interface
	// Namespace is where scans are created and looked up.
	Namespace string
	// ResultsRoot is where the results volume is mounted.
	ResultsRoot string
	// ResultsBucket, when set, is where the results are read from instead
	// of the volume (ResultsRoot is then unused).
	ResultsBucket *objectstore.Store
	// CompareDir is a directory the server may write scratch files in:
	// cwac_compare_scans, comparing two scans' CSVs (no usable diff.json),
	// keeps large scans' records there, in bounded memory, as the scan pod
	// does ("": in memory, which for a million-row scan is about 160 MiB).
	CompareDir string
	// CallTimeout bounds every tool call (default 30s).
	CallTimeout time.Duration
	// MaxCallTimeout bounds the timeout a REST caller may ask for (default 5m).
	MaxCallTimeout time.Duration
	// DefaultResults and MaxResults bound cwac_get_results' limit (100, 1000).
	DefaultResults, MaxResults int
	// MaxResponseBytes caps a tool answer (default 512 KiB).
	MaxResponseBytes int
	// MaxURLs caps URLs per scan (default 1000, the CRD's limit).
	MaxURLs int
	// Version is reported to MCP clients.
	Version string
	// Log receives one audit line per tool call.
	Log *slog.Logger
	// Now is the clock (tests may replace it).
	Now func() time.Time

	// Policy decides which URLs cwac_scan accepts (nil: none checked — tests only).
	Policy *urlpolicy.Policy
	// Authorizer checks each HTTP tool call against the caller's own RBAC
	// (nil: the transport's authentication is all).
	Authorizer Authorizer
	// ReadOnly hides cwac_scan and cwac_cancel_scan, the tools that change anything.
	ReadOnly bool
	// ScansPerMinute and ScanBurst rate-limit cwac_scan per caller (default 10 and 5).
	ScansPerMinute float64
	ScanBurst      int
	// History is the issue history (nil, or a handle with no store: not
	// configured; a store not open yet: its database has not answered since
	// the server started). cwac_issue_history and cwac_organisation_trend
	// say which.
	History *store.Handle
	// Grants are the namespace's CwacOrganisationGrants (nil: none are
	// read, and only readers of its CwacScans are let in).
	Grants GrantSource
	// Decisions are the namespace's CwacIssueDecisions (nil: none are
	// read): cwac_issue_history names the applied one covering each issue.
	Decisions *DecisionSource
}

func (c *Config) defaults() {
	if c.CallTimeout <= 0 {
		c.CallTimeout = 30 * time.Second
	}
	if c.MaxCallTimeout <= 0 {
		c.MaxCallTimeout = 5 * time.Minute
	}
	if c.DefaultResults <= 0 {
		c.DefaultResults = 100
	}
	if c.MaxResults <= 0 {
		c.MaxResults = 1000
	}
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = 512 * 1024
	}
	if c.MaxURLs <= 0 {
		c.MaxURLs = 1000
	}
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	if c.ScansPerMinute <= 0 {
		c.ScansPerMinute = 10
	}
	if c.ScanBurst <= 0 {
		c.ScanBurst = 5
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// What the sidecar calls, in its own namespace; `make manifests` turns these
// into config/rbac/mcp_server_role.yaml.
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans,verbs=get;list;create;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=list
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create
// With --store, one replica at a time records finished scans in the issue
// history (internal/historywriter), elected with a Lease.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update

// Server holds the tool registry.
type Server struct {
	cfg     Config
	access  scanAccess
	tools   map[string]*tool
	mcp     *mcp.Server
	limiter *callerLimiter
	metrics serverMetrics
}

// tool is one registry entry, served over MCP and REST alike.
type tool struct {
	name        string
	description string
	readOnly    bool
	inputSchema *jsonschema.Schema
	resolved    *jsonschema.Resolved
	// run decodes already-validated arguments and calls the handler.
	run func(ctx context.Context, call *callInfo, args json.RawMessage) (any, error)
}

// callInfo travels with one tool call: who made it, what it touched, and a
// way to report progress.
type callInfo struct {
	Identity  *Identity
	Caller    string
	Transport string
	Target    string
	progress  func(done, total float64, msg string)
	// reach is what the caller may read of the namespace, set by
	// authorizeCall before the handler runs: the zero value reaches
	// nothing.
	reach orgaccess.Reach
}

// serverInstructions is what the server tells MCP clients it is for.
const serverInstructions = "Run CWAC web accessibility scans on Kubernetes: start one with cwac_scan, " +
	"poll cwac_scan_status until complete, then read cwac_get_summary and cwac_get_results, " +
	"and the HTML report and leaderboard with cwac_generate_report."

// New builds the server and its tools.
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	if cfg.Client == nil {
		return nil, errors.New("mcpserver: a Kubernetes client is required")
	}
	if err := checkCompareDir(cfg.CompareDir); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		access:  scanAccess{client: cfg.Client, namespace: cfg.Namespace, tree: newResultsTree(cfg.ResultsRoot, cfg.ResultsBucket)},
		tools:   map[string]*tool{},
		limiter: newCallerLimiter(cfg.ScansPerMinute, cfg.ScanBurst),
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cwac-operator", Title: "CWAC accessibility scans", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: serverInstructions,
		Capabilities: &mcp.ServerCapabilities{},
		SetCacheable: privateAnswers,
	})
	var err error
	add := func(e error) {
		if err == nil {
			err = e
		}
	}
	for _, d := range toolDefs {
		if cfg.ReadOnly && !d.readOnly {
			continue
		}
		add(d.add(s))
	}
	s.addResources()
	s.addPrompts()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// privateAnswers marks every cacheable answer (lists, resource reads) as
// the caller's own, never to be cached: what a caller may read depends on
// its RBAC, so a shared gateway must not serve one caller's answer to
// another (the SDK's default scope is "public").
func privateAnswers(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
	c.CacheScope, c.TTLMs = "private", 0
}

// MCP returns the MCP server, for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// ToolNames lists the registered tools, sorted.
func (s *Server) ToolNames() []string {
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// destructiveTools stop or undo work (MCP clients may ask before calling them).
var destructiveTools = map[string]bool{"cwac_cancel_scan": true}

// addTool registers one typed handler with the MCP server and the registry.
func addTool[In, Out any](s *Server, name, description string, readOnly bool, fn func(context.Context, *callInfo, In) (Out, error)) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("%s input schema: %w", name, err)
	}
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		return fmt.Errorf("%s output schema: %w", name, err)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		return fmt.Errorf("%s input schema: %w", name, err)
	}
	t := &tool{name: name, description: description, readOnly: readOnly, inputSchema: in, resolved: resolved}
	t.run = func(ctx context.Context, call *callInfo, args json.RawMessage) (any, error) {
		var v In
		if len(args) > 0 {
			if err := json.Unmarshal(args, &v); err != nil {
				return nil, &argsError{err}
			}
		}
		out, err := fn(ctx, call, v)
		if err != nil {
			return nil, err
		}
		// Encoded once here, and checked: the REST answer carries these bytes.
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("encoding the answer: %w", err)
		}
		if err := s.checkAnswerSize(len(data)); err != nil {
			return nil, err
		}
		return json.RawMessage(data), nil
	}
	s.tools[name] = t

	openWorld := !readOnly
	annotations := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, OpenWorldHint: &openWorld, Title: name}
	if !readOnly {
		destructive := destructiveTools[name]
		annotations.DestructiveHint = &destructive
	}
	// The untyped registration: the SDK's typed one would validate every
	// answer against its output schema by decoding and encoding it again,
	// which for a page of results was most of the call's cost. The answer
	// is our own type, from which that schema is made, so it is encoded
	// once; the arguments, which come from outside, are checked here.
	s.mcp.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: in, OutputSchema: out, Annotations: annotations},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			input, err := decodeArgs[In](resolved, req.Params.Arguments)
			if err != nil {
				return toolError(err), nil
			}
			call := &callInfo{Identity: identityFromHeader(req), Caller: callerFromHeader(req), Transport: transportOf(req)}
			if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
				call.progress = func(done, total float64, msg string) {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: msg})
				}
			}
			var result Out
			err = s.invoke(ctx, t, call, s.cfg.CallTimeout, argsSummary(req.Params.Arguments), func(ctx context.Context, c *callInfo) error {
				var err error
				result, err = fn(ctx, c, input)
				return err
			})
			if err != nil {
				return toolError(err), nil
			}
			text, err := json.Marshal(result)
			if err != nil {
				return nil, fmt.Errorf("encoding the answer: %w", err)
			}
			if err := s.checkAnswerSize(len(text)); err != nil {
				return toolError(err), nil
			}
			// The same JSON as text too, for clients that read only content.
			content := append([]mcp.Content{&mcp.TextContent{Text: string(text)}}, linksOf(result)...)
			return &mcp.CallToolResult{Content: content, StructuredContent: json.RawMessage(text)}, nil
		})
	return nil
}

// decodeArgs checks a call's arguments against the tool's input schema
// and decodes them (none is the empty object).
func decodeArgs[In any](schema *jsonschema.Resolved, args any) (In, error) {
	var in In
	raw, ok := args.(json.RawMessage)
	if !ok && args != nil {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			return in, &argsError{err}
		}
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return in, &argsError{err}
	}
	if err := schema.Validate(instance); err != nil {
		return in, &argsError{err}
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, &argsError{err}
	}
	return in, nil
}

// checkAnswerSize refuses an answer larger than MaxResponseBytes
// (--max-response-bytes). Each tool caps what it returns from files to fit
// (pages, lists, texts); this is the last check, for every tool, so that
// no file on the results volume can make an answer larger than the limit.
func (s *Server) checkAnswerSize(n int) error {
	if n > s.cfg.MaxResponseBytes {
		return fmt.Errorf("The answer is %d bytes, more than this server's limit of %d (--max-response-bytes): ask for less, with a smaller limit or a filter",
			n, s.cfg.MaxResponseBytes)
	}
	return nil
}

// toolError is a failed call's answer: the error's text, marked as an
// error, as the MCP specification asks for errors of the tool itself.
func toolError(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

// truncatedMark ends a text the MCP server cut: the words its answers and
// logs have always used.
const truncatedMark = "…[truncated]"

// truncate cuts s to at most n bytes, the mark included, between
// characters: every text that reaches an answer or a log line from outside
// is bounded.
func truncate(s string, n int) string { return textcap.HeadMarked(s, n, truncatedMark) }

// argsError marks arguments that could not be decoded (HTTP 400 over REST).
type argsError struct{ err error }

func (e *argsError) Error() string { return "invalid arguments: " + e.err.Error() }

// invoke runs one tool call with its timeout and writes its audit line.
// The handler runs on its own copy of call: after a timeout it may still be
// running, and must not race with the audit line.
func (s *Server) invoke(ctx context.Context, t *tool, call *callInfo, timeout time.Duration, args string, fn func(context.Context, *callInfo) error) error {
	if call.progress == nil {
		call.progress = func(float64, float64, string) {}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	if err := s.authorizeCall(ctx, t.name, call); err != nil {
		s.audit(t, call, args, "forbidden", err, start)
		return err
	}
	done := make(chan error, 1)
	inner := *call
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error in %s", t.name)
				s.cfg.Log.Error("tool panicked", "tool", t.name, "panic", fmt.Sprint(r))
			}
		}()
		done <- fn(ctx, &inner)
	}()
	var err error
	select {
	case err = <-done:
		call.Target = inner.Target
	case <-ctx.Done():
		err = fmt.Errorf("%s timed out after %s", t.name, timeout)
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			outcome = "timeout"
		case errors.Is(err, orgaccess.ErrNotCovered):
			outcome = "forbidden" // refused by the caller's grants, as RBAC refusals are
		}
	}
	s.audit(t, call, args, outcome, err, start)
	return err
}

// audit writes the one structured line every tool call leaves.
func (s *Server) audit(t *tool, call *callInfo, args, outcome string, err error, start time.Time) {
	s.metrics.observe(s, t.name, outcome, time.Since(start))
	s.cfg.Log.Info("tool call",
		"audit", true, "tool", t.name, "caller", call.Caller, "transport", call.Transport,
		"target", call.Target, "args", args, "outcome", outcome, "error", errString(err),
		"duration_ms", time.Since(start).Milliseconds())
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return truncate(err.Error(), 512)
}

// argsSummary is the audit log's view of a call's arguments: keys and short
// values, never whole payloads.
func argsSummary(raw json.RawMessage) string {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Sprintf("(%d bytes, not an object)", len(raw))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		if out != "" {
			out += " "
		}
		switch v := m[k].(type) {
		case string:
			out += fmt.Sprintf("%s=%q", truncate(k, 32), truncate(v, 80))
		case []any:
			out += fmt.Sprintf("%s=[%d items]", truncate(k, 32), len(v))
		case map[string]any:
			out += fmt.Sprintf("%s={%d keys}", truncate(k, 32), len(v))
		default:
			out += fmt.Sprintf("%s=%v", truncate(k, 32), v)
		}
	}
	return truncate(out, 512)
}

// CallerHeader carries the caller's identity from the HTTP layer to tool
// handlers; the HTTP layer always overwrites whatever a client sent in it.
const CallerHeader = "X-Cwac-Mcp-Caller"

func callerFromHeader(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.Header != nil {
		if c := req.Extra.Header.Get(CallerHeader); c != "" {
			return c
		}
	}
	return "stdio"
}

func identityFromHeader(req *mcp.CallToolRequest) *Identity {
	if req.Extra != nil && req.Extra.Header != nil {
		return decodeIdentity(req.Extra.Header.Get(IdentityHeader))
	}
	return nil
}

// How a call arrived (the audit log's transport).
const (
	transportStdio = "mcp-stdio"
	transportHTTP  = "mcp-http"
)

func transportOf(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.Header != nil {
		return transportHTTP
	}
	return transportStdio
}

// checkCompareDir refuses a CompareDir the server cannot write scratch
// files in, at start rather than at the first comparison that needs it.
func checkCompareDir(dir string) error {
	if dir == "" {
		return nil
	}
	f, err := os.CreateTemp(dir, ".cwac-check-*")
	if err != nil {
		return fmt.Errorf("mcpserver: the compare directory %s cannot hold scratch files: %w", dir, err)
	}
	_ = f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return fmt.Errorf("mcpserver: the compare directory %s cannot hold scratch files: %w", dir, err)
	}
	return nil
}
