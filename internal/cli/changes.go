package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
)

func newChangesCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a      mcpapi.ScanChangesInput
		output string
	)
	cmd := &cobra.Command{
		Use:   "changes SCAN",
		Short: "What a recorded scan changed in the issue history: issues opened, fixed and reopened",
		Long: `changes lists what one scan the issue history recorded changed: each issue it
opened (first saw), fixed, found on no page it visited (page not scanned) or
reopened, with the issue's fingerprint (its identity across scans) and its
state now. Page with --after, giving the NEXT the previous page printed.
-o json prints the MCP server's answer, for automation that keeps one
ticket per issue (docs/issue-trackers.md).`,
		Example: `  kubectl cwac history changes weekly-29404320
  kubectl cwac history changes weekly-29404320 --limit 500 --after 1234 -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outTable, outJSON); err != nil {
				return err
			}
			a.ScanID = args[0]
			if err := checkChangesArgs(a); err != nil {
				return err
			}
			return historyCall(cmd, o, mf, "cwac_scan_changes", a, output, func(w io.Writer, raw json.RawMessage) error {
				var out mcpapi.ScanChangesOutput
				if err := json.Unmarshal(raw, &out); err != nil {
					return fmt.Errorf("the MCP server's cwac_scan_changes output: %w", err)
				}
				return writeScanChanges(w, &out)
			})
		},
	}
	cmd.Flags().Int64Var(&a.After, "after", 0, "continue after this issue: the NEXT the previous page printed")
	cmd.Flags().IntVar(&a.Limit, "limit", 0, "most changes (default: the server's, 50; at most 500)")
	cmd.Flags().StringVarP(&output, "output", "o", outTable, "table or json")
	return cmd
}

func checkChangesArgs(a mcpapi.ScanChangesInput) error {
	if a.Limit < 0 {
		return fmt.Errorf("--limit %d: may not be negative", a.Limit)
	}
	if a.After < 0 {
		return fmt.Errorf("--after %d: may not be negative", a.After)
	}
	return nil
}

func writeScanChanges(w io.Writer, out *mcpapi.ScanChangesOutput) error {
	if out.Returned == 0 {
		fprintf(w, "No changes to issues by scan %s in namespace %s here.\n", out.Scan, out.Namespace)
	} else {
		fprintf(w, "%d changes to issues by scan %s in namespace %s:\n", out.Returned, out.Scan, out.Namespace)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fprintln(tw, "CHANGE\tFINGERPRINT\tSTATE NOW\tORGANISATION\tPAGE\tWIDTH\tRULE\tIMPACT\tDECISION")
	for _, c := range out.Changes {
		is := c.Issue
		decision := "-"
		if is.Decision != nil {
			decision = is.Decision.Kind + " (" + is.Decision.Decision + ")"
		}
		fprintln(tw, strings.Join([]string{
			tableCell(c.Change), is.Fingerprint[:min(len(is.Fingerprint), 12)], tableCell(is.State), tableCell(is.Organisation),
			tableCell(is.Page), strconv.Itoa(is.ViewportWidth), tableCell(is.Rule), tableCell(is.Impact), tableCell(decision),
		}, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if out.Next != 0 {
		fprintf(w, "More: --after %d\n", out.Next)
	}
	return nil
}
