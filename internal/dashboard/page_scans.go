package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// scansTitle is the scan list's title ("scans", navScans, names its template).
const scansTitle = "Scans"

// scansPerPage is the scan list's default rows per page.
const scansPerPage = 100

type scansFilter struct {
	Schedule, Phase, Namespace string
}

type scansPage struct {
	Filter     scansFilter
	Error      string
	ErrorField string
	Phases     []string
	Namespaces []string
	Scans      []ScanInfo
	Total      int
	Pager      pager
}

// scans is /scans: the list, filtered by schedule, phase and namespace.
func (h *Handler) scans(w http.ResponseWriter, r *http.Request, v *viewer) {
	whole := v.wholeNamespaces()
	if len(whole) == 0 {
		h.refuseScans(w, r, v, "the list of scans")
		return
	}
	q := r.URL.Query()
	d := scansPage{Phases: phases, Namespaces: whole,
		Filter: scansFilter{Schedule: q.Get(fieldSchedule), Phase: q.Get(fieldPhase), Namespace: q.Get(fieldNamespace)}}
	field, err := checkScansQuery(q, d.Filter, v)
	var p paging
	if err == nil {
		p, err = parsePaging(q, scansPerPage)
		field = fieldPage
	}
	if err != nil {
		// The form again, with the message beside the field it names.
		d.Error, d.ErrorField = err.Error(), field
		h.render(w, r, http.StatusBadRequest, navScans, page{Title: scansTitle, Nav: navScans, Viewer: v, Data: d})
		return
	}
	if !h.needScans(w, r, v) {
		return
	}
	namespaces := whole
	if d.Filter.Namespace != "" {
		namespaces = []string{d.Filter.Namespace}
	}
	all, err := h.opts.Scans.ListScans(r.Context(), namespaces)
	if err != nil {
		h.scansFailed(w, r, v, err)
		return
	}
	for _, s := range all {
		if (d.Filter.Schedule == "" || s.Schedule == d.Filter.Schedule) && (d.Filter.Phase == "" || s.Phase == d.Filter.Phase) {
			if d.Total >= p.Offset() && d.Total < p.Offset()+p.PerPage {
				d.Scans = append(d.Scans, s)
			}
			d.Total++
		}
	}
	if d.Pager, err = newPager("Pages of scans", navScans, "/scans", q, p, d.Total); err != nil {
		d.Error, d.ErrorField, d.Scans = err.Error(), fieldPage, nil
		h.render(w, r, http.StatusBadRequest, navScans, page{Title: scansTitle, Nav: navScans, Viewer: v, Data: d})
		return
	}
	h.render(w, r, http.StatusOK, navScans, page{Title: scansTitle, Nav: navScans, Viewer: v, Data: d})
}

// checkScansQuery validates the list's filters, naming the field at fault.
func checkScansQuery(q map[string][]string, f scansFilter, v *viewer) (string, error) {
	if err := checkQuery(q, fieldSchedule, fieldPhase, fieldNamespace, fieldPage, fieldPerPage); err != nil {
		return "", err
	}
	if f.Schedule != "" {
		if err := checkName(fieldSchedule, f.Schedule); err != nil {
			return fieldSchedule, err
		}
	}
	if f.Phase != "" && !slices.Contains(phases, f.Phase) {
		return fieldPhase, fmt.Errorf("phase %q is not one of %s", textcap.Head(f.Phase, 32), strings.Join(phases, ", "))
	}
	if f.Namespace != "" {
		if err := checkName(fieldNamespace, f.Namespace); err != nil {
			return fieldNamespace, err
		}
		if whole := v.wholeNamespaces(); !slices.Contains(whole, f.Namespace) {
			return fieldNamespace, fmt.Errorf("namespace %q is not one whose scans you may read (%s)", f.Namespace, strings.Join(whole, ", "))
		}
	}
	return "", nil
}

// needScans answers 503 when the dashboard has no scan source.
func (h *Handler) needScans(w http.ResponseWriter, r *http.Request, v *viewer) bool {
	if h.opts.Scans != nil {
		return true
	}
	h.fail(w, r, v, http.StatusServiceUnavailable, "Scans unavailable", "This server was started without access to the scans.")
	return false
}

// scansFailed answers a ScanSource's failure: 503, logged.
func (h *Handler) scansFailed(w http.ResponseWriter, r *http.Request, v *viewer, err error) {
	h.opts.Log.Error("dashboard: reading scans", "path", r.URL.Path, "err", err)
	h.fail(w, r, v, http.StatusServiceUnavailable, "Scans unavailable",
		"The scans could not be read just now (the Kubernetes API server or the results volume did not answer). Try again shortly.")
}
