package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a11y-dev/cwac-operator/internal/results"
)

// Prompts for the jobs people ask an assistant to do with a scan. Each one
// is instructions that name the tools to call; the assistant fetches the
// figures itself, so a prompt never carries stale numbers.

const maxPromptOrganisation = 256

// addPrompts registers the prompts.
func (s *Server) addPrompts() {
	scanArg := &mcp.PromptArgument{Name: "scan_id", Description: "the scan's ID, from cwac_scan or cwac_list_scans", Required: true}
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:  "triage_scan",
		Title: "Triage a scan's worst accessibility problems",
		Description: "Group a finished scan's most severe issues by WCAG 2.2 success criterion, " +
			"with the pages and elements affected and how to fix them.",
		Arguments: []*mcp.PromptArgument{scanArg},
	}, s.authorizedPrompt(s.triagePrompt))
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        "explain_changes",
		Title:       "Explain what changed since the last scan",
		Description: "Say which issues are new, which were fixed and which remain, against the scan's baseline or another scan.",
		Arguments: []*mcp.PromptArgument{scanArg, {
			Name: "baseline_id", Description: "the earlier scan to compare with (default: the scan's own baseline)",
		}},
	}, s.authorizedPrompt(s.changesPrompt))
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        "organisation_summary",
		Title:       "Draft a summary for an organisation's web team",
		Description: "A short, plain-language summary of one organisation's results, with what to fix first.",
		Arguments: []*mcp.PromptArgument{scanArg, {
			Name: "organisation", Description: "the organisation as the scan names it (its sites' organisation)", Required: true,
		}},
	}, s.authorizedPrompt(s.organisationPrompt))
}

// promptGetName is the audit log's name for prompt reads, and the key of
// the caller verb they need.
const promptGetName = "prompts/get"

// authorizedPrompt answers a prompt only to a caller who may read
// something of the namespace (get on cwacscans, or an organisation grant),
// as the tools it names are, with the tools' audit line. A prompt carries
// no figures, but it names a scan or an organisation to read.
func (s *Server) authorizedPrompt(h mcp.PromptHandler) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		var res *mcp.GetPromptResult
		err := s.invoke(ctx, &tool{name: promptGetName}, callFromExtra(req.Extra), s.cfg.CallTimeout, truncate(req.Params.Name, 64),
			func(ctx context.Context, _ *callInfo) error {
				var err error
				res, err = h(ctx, req)
				return err
			})
		return res, err
	}
}

// checkPromptText refuses a prompt argument that would reach the prompt's
// text as anything but plain words on one line: invalid UTF-8, control
// characters (NUL, ESC, tab, line breaks, U+0085), format characters
// (U+202E and the other bidirectional controls, zero-width ones), line and
// paragraph separators (U+2028, U+2029), the quotes that delimit it, and
// more than maxBytes bytes. Such text could end the quoted argument, start a
// line of its own, or show a reader other words than the model reads.
func checkPromptText(s string, maxBytes int) error {
	if len(s) > maxBytes {
		return fmt.Errorf("must be at most %d bytes", maxBytes)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("is not UTF-8")
	}
	for _, r := range s {
		switch {
		case unicode.IsControl(r), unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			return fmt.Errorf("may not hold the control or formatting character %U: plain text on one line only", r)
		case strings.ContainsRune("\"`", r):
			return fmt.Errorf("may not hold quotes (%q)", r)
		}
	}
	return nil
}

func promptScanID(req *mcp.GetPromptRequest) (string, error) {
	id := req.Params.Arguments["scan_id"]
	if id == "" {
		return "", fmt.Errorf("scan_id is required")
	}
	if !scanIDRE.MatchString(id) {
		return "", fmt.Errorf("scan_id %q is not a scan ID (a Kubernetes object name)", truncate(id, 64))
	}
	return id, nil
}

func promptResult(description, text string, links ...mcp.Content) *mcp.GetPromptResult {
	msgs := make([]*mcp.PromptMessage, 0, 1+len(links))
	msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: text}})
	for _, l := range links {
		msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: l})
	}
	return &mcp.GetPromptResult{Description: description, Messages: msgs}
}

func (s *Server) summaryLink(scan string) mcp.Content {
	return &mcp.ResourceLink{URI: resourceURI(s.cfg.Namespace, scan, results.SummaryFile), Name: results.SummaryFile, MIMEType: mimeJSON}
}

func (s *Server) triagePrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	id, err := promptScanID(req)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Triage the accessibility problems CWAC found in scan %[1]s.

1. Call cwac_scan_status with scan_id %[1]s. If it is not complete, say so and stop.
2. Call cwac_get_summary with scan_id %[1]s for the totals, the issues by impact and the top rules.
3. Call cwac_get_results with scan_id %[1]s, audit_type axe_core_audit, impact critical, limit 100; then the same with impact serious.
4. Group the issues by WCAG 2.2 success criterion, read from each row's tags (wcag111 is 1.1.1 Non-text
   Content, level A; wcag143 is 1.4.3 Contrast (Minimum), AA; rows tagged only best-practice are not WCAG
   failures — list them apart). For each criterion give: its number, name and level; how many issues and on
   how many pages; two or three example elements (the target and a short piece of the html); and how to fix
   it, in plain words, with the rule's help link (helpUrl).
5. Count an element found at several viewport widths once, and say so.
6. Finish with the five fixes that would remove the most critical and serious issues, most first.

Quote figures from the tools' answers only; do not estimate.`, id)
	return promptResult("Triage of scan "+id, text, s.summaryLink(id)), nil
}

func (s *Server) changesPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	id, err := promptScanID(req)
	if err != nil {
		return nil, err
	}
	against := "its baseline (the scan it names in spec.baseline)"
	args := "scan_id " + id
	if b := req.Params.Arguments["baseline_id"]; b != "" {
		if !scanIDRE.MatchString(b) {
			return nil, fmt.Errorf("baseline_id %q is not a scan ID (a Kubernetes object name)", truncate(b, 64))
		}
		against = "scan " + b
		args += " and baseline_id " + b
	}
	text := fmt.Sprintf(`Explain what changed in the accessibility of the sites scanned by scan %[1]s since %[2]s.

1. Call cwac_compare_scans with %[3]s and change new: these issues appeared. Then with change fixed: these
   were resolved. Read the counts (new, fixed, unchanged, unstable, by impact and by organisation) from the
   answer.
2. Lead with the verdict in one sentence: better, worse or about the same, with the numbers of new and fixed issues.
3. List the new critical and serious issues first, grouped by page and rule, with the element (target) and the
   rule's help link. Issues on pages that were added are new pages, not regressions: say so separately; issues
   on removed pages are not fixes: say so too.
4. Mention the unstable issues only as a count: CWAC reports those rows only sometimes, so they are neither new nor fixed.
5. Per organisation, one line each: new, fixed, unchanged.

If the comparison cannot be made (a scan not finished, results gone), say why, using the tool's error.`, id, against, args)
	return promptResult("What changed in scan "+id, text), nil
}

func (s *Server) organisationPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	id, err := promptScanID(req)
	if err != nil {
		return nil, err
	}
	org := req.Params.Arguments["organisation"]
	if org == "" {
		return nil, fmt.Errorf("organisation is required")
	}
	if err := checkPromptText(org, maxPromptOrganisation); err != nil {
		return nil, fmt.Errorf("organisation %w", err)
	}
	text := fmt.Sprintf(`Draft a short summary of scan %[1]s's results for the web team of the organisation named "%[2]s".

1. Call cwac_get_summary with scan_id %[1]s, and cwac_generate_report with scan_id %[1]s (its leaderboard ranks the organisations).
2. Call cwac_get_results with scan_id %[1]s and issues_only true, limit 200, and keep the rows whose organisation is exactly "%[2]s".
3. Write for people who build and edit the sites, not accessibility specialists: two or three sentences on
   where they stand (their score and rank on the leaderboard, pages scanned, issues by impact), then the three
   problems to fix first, each with the pages affected, what to change and the rule's help link. An organisation
   whose scan was not complete (partial, blocked or unreachable) is not ranked, and a blocked or unreachable one
   has no score: say so with the leaderboard's completeness_reason instead of a rank or score, never as a clean result.
4. Keep it under 300 words, plain language, no jargon without an explanation. Quote only figures the tools gave.`, id, org)
	return promptResult(fmt.Sprintf("Summary of scan %s for %s", id, org), text, s.summaryLink(id)), nil
}
