package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// The exports of one organisation: its trend, and its issues.
const (
	exportTrendBase  = "history-trend"
	exportIssuesBase = "issues"
)

// exportOrganisation serves /export/organisations/{ns}/{org}/{file}: the
// trend (history-trend.csv, .json) or the issues (issues.csv, .json).
func (h *Handler) exportOrganisation(w http.ResponseWriter, r *http.Request, v *viewer) {
	if strings.HasPrefix(r.PathValue("file"), exportIssuesBase+".") {
		h.exportIssues(w, r, v)
		return
	}
	h.exportTrend(w, r, v)
}

// maxIssuesExport bounds one issues export (as deep as the history's
// paging goes).
const maxIssuesExport = store.MaxOffset

// exportIssues is an organisation's every issue the history holds, open
// and fixed, oldest first (the order they were first seen): the list a
// web team works from, with each issue's page, rule, element and WCAG
// criteria. It is read from the store a page of store.MaxLimit at a time
// and written as it is read, up to maxIssuesExport issues. A public
// namespace's visitors read its leaderboard and trends, not its issues:
// they are asked to sign in.
func (h *Handler) exportIssues(w http.ResponseWriter, r *http.Request, v *viewer) {
	format, err := exportFormat(r, exportIssuesBase)
	if err == nil && r.URL.Query().Has(fieldSchedule) {
		err = fmt.Errorf("the issues export takes no %s: an issue is followed across every schedule's scans", fieldSchedule)
	}
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	if v.publicOnly {
		h.unauthenticated(w, r, fmt.Errorf("%w: an organisation's issues are not part of the public view", ErrUnauthenticated))
		return
	}
	ns, org, _, st := h.organisationParams(w, r, v)
	if st == nil {
		return
	}
	filter := store.IssueFilter{Namespaces: []string{ns}, Organisation: org, Limit: store.MaxLimit, Within: v.reachOf(ns).Within()}
	first, err := st.IssueHistory(r.Context(), filter)
	if err != nil {
		h.storeFailed(w, r, v, store.NoOrganisation(ns, org)+".", err)
		return
	}
	covering, err := h.coveringDecisions(r.Context(), ns)
	if err != nil {
		h.unavailable(w, r, v, err)
		return
	}
	// pages yields the issues page by page, from the first already read,
	// each page after the last one's issue (no offset to step over again).
	pages := func(ctx context.Context, each func([]store.Issue) bool) {
		page, read := first, 0
		for {
			read += len(page.Issues)
			if !each(page.Issues) || len(page.Issues) < store.MaxLimit || read >= maxIssuesExport {
				return
			}
			filter.AfterID = page.LastID
			if page, err = st.IssueHistory(ctx, filter); err != nil {
				// The answer has started: the log says why it ends early.
				h.opts.Log.Error("dashboard: exporting issues", fieldNamespace, ns, "organisation", org, "err", err)
				return
			}
		}
	}
	if format == formatJSON {
		streamIssuesJSON(w, r, ns, org, pages, covering)
		return
	}
	writeCSVExport(w, r, exportIssuesBase+".csv", issueExportHeader, func(emit func([]string)) {
		pages(r.Context(), func(issues []store.Issue) bool {
			for _, is := range issues {
				emit(issueExportRow(is, covering))
			}
			return true
		})
	})
}

// issueExportHeader are the columns of an issue in the CSV exports: the
// organisation's issues, and (after the change and the organisation) a
// scan's changes.
var issueExportHeader = []string{"fingerprint", "state", "page", "viewport_width", "audit", "rule", "impact", "wcag", "target", "element_html",
	"help_url", "first_seen_scan", "first_seen_at", "last_seen_scan", "last_seen_at", "fixed_in_scan", "fixed_at", "fixed_reason",
	"reopened", "scans_present", "decision", "decision_kind"}

// issueExportRow is an issue's cells under issueExportHeader, with the
// applied decision covering it now.
func issueExportRow(is store.Issue, covering func(store.Issue) *mcpapi.HistoryDecision) []string {
	fixedAt := ""
	if is.FixedAt != nil {
		fixedAt = is.FixedAt.UTC().Format(time.RFC3339)
	}
	var decision, kind string
	if d := covering(is); d != nil {
		decision, kind = d.Decision, d.Kind
	}
	return []string{is.Fingerprint, is.State, is.Page, strconv.Itoa(is.ViewportWidth), is.Audit, is.Rule, is.Impact,
		strings.Join(is.WCAG, " "), is.Target, is.ElementHTML, is.HelpURL, is.FirstSeenScan, is.FirstSeenAt.UTC().Format(time.RFC3339),
		is.LastSeenScan, is.LastSeenAt.UTC().Format(time.RFC3339), is.FixedInScan, fixedAt, is.FixedReason,
		strconv.Itoa(is.Reopened), strconv.Itoa(is.ScansPresent), decision, kind}
}

// streamIssuesJSON writes issues.json an issue at a time:
// {"namespace", "organisation", "issues"}, the issues as
// cwac_issue_history answers them (mcpapi.HistoryIssue, with the decision
// covering each), oldest first.
func streamIssuesJSON(w http.ResponseWriter, r *http.Request, namespace, organisation string,
	pages func(context.Context, func([]store.Issue) bool), covering func(store.Issue) *mcpapi.HistoryDecision,
) {
	bw := startJSONStream(w, r, exportIssuesBase+".json")
	if bw == nil {
		return
	}
	defer func() { _ = bw.Flush() }() // a client that went away has nothing to be told
	ns, _ := json.Marshal(namespace)
	org, _ := json.Marshal(organisation)
	_, _ = bw.WriteString(`{"namespace":` + string(ns) + `,"organisation":` + string(org) + `,"issues":[`)
	enc := json.NewEncoder(bw)
	n := 0
	pages(r.Context(), func(issues []store.Issue) bool {
		for _, is := range issues {
			if n > 0 {
				_, _ = bw.WriteString(",")
			}
			issue := mcpapi.IssueOf(is)
			issue.Decision = covering(is)
			_ = enc.Encode(issue)
			n++
		}
		return r.Context().Err() == nil
	})
	_, _ = bw.WriteString("]}\n")
}

// coveringDecisions says which applied decision covers an issue of the
// namespace now, from one read of its decisions (none without a decision
// source).
func (h *Handler) coveringDecisions(ctx context.Context, ns string) (func(store.Issue) *mcpapi.HistoryDecision, error) {
	if h.opts.Decisions == nil {
		return func(store.Issue) *mcpapi.HistoryDecision { return nil }, nil
	}
	records, err := h.records(ctx, ns)
	if err != nil {
		return nil, err
	}
	return decide.Covering(records, ns, time.Now()), nil
}
