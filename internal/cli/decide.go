package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
)

func newDecideCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a      mcpapi.DecideInput
		output string
	)
	cmd := &cobra.Command{
		Use:   "decide (--issue ID | --rule RULE --organisation ORG [--pages PREFIX]) --kind KIND --reason TEXT [--review-by DATE]",
		Short: "Record a decision about findings: a false positive, accepted until a review date, or won't fix (through the MCP server)",
		Long: `decide records a CwacIssueDecision in the MCP server's namespace
(--mcp-namespace, cwac-system by default), in your name, as cwac_decide and
the dashboard's form do: about one issue (--issue, an id from "kubectl cwac
history"; it covers the issue while its element stays as it is now), or a
rule on the organisation's pages under --pages, or on all of them. It needs
RBAC create on cwacissuedecisions there and read access to the
organisation; it applies once the operator has checked that you may make it
(kubectl get cwacdecision shows Applied). To keep decisions in Git, write
the CwacIssueDecision and kubectl apply it instead (docs/decisions.md).`,
		Example: `  kubectl cwac decide --issue 3f2a…c9 --kind FalsePositive --reason "decorative image, hidden from assistive technology"
  kubectl cwac decide --rule color-contrast --organisation "Ministry of Examples" \
    --pages https://examples.govt.nz/book --kind Accepted --review-by 2027-03-31 --reason "supplier's widget; fix due in March"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, outTable, outJSON); err != nil {
				return err
			}
			// The server checks again; checking here first refuses bad
			// flags before connecting, in the same words.
			req := decide.Request{IssueID: a.IssueID, Rule: a.Rule, Organisation: a.Organisation, Pages: a.Pages,
				Kind: a.Kind, Reason: a.Reason, ReviewBy: a.ReviewBy}
			if _, err := decide.Check(req, time.Now()); err != nil {
				return err
			}
			return historyCall(cmd, o, mf, "cwac_decide", a, output, func(w io.Writer, raw json.RawMessage) error {
				var out mcpapi.DecideOutput
				if err := json.Unmarshal(raw, &out); err != nil {
					return fmt.Errorf("the MCP server's cwac_decide output: %w", err)
				}
				_, err := fmt.Fprintf(w, "%s (%s, decided by %s)\n%s\n", out.Decision, out.Organisation, out.DecidedBy, out.Message)
				return err
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&a.IssueID, "issue", "", "the issue's id (32 hexadecimal digits, from kubectl cwac history); or give --rule")
	fl.StringVar(&a.Rule, "rule", "", "an axe rule id (color-contrast) or a CWAC audit's name; or give --issue")
	fl.StringVar(&a.Organisation, "organisation", "", "with --rule: the organisation (an issue names its own)")
	fl.StringVar(&a.Pages, "pages", "", "with --rule: only the pages under this http(s) address, at a path boundary")
	fl.StringVar(&a.Kind, "kind", "", "FalsePositive, Accepted or WontFix")
	fl.StringVar(&a.Reason, "reason", "", "why, for whoever reviews the decision (at most 2000 characters)")
	fl.StringVar(&a.ReviewBy, "review-by", "", "when the decision ends (YYYY-MM-DD, or an RFC 3339 time); required for Accepted")
	fl.StringVarP(&output, "output", "o", outTable, "table or json")
	return cmd
}
