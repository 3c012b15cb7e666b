package dashboard

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/report"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

//go:embed templates/*.html static/*
var assets embed.FS

// ContentSecurityPolicy is sent with every response: nothing but the
// page itself and its style sheet from the same server; no script at
// all, no frames, forms only to this server.
const ContentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// Options configure the dashboard.
type Options struct {
	// Store is the issue history; nil, or a handle without a store, answers
	// the pages that need it with 503 and a page saying the history is not
	// configured; a store whose database has not answered since the server
	// started, with 503 and a page saying so.
	Store *store.Handle
	// Access identifies requests and says which namespaces they may read.
	// Required: Open{} for an unauthenticated dashboard, explicitly.
	Access Access
	// Namespaces are those the dashboard serves (the MCP server's).
	Namespaces []string
	// Scans lists scans and opens their results; nil answers the scan
	// pages with 503.
	Scans ScanSource
	// Log receives errors the pages do not show (a store's failure).
	Log *slog.Logger
	// SignIn, when set, signs browsers in with an OpenID Connect provider
	// (signin.go); a bearer token still goes to Access.
	SignIn *SignIn
	// PublicNamespaces are read by anyone, signed in or not, on the
	// leaderboard and the exports only (admit.go); none by default.
	PublicNamespaces []string
	// Decisions reads and makes CwacIssueDecisions (decisions.go): the
	// issue page shows the decisions about its issue and, to a signed-in
	// person who may decide, the decide form. nil: neither.
	Decisions Decisions
	// Owners says who answers for each organisation (owners.go): the
	// organisation and issue pages name them. nil: neither does.
	Owners Owners
}

// Handler serves the dashboard's pages, exports and style sheet.
type Handler struct {
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
}

// New builds the dashboard's handler.
func New(opts Options) (*Handler, error) {
	if opts.Access == nil {
		return nil, errors.New("dashboard: Options.Access is required (dashboard.Open{} for no authentication)")
	}
	if len(opts.Namespaces) == 0 {
		return nil, errors.New("dashboard: Options.Namespaces must name the namespaces served")
	}
	if err := opts.checkAccessOptions(); err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(assets, "templates/layout.html", name)
		if err != nil {
			return nil, fmt.Errorf("dashboard: parsing %s: %w", name, err)
		}
		h.pages[base] = t
	}
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	// The style sheet and the icon: same origin, cacheable, no credentials
	// needed (an error page is styled too).
	for name, ct := range map[string]string{"dashboard.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml"} {
		data, _ := assets.ReadFile("static/" + name)
		h.mux.HandleFunc("GET /static/"+name, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Cache-Control", "public, max-age=3600")
			_, _ = w.Write(data)
		})
	}
	h.handlePublic("GET /{$}", h.organisations)
	h.handle("GET /organisations/{ns}/{org}", h.organisation)
	h.handle("GET /issues/{ns}/{id}", h.issue)
	if h.opts.Decisions != nil {
		h.handle("POST /issues/{ns}/{id}/decisions", h.decideIssue)
	}
	h.handle("GET /scans", h.scans)
	h.handle("GET /scans/{ns}/{name}", h.scan)
	h.handle("GET /scans/{ns}/{name}/files/{file}", h.scanFile)
	h.handlePublic("GET /export/{file}", h.exportLeaderboard)
	h.handlePublic("GET /export/organisations/{ns}/{org}/{file}", h.exportOrganisation)
	h.handlePublic("GET /export/scans/{ns}/{name}/{file}", h.exportScanChanges)
	h.signInRoutes()
	h.handle("/", func(w http.ResponseWriter, r *http.Request, _ *viewer) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			h.fail(w, r, nil, http.StatusMethodNotAllowed, "Method not allowed", "This page only reads: use GET.")
			return
		}
		h.fail(w, r, nil, http.StatusNotFound, "Page not found", fmt.Sprintf("There is no dashboard page at %s.", r.URL.Path))
	})
}

// ServeHTTP implements http.Handler: security headers on every answer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	h.mux.ServeHTTP(w, r)
}

// viewer is who a request is and the namespaces it may read (wholly, or
// some organisations by grant), in the order the dashboard serves them.
type viewer struct {
	Principal
	Namespaces []string
	reach      map[string]orgaccess.Reach
	// publicOnly is set for a visitor who reads only the public
	// namespaces' leaderboard and trends, without signing in.
	publicOnly bool
}

// may reports whether the viewer reads anything of the namespace.
func (v *viewer) may(ns string) bool { return v != nil && slices.Contains(v.Namespaces, ns) }

// reachOf is what the viewer may read of the namespace (nothing when nil).
func (v *viewer) reachOf(ns string) orgaccess.Reach {
	if v == nil {
		return orgaccess.Reach{}
	}
	return v.reach[ns]
}

// ReadsWholeScans reports whether the viewer reads every namespace it
// may read wholly: only then are the scans' pages (which show every
// organisation of a scan) in the navigation.
func (v *viewer) ReadsWholeScans() bool {
	if v == nil {
		return false
	}
	for _, ns := range v.Namespaces {
		if !v.reach[ns].IsWhole() {
			return false
		}
	}
	return true
}

// reason is the part of an unauthenticated error after the sentinel.
func reason(err error) string {
	s := strings.TrimPrefix(err.Error(), ErrUnauthenticated.Error())
	s = strings.TrimLeft(s, ": ")
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// The navigation's sections, the names of the pages' fields.
const (
	navOrganisations = "organisations"
	navScans         = "scans"
	fieldNamespace   = "namespace"
	fieldSchedule    = "schedule"
	fieldPhase       = "phase"
	formatJSON       = "json"
	formatCSV        = "csv"
)

// page is what the layout renders around a page's own content.
type page struct {
	Title string
	// Status, when set, goes before the title in the window's title
	// ("Error", "Decision recorded"): what a screen reader says first on
	// the page a form led to.
	Status string
	Nav    string
	Viewer *viewer
	Data   any
}

// render writes a page, or a 500 page if the template fails (the page
// is rendered to memory first, so nothing half-written is sent).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, code int, name string, p page) {
	t := h.pages[name]
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		h.opts.Log.Error("dashboard: rendering", "page", name, "err", err)
		if name != "error" {
			h.fail(w, r, p.Viewer, http.StatusInternalServerError, "Page failed", "This page could not be shown. The error is in the server's log.")
			return
		}
		http.Error(w, "page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// errorPage is the error template's data.
type errorPage struct {
	Code    int
	Message string
}

// fail answers with an error page saying what went wrong.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, v *viewer, code int, title, msg string) {
	h.render(w, r, code, "error", page{Title: title, Viewer: v, Data: errorPage{Code: code, Message: msg}})
}

// storeFailed answers a store error: not found is 404 with what was not
// found, anything else 503 (the store is down or failing), logged.
func (h *Handler) storeFailed(w http.ResponseWriter, r *http.Request, v *viewer, what string, err error) {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrScanNotStored) {
		h.fail(w, r, v, http.StatusNotFound, "Not found", what)
		return
	}
	if errors.Is(err, context.Canceled) {
		return // the browser went away
	}
	h.opts.Log.Error("dashboard: reading the issue history", "path", r.URL.Path, "err", err)
	h.fail(w, r, v, http.StatusServiceUnavailable, "Issue history unavailable",
		"The issue history's database did not answer, so these figures cannot be shown just now. "+
			"Nothing is lost: try again shortly, and if it persists ask the operator's administrators to check the store.")
}

// needStore is the dashboard's store, or answers 503 (and nil) when it has
// none: not configured, or its database has not answered yet.
func (h *Handler) needStore(w http.ResponseWriter, r *http.Request, v *viewer) *store.Store {
	st, err := h.opts.Store.Get()
	switch {
	case err == nil:
		return st
	case errors.Is(err, store.ErrNotConfigured):
		h.fail(w, r, v, http.StatusServiceUnavailable, "Issue history not configured",
			historyUnavailable(err)+" There are no organisations or trends to show. See docs/history.md.")
	default:
		h.fail(w, r, v, http.StatusServiceUnavailable, "Issue history not available yet",
			historyUnavailable(err)+" Nothing is lost: try again shortly, and if it persists ask the operator's administrators to check the store.")
	}
	return nil
}

// badRequest answers 400 naming the parameter and why.
func (h *Handler) badRequest(w http.ResponseWriter, r *http.Request, v *viewer, msg string) {
	h.fail(w, r, v, http.StatusBadRequest, "Bad request", msg)
}

// checkQuery refuses query parameters a page does not take, and repeated ones.
func checkQuery(q url.Values, allowed ...string) error {
	for _, k := range sortedKeys(q) {
		if !slices.Contains(allowed, k) {
			if len(allowed) == 0 {
				return fmt.Errorf("unknown query parameter %q: this page takes none", textcap.Head(k, 64))
			}
			return fmt.Errorf("unknown query parameter %q: this page takes %s", textcap.Head(k, 64), strings.Join(allowed, ", "))
		}
		if len(q[k]) > 1 {
			return fmt.Errorf("query parameter %q is given %d times; give it once", k, len(q[k]))
		}
	}
	return nil
}

// nameRE is a Kubernetes object or namespace name (DNS subdomain, lower case).
var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// checkName validates a namespace, scan or schedule name from a path or query.
func checkName(field, v string) error {
	if !nameRE.MatchString(v) {
		return fmt.Errorf("%s %q is not a Kubernetes name (lower-case letters, digits, '-' and '.', at most 253 characters)", field, textcap.Head(v, 64))
	}
	return nil
}

// maxOrganisationName bounds an organisation name taken from a path.
// The history stores names cut to store.MaxNameBytes: every name it lists
// has a page.
const maxOrganisationName = store.MaxNameBytes

func checkOrganisation(v string) error {
	if v == "" || len(v) > maxOrganisationName || !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return fmt.Errorf("organisation %q is not a valid name (1 to %d bytes of text)", textcap.Head(v, 64), maxOrganisationName)
	}
	return nil
}

// datetime is a moment as the pages say it, in UTC to the minute.
func datetime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

var funcs = template.FuncMap{
	"fmtScore":   FormatScore,
	"ruleName":   RuleName,
	"change":     formatChange,
	"intChange":  formatIntChange,
	"date":       date,
	"datetime":   datetime,
	"iso":        iso,
	"orgURL":     OrganisationPath,
	"issueURL":   IssuePath,
	"scanURL":    scanURL,
	"spark":      sparkline,
	"add":        func(a, b int) int { return a + b },
	"dict":       dict,
	"plural":     Plural,
	"kindName":   KindName,
	"kindMeans":  KindMeaning,
	"eventWords": EventWords,
	// unstableReasons are the baseline comparison's words for rows it does
	// not compare, which the history follows too (diff.Compared).
	"unstableReasons": diff.UnstableReasons,
	"setAsideWhy":     func() string { return report.TimingDependentWhy },
}

// RuleName is how a rule reads to people: axe's rule id, or for CWAC's own
// audits (whose rule is the audit) what their issues are.
func RuleName(rule string) string {
	if d := results.RuleDescription(rule); d != "" {
		return d
	}
	return rule
}

// Plural is "1 organisation", "3 organisations", for any integer count
// the pages (and the digests) show (int, or a store's int64).
func Plural(n any, one, many string) (string, error) {
	switch x := n.(type) {
	case int:
		return Count(int64(x), one, many), nil
	case int64:
		return Count(x, one, many), nil
	case int32:
		return Count(int64(x), one, many), nil
	}
	return "", fmt.Errorf("plural: %T is not a count", n)
}

// Count is n with the noun's singular or plural.
func Count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// dict builds a map from key, value pairs: a sub-template's arguments.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// date formats a time (or a *time.Time) as a day.
func date(t any) string {
	switch t := t.(type) {
	case time.Time:
		return t.UTC().Format("2006-01-02")
	case *time.Time:
		if t != nil {
			return t.UTC().Format("2006-01-02")
		}
	}
	return ""
}

// iso formats a time (or a *time.Time) for a datetime attribute.
func iso(t any) string {
	switch t := t.(type) {
	case time.Time:
		return t.UTC().Format(time.RFC3339)
	case *time.Time:
		if t != nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// OrganisationPath is the dashboard's path of an organisation's page: the
// pages and the digests link it.
func OrganisationPath(ns, org string) string {
	return "/organisations/" + url.PathEscape(ns) + "/" + url.PathEscape(org)
}

// IssuePath is the dashboard's path of an issue (its id, the one issue
// identity) of a namespace.
func IssuePath(ns, id string) string {
	return "/issues/" + url.PathEscape(ns) + "/" + url.PathEscape(id)
}

// scanURL links a scan named "namespace/name", or "" when no scan page can
// answer for it: a scan imported from a hand-run results directory is
// named after the directory (2026-11-21_23-18-23_audit), which no CwacScan
// can be named, and its page would only refuse the name (the "scanref"
// template then shows the name without a link).
func scanURL(ref string) string {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || !nameRE.MatchString(ns) || !nameRE.MatchString(name) {
		return ""
	}
	return "/scans/" + url.PathEscape(ns) + "/" + url.PathEscape(name)
}

// FormatScore is a score as the pages (and the digests) show it: one
// decimal, or "no score".
func FormatScore(s *float64) string {
	if s == nil {
		return "no score"
	}
	return fmt.Sprintf("%.1f", *s)
}

func formatChange(c *float64) string {
	switch {
	case c == nil:
		return "not comparable"
	case *c > 0:
		return fmt.Sprintf("up %.1f", *c)
	case *c < 0:
		return fmt.Sprintf("down %.1f", -*c)
	}
	return "unchanged"
}

func formatIntChange(c *int64) string {
	switch {
	case c == nil:
		return "no previous scan"
	case *c > 0:
		return Count(*c, "more issue", "more issues")
	case *c < 0:
		return Count(-*c, "fewer issue", "fewer issues")
	}
	return "issues unchanged"
}
