package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// exportChangesBase is a scan's export of what it changed in the history.
const exportChangesBase = "changes"

// exportScanChanges serves /export/scans/{ns}/{name}/changes.csv and
// .json: what a recorded scan changed in the issue history (the issues it
// opened, fixed, found on no page it visited, reopened), each issue as it
// stands now with the decision covering it, for the teams who keep a
// ticket per issue (docs/issue-trackers.md). A viewer by organisation
// grant gets their organisations' changes only. It is read from the store
// a page of store.MaxLimit at a time and written as it is read.
func (h *Handler) exportScanChanges(w http.ResponseWriter, r *http.Request, v *viewer) {
	format, err := exportFormat(r, exportChangesBase)
	ns, name, perr := scanPath(r)
	if err == nil {
		err = perr
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	if v.publicOnly {
		h.unauthenticated(w, r, fmt.Errorf("%w: a scan's changes to issues are not part of the public view", ErrUnauthenticated))
		return
	}
	notFound := fmt.Sprintf("No scan %s recorded in the issue history of namespace %s that you may read.", name, ns)
	if !v.may(ns) {
		h.refused(r, v, "may not read namespace "+ns)
		h.fail(w, r, v, http.StatusNotFound, "Not found", notFound)
		return
	}
	st := h.needStore(w, r, v)
	if st == nil {
		return
	}
	filter := store.ChangesFilter{Namespaces: []string{ns}, Name: name, Limit: store.MaxLimit, Within: v.reachOf(ns).Within()}
	first, err := st.ScanChanges(r.Context(), filter)
	if err != nil {
		h.storeFailed(w, r, v, notFound, err)
		return
	}
	covering, err := h.coveringDecisions(r.Context(), ns)
	if err != nil {
		h.unavailable(w, r, v, err)
		return
	}
	pages := func(ctx context.Context, each func([]store.IssueChange) bool) {
		page := first
		for {
			if !each(page.Changes) || len(page.Changes) < store.MaxLimit {
				return
			}
			filter.After = page.LastID()
			if page, err = st.ScanChanges(ctx, filter); err != nil {
				// The answer has started: the log says why it ends early.
				h.opts.Log.Error("dashboard: exporting a scan's changes", fieldNamespace, ns, "scan", name, "err", err)
				return
			}
		}
	}
	if format == formatJSON {
		streamChangesJSON(w, r, ns, name, pages, covering)
		return
	}
	header := append([]string{"change", "organisation"}, issueExportHeader...)
	writeCSVExport(w, r, exportChangesBase+".csv", header, func(emit func([]string)) {
		pages(r.Context(), func(changes []store.IssueChange) bool {
			for _, c := range changes {
				emit(append([]string{c.Change, c.Issue.Organisation}, issueExportRow(c.Issue, covering)...))
			}
			return r.Context().Err() == nil
		})
	})
}

// streamChangesJSON writes changes.json a change at a time:
// {"namespace", "scan", "changes"}, each change as cwac_scan_changes
// answers it (mcpapi.ScanChange).
func streamChangesJSON(w http.ResponseWriter, r *http.Request, namespace, scan string,
	pages func(context.Context, func([]store.IssueChange) bool), covering func(store.Issue) *mcpapi.HistoryDecision,
) {
	bw := startJSONStream(w, r, exportChangesBase+".json")
	if bw == nil {
		return
	}
	defer func() { _ = bw.Flush() }() // a client that went away has nothing to be told
	ns, _ := json.Marshal(namespace)
	name, _ := json.Marshal(scan)
	_, _ = bw.WriteString(`{"namespace":` + string(ns) + `,"scan":` + string(name) + `,"changes":[`)
	enc := json.NewEncoder(bw)
	n := 0
	pages(r.Context(), func(changes []store.IssueChange) bool {
		for _, c := range changes {
			if n > 0 {
				_, _ = bw.WriteString(",")
			}
			change := mcpapi.ScanChange{Change: c.Change, Issue: mcpapi.IssueOf(c.Issue)}
			change.Issue.Decision = covering(c.Issue)
			_ = enc.Encode(change)
			n++
		}
		return r.Context().Err() == nil
	})
	_, _ = bw.WriteString("]}\n")
}
