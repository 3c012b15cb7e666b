package mcpserver

import (
	"context"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

const getPageTitlesDescription = "Get a scan's page title problems (WCAG 2.4.2 Page Titled), from CWAC's title_audit.csv: " +
	"titles shared by several pages of one site (most pages first), then pages without a title " +
	"(missing, empty or blank: CWAC records document.title, the same for all three); counts per organisation."

// Problems of cwac_get_page_titles' findings.
const (
	titleDuplicate = "duplicate"
	titleMissing   = "missing_or_empty"
)

func init() {
	defineTool("cwac_get_page_titles", getPageTitlesDescription, true, (*Server).getPageTitles)
}

// getPageTitles answers cwac_get_page_titles.
func (s *Server) getPageTitles(ctx context.Context, call *callInfo, in mcpapi.SignalsInput) (mcpapi.PageTitlesOutput, error) {
	sig, err := s.readSignals(ctx, call, in, results.TitleAuditFile)
	if err != nil {
		return mcpapi.PageTitlesOutput{}, err
	}
	t := sig.Titles
	if t == nil {
		return mcpapi.PageTitlesOutput{}, noSignalFile(results.TitleAuditFile, "title_audit")
	}
	findings := make([]mcpapi.TitleFinding, 0, len(t.Duplicates)+len(t.Missing))
	for _, d := range t.Duplicates {
		findings = append(findings, mcpapi.TitleFinding{
			Problem: titleDuplicate, Organisation: d.Organisation, BaseURL: d.BaseURL, Title: d.Title, Pages: d.Pages, URLs: d.URLs,
		})
	}
	for _, m := range t.Missing {
		findings = append(findings, mcpapi.TitleFinding{Problem: titleMissing, Organisation: m.Organisation, BaseURL: m.BaseURL, Pages: 1, URLs: []string{m.URL}})
	}
	findings = ofOrganisation(findings, in.Organisation, func(f *mcpapi.TitleFinding) string { return f.Organisation })
	from, to, page := s.signalsPage(in, len(findings), func(i int) int { return itemJSONSize(findings[i]) })
	out := mcpapi.PageTitlesOutput{
		SignalsPage: page, Pages: t.Pages, MissingOrEmpty: t.MissingOrEmpty, DuplicateTitles: t.DuplicateTitles,
		PagesWithDuplicateTitle: t.PagesWithDuplicateTitle,
		ByOrganisation:          ofOrganisation(t.ByOrganisation, in.Organisation, func(o *results.OrganisationTitles) string { return o.Organisation }),
		Findings:                append([]mcpapi.TitleFinding{}, findings[from:to]...),
	}
	out.ByOrganisation = firstOrganisations(out.ByOrganisation, &out.Note)
	out.Note = joinNotes(out.Note, listCutNote(int64(len(t.Missing)), t.MissingOrEmpty, "pages without a title"))
	if t.UntrackedTitles > 0 {
		out.Note = joinNotes(out.Note, "Some pages' titles were past the titles kept and were not compared with the others.")
	}
	return out, nil
}
