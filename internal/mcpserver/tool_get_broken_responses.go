package mcpserver

import (
	"context"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

const getBrokenResponsesDescription = "Get the broken links and error responses a scan's crawl met (CWAC's unexpected_response_codes.csv): " +
	"each address, its HTTP status and the page that linked to it, by organisation; counts by status and organisation. " +
	"CWAC does not audit these pages."

func init() {
	defineTool("cwac_get_broken_responses", getBrokenResponsesDescription, true, (*Server).getBrokenResponses)
}

// getBrokenResponses answers cwac_get_broken_responses.
func (s *Server) getBrokenResponses(ctx context.Context, call *callInfo, in mcpapi.SignalsInput) (mcpapi.BrokenResponsesOutput, error) {
	// audit_log.csv and pages_scanned.csv name each base URL's organisation.
	sig, err := s.readSignals(ctx, call, in, results.UnexpectedCodeFile, results.AuditLogFile, results.PagesScannedFile)
	if err != nil {
		return mcpapi.BrokenResponsesOutput{}, err
	}
	r := sig.Responses
	if r == nil {
		// CWAC writes the file only once it meets such a response.
		r = &results.ResponseSignals{ByStatus: map[string]int64{}, ByOrganisation: []results.OrganisationResponses{}, List: []results.BrokenResponse{}}
	}
	list := ofOrganisation(r.List, in.Organisation, func(b *results.BrokenResponse) string { return b.Organisation })
	from, to, page := s.signalsPage(in, len(list), func(i int) int { return itemJSONSize(list[i]) })
	out := mcpapi.BrokenResponsesOutput{
		SignalsPage: page, Responses: r.Responses, ByStatus: r.ByStatus,
		ByOrganisation: ofOrganisation(r.ByOrganisation, in.Organisation, func(o *results.OrganisationResponses) string { return o.Organisation }),
		List:           append([]results.BrokenResponse{}, list[from:to]...),
	}
	out.ByOrganisation = firstOrganisations(out.ByOrganisation, &out.Note)
	out.Note = joinNotes(out.Note, listCutNote(int64(len(r.List)), r.Responses, "responses"))
	return out, nil
}
