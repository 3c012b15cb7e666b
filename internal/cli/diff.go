package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

func newDiffCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a          mcpapi.CompareInput
		output     string
		countsOnly bool
	)
	cmd := &cobra.Command{
		Use:   "diff SCAN [--baseline OTHER]",
		Short: "Compare a scan with its baseline: new, fixed and unchanged counts and rows",
		Long: `diff shows how a scan's issues changed against its baseline (spec.baseline,
or --baseline): counts, and the rows of one change (--change). The rows come
from the MCP server, reached with your token; --counts-only reads the counts
the operator stored in the scan's status and needs only the API server.`,
		Args: exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outTable, outJSON); err != nil {
				return err
			}
			if err := checkCompareArgs(a); err != nil {
				return err
			}
			a.ScanID = args[0]
			s, err := o.newSession()
			if err != nil {
				return err
			}
			scan, err := s.getScan(cmd, args[0])
			if err != nil {
				return err
			}
			if countsOnly {
				if a.BaselineID != "" {
					return fmt.Errorf("--counts-only shows the status' comparison with spec.baseline; drop --baseline %s or --counts-only", a.BaselineID)
				}
				if scan.Status.Summary == nil || scan.Status.Summary.Diff == nil {
					return fmt.Errorf("scan %s has no comparison in its status (no spec.baseline, or not finished, "+
						"or the baseline had no results); see its BaselineCompared condition", scan.Name)
				}
				if output == outJSON {
					return writeStructured(o.docOut(), outJSON, scan.Status.Summary.Diff)
				}
				d := scan.Status.Summary.Diff
				fprintf(o.out(), "%s compared with %s: %d new, %d fixed, %d unchanged, %d unstable\n", scan.Name, d.Baseline, d.New, d.Fixed, d.Unchanged, d.Unstable)
				return nil
			}
			if a.BaselineID == "" && scan.Spec.Baseline == "" {
				return fmt.Errorf("scan %s has no spec.baseline: name one with --baseline", scan.Name)
			}
			return withMCP(cmd.Context(), o, mf, s, func(conn *MCPConn, token string) error {
				raw, err := callTool(cmd.Context(), conn, token, "cwac_compare_scans", a)
				if err != nil {
					return err
				}
				if output == outJSON {
					return writeRawJSON(o.docOut(), raw)
				}
				var out mcpapi.CompareOutput
				if err := json.Unmarshal(raw, &out); err != nil {
					return fmt.Errorf("the MCP server's cwac_compare_scans output: %w", err)
				}
				return writeDiff(o.out(), &out)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&a.BaselineID, "baseline", "", "the earlier scan to compare with (default: the scan's spec.baseline)")
	fl.StringVar(&a.Change, "change", "", "which rows to list: new (default), fixed, unchanged or unstable")
	fl.StringVar(&a.Impact, "impact", "", "only rows of this axe impact: critical, serious, moderate or minor")
	fl.IntVar(&a.Limit, "limit", 0, "most rows (default: the server's, 50)")
	fl.IntVar(&a.Offset, "offset", 0, "matching rows to skip, for paging")
	fl.BoolVar(&countsOnly, "counts-only", false, "only the counts in the scan's status (no MCP server needed)")
	fl.StringVarP(&output, "output", "o", outTable, "table or json")
	return cmd
}

func checkCompareArgs(a mcpapi.CompareInput) error {
	if a.Change != "" && !slices.Contains(changeNames, a.Change) {
		return fmt.Errorf("--change %q: must be one of %v", textcap.Head(a.Change, 40), changeNames)
	}
	if a.Impact != "" && !slices.Contains(impactNames, a.Impact) {
		return fmt.Errorf("--impact %q: must be one of %v", textcap.Head(a.Impact, 40), impactNames)
	}
	if a.Limit < 0 {
		return fmt.Errorf("--limit %d: may not be negative", a.Limit)
	}
	if a.Offset < 0 {
		return fmt.Errorf("--offset %d: may not be negative", a.Offset)
	}
	return nil
}

func writeDiff(w io.Writer, out *mcpapi.CompareOutput) error {
	c := out.Counts
	fprintf(w, "%s compared with %s (%s): %d new, %d fixed, %d unchanged, %d unstable\n",
		out.ScanID, out.BaselineID, out.Source, c.New, c.Fixed, c.Unchanged, c.Unstable)
	if len(c.NewByImpact) > 0 {
		fprintf(w, "New by impact: %s\n", impactCounts(c.NewByImpact))
	}
	if len(c.FixedByImpact) > 0 {
		fprintf(w, "Fixed by impact: %s\n", impactCounts(c.FixedByImpact))
	}
	if len(out.Rows) == 0 {
		fprintf(w, "\nNo %s rows (%d in all).\n", out.Change, out.TotalRows)
		if out.Note != "" {
			fprintln(w, serverNote(out.Note))
		}
		return nil
	}
	fprintf(w, "\n%d of %d %s rows:\n", out.Returned, out.TotalRows, out.Change)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fprintln(tw, "CHANGE\tAUDIT\tORGANISATION\tURL\tWIDTH\tRULE\tIMPACT\tISSUES")
	for _, r := range out.Rows {
		change := string(r.Change)
		if r.Page != "" {
			change += " (page " + r.Page + ")"
		}
		fprintln(tw, strings.Join([]string{
			tableCell(change), tableCell(r.Audit), tableCell(r.Organisation), tableCell(r.URL),
			strconv.Itoa(r.ViewportWidth), tableCell(r.Rule), tableCell(r.Impact), strconv.FormatInt(r.Issues, 10),
		}, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if out.Note != "" {
		fprintln(w, serverNote(out.Note))
	}
	return nil
}
