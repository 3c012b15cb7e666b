package mcpserver

import (
	"context"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
)

const getTemplatesDescription = "Get a scan's template issues (fix once): axe-core issues found with the same rule and element on 2 or more pages " +
	"of a site, most likely in a template the pages share, with the pages and the instances (CWAC's num_issues) of each, " +
	"most pages first; per organisation. Read from axe_core_audit.csv (CWAC's axe_core_audit_template_aware.csv groups)."

func init() { defineTool("cwac_get_templates", getTemplatesDescription, true, (*Server).getTemplates) }

// getTemplates answers cwac_get_templates.
func (s *Server) getTemplates(ctx context.Context, call *callInfo, in mcpapi.SignalsInput) (mcpapi.TemplatesOutput, error) {
	sig, err := s.readSignals(ctx, call, in, results.AxeCoreAuditFile)
	if err != nil {
		return mcpapi.TemplatesOutput{}, err
	}
	t := sig.Templates
	if t == nil {
		return mcpapi.TemplatesOutput{}, noSignalFile(results.AxeCoreAuditFile, "axe_core_audit")
	}
	issues := ofOrganisation(t.Issues, in.Organisation, func(i *results.TemplateIssue) string { return i.Organisation })
	from, to, page := s.signalsPage(in, len(issues), func(i int) int { return itemJSONSize(issues[i]) })
	out := mcpapi.TemplatesOutput{
		SignalsPage: page, TemplateIssues: t.TemplateIssues, Instances: t.Instances,
		ByOrganisation: ofOrganisation(t.ByOrganisation, in.Organisation, func(o *results.OrganisationTemplates) string { return o.Organisation }),
		Issues:         append([]results.TemplateIssue{}, issues[from:to]...),
	}
	out.ByOrganisation = firstOrganisations(out.ByOrganisation, &out.Note)
	if t.UngroupedInstances > 0 {
		out.Note = joinNotes(out.Note, "Some issues were past the groups kept and are in no template issue.")
	}
	return out, nil
}
