package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/websession"
)

// checkAccessOptions refuses public namespaces the dashboard does not
// serve (a typo would otherwise publish nothing, silently).
func (o Options) checkAccessOptions() error {
	for _, ns := range o.PublicNamespaces {
		if !slices.Contains(o.Namespaces, ns) {
			return fmt.Errorf("dashboard: public namespace %q is not one the dashboard serves (%s)", ns, strings.Join(o.Namespaces, ", "))
		}
	}
	return nil
}

// handle mounts a page that needs a viewer: identified, and allowed to
// read at least one namespace.
func (h *Handler) handle(pattern string, fn func(http.ResponseWriter, *http.Request, *viewer)) {
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if v := h.admit(w, r, false); v != nil {
			fn(w, r, v)
		}
	})
}

// handlePublic mounts a page anyone may read for the public namespaces
// (Options.PublicNamespaces: the leaderboard and the exports); signed-in
// viewers read those and their own.
func (h *Handler) handlePublic(pattern string, fn func(http.ResponseWriter, *http.Request, *viewer)) {
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if v := h.admit(w, r, true); v != nil {
			fn(w, r, v)
		}
	})
}

// identify is who a request is: a bearer token when the request carries
// an Authorization header (scripts), else the session cookie when
// sign-in is configured, else whatever the Access accepts.
func (h *Handler) identify(w http.ResponseWriter, r *http.Request) (Principal, error) {
	if h.opts.SignIn == nil || r.Header.Get("Authorization") != "" {
		return h.opts.Access.Identify(r)
	}
	p, stale, err := h.opts.SignIn.session(r)
	if stale {
		http.SetCookie(w, websession.Clear(websession.SessionCookie))
	}
	return p, err
}

// admit decides who a request is and which namespaces it may read; when
// it may read none, it answers the request (sign in, 401, 403 or 503)
// and returns nil.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, public bool) *viewer {
	p, err := h.identify(w, r)
	if errors.Is(err, ErrUnauthenticated) {
		if public && len(h.opts.PublicNamespaces) > 0 {
			v := &viewer{Principal: Principal{Name: "anonymous (public view)", Anonymous: true, CanSignIn: h.opts.SignIn != nil},
				reach: map[string]orgaccess.Reach{}, publicOnly: true}
			for _, ns := range h.opts.PublicNamespaces {
				v.Namespaces, v.reach[ns] = append(v.Namespaces, ns), orgaccess.Whole()
			}
			return v
		}
		h.unauthenticated(w, r, err)
		return nil
	}
	if err != nil {
		h.opts.Log.Error("dashboard: identifying a request", "err", err)
		h.fail(w, r, nil, http.StatusServiceUnavailable, "Sign-in unavailable",
			"Your credentials could not be checked just now (the Kubernetes API server did not answer). Try again shortly.")
		return nil
	}
	v := &viewer{Principal: p, reach: map[string]orgaccess.Reach{}}
	for _, ns := range h.opts.Namespaces {
		reach := orgaccess.Whole()
		if !public || !slices.Contains(h.opts.PublicNamespaces, ns) {
			if reach, err = h.opts.Access.Reach(r.Context(), p, ns); err != nil {
				h.opts.Log.Error("dashboard: checking permissions", fieldNamespace, ns, "err", err)
				h.fail(w, r, nil, http.StatusServiceUnavailable, "Permissions unavailable",
					"Your permissions could not be checked just now (the Kubernetes API server did not answer). Try again shortly.")
				return nil
			}
		}
		if reach.Any() {
			v.Namespaces, v.reach[ns] = append(v.Namespaces, ns), reach
		}
	}
	if len(v.Namespaces) == 0 {
		h.refused(r, v, "may read no namespace the dashboard serves")
		h.fail(w, r, v, http.StatusForbidden, "No access",
			fmt.Sprintf("%s may not get CwacScans in %s, and no CwacOrganisationGrant there names them or their groups, "+
				"so there is nothing here to show.", p.Name, strings.Join(h.opts.Namespaces, ", ")))
		return nil
	}
	return v
}

// unauthenticated answers a request without credentials: a browser
// asking for a page is sent to sign in (and back here after); exports,
// downloads, anything but GET and a refused bearer token are answered
// 401, so a script gets an error rather than the provider's login page.
func (h *Handler) unauthenticated(w http.ResponseWriter, r *http.Request, err error) {
	page := !strings.HasPrefix(r.URL.Path, "/export/") && !strings.Contains(r.URL.Path, "/files/")
	browser := r.Header.Get("Authorization") == "" // a refused token is a script's: 401
	if h.opts.SignIn != nil && page && browser && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		http.Redirect(w, r, signInPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	h.refused(r, nil, "not signed in: "+err.Error())
	w.Header().Set("WWW-Authenticate", `Bearer realm="cwac-operator"`)
	how := "This dashboard needs a Kubernetes bearer token (Authorization: Bearer …, e.g. from kubectl create token) " +
		"for a user who may get CwacScans. "
	if h.opts.SignIn != nil {
		how = "Sign in on the dashboard's home page, or send a Kubernetes bearer token (Authorization: Bearer …) " +
			"for a user who may get CwacScans. "
	}
	h.fail(w, r, nil, http.StatusUnauthorized, "Sign-in needed", how+reason(err))
}

// refused writes the audit trail's record of a refused request: who (the
// viewer, or nobody signed in), what they asked for and why, in the
// server's log as the MCP server's refusals are ("audit": true); the time
// is the log line's. The page the viewer gets may say less (an
// organisation outside their grants reads as not found).
func (h *Handler) refused(r *http.Request, v *viewer, why string) {
	who := "unauthenticated"
	if v != nil {
		who = v.Name
	}
	h.opts.Log.Info("dashboard request refused", "audit", true, "who", textcap.Head(who, 256), "method", r.Method,
		"path", textcap.Head(r.URL.Path, 256), "reason", textcap.Head(why, 512))
}
