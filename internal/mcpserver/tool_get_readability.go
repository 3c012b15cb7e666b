package mcpserver

import (
	"context"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

const getReadabilityDescription = "Get a scan's reading levels (information, not issues), from CWAC's language_audit.csv: " +
	"per organisation the median, mean and highest Flesch-Kincaid and SMOG grades of its measured pages, " +
	"and per page its grades, hardest first. CWAC measures only pages that read as articles."

func init() {
	defineTool("cwac_get_readability", getReadabilityDescription, true, (*Server).getReadability)
}

// getReadability answers cwac_get_readability.
func (s *Server) getReadability(ctx context.Context, call *callInfo, in mcpapi.SignalsInput) (mcpapi.ReadabilityOutput, error) {
	sig, err := s.readSignals(ctx, call, in, results.LanguageAuditFile)
	if err != nil {
		return mcpapi.ReadabilityOutput{}, err
	}
	r := sig.Readability
	if r == nil {
		return mcpapi.ReadabilityOutput{}, noSignalFile(results.LanguageAuditFile, "language_audit")
	}
	list := ofOrganisation(r.List, in.Organisation, func(p *results.PageReadability) string { return p.Organisation })
	from, to, page := s.signalsPage(in, len(list), func(i int) int { return itemJSONSize(list[i]) })
	out := mcpapi.ReadabilityOutput{
		SignalsPage: page, Pages: r.Pages,
		ByOrganisation: ofOrganisation(r.ByOrganisation, in.Organisation, func(o *results.OrganisationReadability) string { return o.Organisation }),
		List:           append([]results.PageReadability{}, list[from:to]...),
	}
	out.ByOrganisation = firstOrganisations(out.ByOrganisation, &out.Note)
	out.Note = joinNotes(out.Note, listCutNote(int64(len(r.List)), r.Pages, "measured pages"))
	return out, nil
}
