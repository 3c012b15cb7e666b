package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// HTTPOptions configure the HTTP front.
type HTTPOptions struct {
	// MaxRequestBytes refuses larger request bodies before parsing (default 1 MiB).
	MaxRequestBytes int64
	// Auth authenticates every request but /health. It is required: use
	// AnonymousAuth{} to switch authentication off, explicitly.
	Auth Authenticator
	// BodyReadTimeout bounds the time to send a request body (default
	// DefaultBodyReadTimeout).
	BodyReadTimeout time.Duration
	// Conns bound the connections NewHTTPServer's server holds open.
	Conns ConnLimits
	// ProtectedResource, when set, serves its OAuth 2.0 Protected Resource
	// Metadata (RFC 9728) and names it in every 401, so MCP clients can
	// sign in with its provider (Auth should then be an OIDCTokenAuth).
	ProtectedResource *ProtectedResource
	// Dashboard, when set, serves every path the routes above do not (the
	// web dashboard at /), behind the same Host check, body limits and
	// cross-origin refusals; it authenticates its own requests.
	Dashboard http.Handler
}

// Handler serves /mcp (streamable HTTP), the REST execution service
// (GET /tools, POST /execute), GET /metrics (Prometheus, see metrics.go)
// and GET /health.
//
// MCP is served stateless: every request stands alone, authenticated and
// authorised by its own credentials, and the server keeps no session
// between requests (no Mcp-Session-Id is issued or read; GET and DELETE on
// /mcp answer 405). Nothing a caller sends therefore makes the server hold
// memory after its request ends, however many times it initializes, and
// any replica can answer any request. A tool call's progress notifications
// still reach the caller, on the stream that answers the call.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = 1 << 20
	}
	if opts.BodyReadTimeout <= 0 {
		opts.BodyReadTimeout = DefaultBodyReadTimeout
	}
	mux := http.NewServeMux()
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: opts.MaxRequestBytes,
		Stateless:           true,
		// A caller that goes away ends its call (protocol 2026-07-28 on;
		// earlier versions end with the call's timeout).
		PropagateRequestCancellation: true,
	})
	auth := opts.Auth
	if auth == nil {
		auth = refuseAll{}
	}
	// Every route but /health: the Host check, then a deadline and a cap on
	// the body, then the caller's credentials, then cross-origin and
	// content-type refusals.
	protected := func(h http.Handler) http.Handler {
		return guardHost(deadlineBody(opts.BodyReadTimeout, limitBody(opts.MaxRequestBytes,
			authenticate(auth, opts.ProtectedResource.challenge(), s.cfg.Log, guardCrossOrigin(h)))))
	}
	mcpHandler := protected(streamable)
	mux.Handle("/mcp", mcpHandler)
	mux.Handle("/mcp/", mcpHandler)
	mux.Handle("GET /tools", protected(http.HandlerFunc(s.listToolsREST)))
	mux.Handle("POST /execute", protected(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.executeREST(w, r, opts.MaxRequestBytes) })))
	mux.Handle("GET "+MetricsPath, protected(s.metricsHandler()))
	mux.HandleFunc("GET /health", s.health)
	if pr := opts.ProtectedResource; pr != nil {
		// Public, as the metadata is: at the path RFC 9728 derives from
		// the resource URL, and at the bare well-known path for clients
		// that look there first.
		metadata := guardHost(http.HandlerFunc(pr.serveMetadata))
		mux.Handle("GET "+pr.MetadataPath(), metadata)
		if pr.MetadataPath() != metadataPrefix {
			mux.Handle("GET "+metadataPrefix, metadata)
		}
	}
	if opts.Dashboard != nil {
		// The dashboard's one form (sign-out) is posted as browsers post
		// forms, not as JSON: cross-site requests are refused here, and the
		// dashboard checks the form's CSRF token itself.
		dash := http.NewCrossOriginProtection().Handler(opts.Dashboard)
		mux.Handle("/", guardHost(deadlineBody(opts.BodyReadTimeout, limitBody(opts.MaxRequestBytes, dash))))
	}
	return markServing(mux)
}

// HTTPServer is the MCP server's HTTP server as the binary runs it:
// Handler behind the timeouts below, its connections counted by
// opts.Conns.
type HTTPServer struct {
	*http.Server
	limiter *connLimiter
}

// NewHTTPServer builds the HTTP server for Handler(opts); Serve it on a
// listener.
func (s *Server) NewHTTPServer(opts HTTPOptions) *HTTPServer {
	return &HTTPServer{
		Server: &http.Server{
			Handler:           s.Handler(opts),
			ReadHeaderTimeout: 10 * time.Second,
			// Keep-alive connections with nothing to do are closed; request
			// bodies get their own deadline (DefaultBodyReadTimeout). No
			// write timeout: MCP answers stream for as long as a call runs.
			IdleTimeout:    2 * time.Minute,
			MaxHeaderBytes: 64 << 10,
			ConnContext:    withConn,
		},
		limiter: newConnLimiter(opts.Conns),
	}
}

// Serve accepts connections on l, counted by the server's ConnLimits,
// until the server is shut down.
func (h *HTTPServer) Serve(l net.Listener) error {
	return h.Server.Serve(&limitedListener{Listener: l, limiter: h.limiter})
}

// markServing tells a counted connection when it is serving a request: an
// unauthenticated connection in the middle of one is never displaced by a
// newer connection.
func markServing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := connOf(r.Context()); c != nil {
			c.serving(true)
			defer c.serving(false)
		}
		next.ServeHTTP(w, r)
	})
}

// refuseAll is the authenticator when none was configured: nothing gets in.
type refuseAll struct{}

func (refuseAll) Authenticate(context.Context, *http.Request) (*Identity, error) {
	return nil, fmt.Errorf("%w: no authentication is configured", errUnauthenticated)
}

// IsUnauthenticated reports whether an Authenticator's error means the
// request carried no acceptable credentials (401), rather than that the
// check itself failed (503).
func IsUnauthenticated(err error) bool { return errors.Is(err, errUnauthenticated) }

// limitBody refuses bodies over maxBytes before anything parses them.
func limitBody(maxBytes int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBytes {
			writeExecuteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBytes)
		next.ServeHTTP(w, r)
	})
}

func remoteHost(r *http.Request) string { return hostOf(r.RemoteAddr) }

// hostOf is the host of a host:port address (the address itself when it
// has no port).
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// RESTTool is one entry of GET /tools.
type RESTTool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
	ReadOnly    bool               `json:"read_only"`
}

func (s *Server) listToolsREST(w http.ResponseWriter, _ *http.Request) {
	out := struct {
		Tools []RESTTool `json:"tools"`
	}{}
	for _, name := range s.ToolNames() {
		t := s.tools[name]
		out.Tools = append(out.Tools, RESTTool{Name: t.name, Description: t.description, InputSchema: t.inputSchema, ReadOnly: t.readOnly})
	}
	writeJSON(w, http.StatusOK, out)
}

// ExecuteRequest is POST /execute's body.
type ExecuteRequest struct {
	ToolName  string          `json:"tool_name"`
	Arguments json.RawMessage `json:"arguments"`
	// Timeout in seconds (default the server's call timeout, capped).
	Timeout float64 `json:"timeout,omitempty"`
}

// ExecuteResponse is POST /execute's answer.
type ExecuteResponse struct {
	Status          string `json:"status"` // success, error or timeout
	Output          any    `json:"output"`
	Error           string `json:"error,omitempty"`
	ExecutionTimeMS int64  `json:"execution_time_ms"`
}

// ExecuteResponse's statuses.
const (
	executeSuccess = "success"
	executeError   = "error"
	executeTimeout = "timeout"
)

// writeExecuteError answers with an ExecuteResponse whose status is error:
// /execute's refusals, and those of the handlers in front of it.
func writeExecuteError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, ExecuteResponse{Status: executeError, Error: msg})
}

func (s *Server) executeREST(w http.ResponseWriter, r *http.Request, maxBytes int64) {
	start := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeExecuteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxBytes))
			return
		}
		writeExecuteError(w, http.StatusBadRequest, "reading request: "+err.Error())
		return
	}
	var req ExecuteRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeExecuteError(w, http.StatusBadRequest, "invalid request: "+err.Error())
		return
	}
	t, ok := s.tools[req.ToolName]
	if !ok {
		writeExecuteError(w, http.StatusNotFound, fmt.Sprintf("unknown tool %q; tools: %v", truncate(req.ToolName, 64), s.ToolNames()))
		return
	}
	args := req.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		writeExecuteError(w, http.StatusBadRequest, "invalid arguments: "+err.Error())
		return
	}
	if err := t.resolved.Validate(instance); err != nil {
		writeExecuteError(w, http.StatusBadRequest, "invalid arguments: "+err.Error())
		return
	}
	timeout := s.cfg.CallTimeout
	if req.Timeout < 0 {
		writeExecuteError(w, http.StatusBadRequest, "invalid timeout: must be positive seconds")
		return
	}
	if req.Timeout > 0 {
		timeout = min(time.Duration(req.Timeout*float64(time.Second)), s.cfg.MaxCallTimeout)
	}
	call := &callInfo{Identity: decodeIdentity(r.Header.Get(IdentityHeader)), Caller: r.Header.Get(CallerHeader), Transport: "rest"}
	var output any
	err = s.invoke(r.Context(), t, call, timeout, argsSummary(args), func(ctx context.Context, c *callInfo) error {
		var err error
		output, err = t.run(ctx, c, args)
		return err
	})
	resp := ExecuteResponse{ExecutionTimeMS: time.Since(start).Milliseconds()}
	var argErr *argsError
	switch {
	case errors.As(err, &argErr):
		resp.Status, resp.Error = executeError, err.Error()
		writeJSON(w, http.StatusBadRequest, resp)
		return
	case err != nil && time.Since(start) >= timeout:
		resp.Status, resp.Error = executeTimeout, err.Error()
	case err != nil:
		resp.Status, resp.Error = executeError, err.Error()
	default:
		// Read the output only when the handler has finished: after a
		// timeout it may still be running.
		resp.Status, resp.Output = executeSuccess, output
	}
	writeJSON(w, http.StatusOK, resp)
}

// Health is GET /health's answer.
type Health struct {
	Status      string `json:"status"` // ok or degraded
	APIServer   string `json:"api_server"`
	ResultsRoot string `json:"results_root"`
}

// Health's statuses: ok, or degraded when the API server or the results
// volume is not usable.
const (
	healthOK       = "ok"
	healthDegraded = "degraded"
)

// health answers probes without credentials, and closes the connection
// after its answer: a connection nobody authenticated on is held no longer
// than one request (kubelet's probes open a new one each time anyway).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	h := Health{Status: healthOK, APIServer: healthOK, ResultsRoot: healthOK}
	list := &cwacv1alpha1.CwacScanList{}
	if err := s.cfg.Client.List(ctx, list, client.InNamespace(s.cfg.Namespace), client.Limit(1)); err != nil {
		h.Status, h.APIServer = healthDegraded, "unreachable: "+truncate(err.Error(), 256)
	}
	if root, done, err := s.access.tree.open(ctx); err != nil {
		h.Status, h.ResultsRoot = healthDegraded, "unreadable: "+truncate(err.Error(), 256)
	} else {
		if _, err := fs.Stat(root, "."); err != nil {
			h.Status, h.ResultsRoot = healthDegraded, "unreadable: "+truncate(err.Error(), 256)
		}
		done()
	}
	code := http.StatusOK
	if h.Status != healthOK {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, h)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
