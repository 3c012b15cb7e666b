package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

func newHistoryCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a      mcpapi.IssueHistoryInput
		output string
	)
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List issues from the issue history: open, fixed and reopened across scans (through the MCP server)",
		Long: `history lists issues the MCP server's issue history followed across every
recorded scan of the MCP server's namespace (--mcp-namespace, cwac-system by
default; -n may only name that one): when each was first and last seen, the
scan that fixed it, how often it reopened. "history trend ORGANISATION" shows an
organisation's figures per scan; "history changes SCAN" what one scan changed. The server must run with --store; the
history is read with your token, under your RBAC (get on cwacscans).`,
		Example: `  kubectl cwac history --organisation "Ministry of Examples" --state open
  kubectl cwac history --reopened --rule color-contrast -o json
  kubectl cwac history trend "Ministry of Examples" --schedule weekly`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, outTable, outJSON); err != nil {
				return err
			}
			if err := checkHistoryArgs(a); err != nil {
				return err
			}
			return historyCall(cmd, o, mf, "cwac_issue_history", a, output, func(w io.Writer, raw json.RawMessage) error {
				var out mcpapi.IssueHistoryOutput
				if err := json.Unmarshal(raw, &out); err != nil {
					return fmt.Errorf("the MCP server's cwac_issue_history output: %w", err)
				}
				return writeIssueHistory(w, &out)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&a.Organisation, "organisation", "", "only this organisation's issues (CWAC's organisation name)")
	fl.StringVar(&a.Rule, "rule", "", "only this rule's issues (axe's rule id, or CWAC's audit)")
	fl.StringVar(&a.State, "state", "", "open or fixed (default both)")
	fl.BoolVar(&a.ReopenedOnly, "reopened", false, "only issues that were fixed and came back")
	fl.StringVar(&a.Page, "page", "", "only issues on this page URL")
	fl.IntVar(&a.Limit, "limit", 0, "most issues (default: the server's, 50; at most 500)")
	fl.IntVar(&a.Offset, "offset", 0, "matching issues to skip, for paging")
	fl.StringVarP(&output, "output", "o", outTable, "table or json")
	cmd.AddCommand(newTrendCommand(o, mf), newChangesCommand(o, mf))
	return cmd
}

func newTrendCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a      mcpapi.OrganisationTrendInput
		output string
	)
	cmd := &cobra.Command{
		Use:   "trend ORGANISATION",
		Short: "An organisation's figures in every recorded scan, oldest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outTable, outJSON); err != nil {
				return err
			}
			a.Organisation = args[0]
			return historyCall(cmd, o, mf, "cwac_organisation_trend", a, output, func(w io.Writer, raw json.RawMessage) error {
				var out mcpapi.OrganisationTrendOutput
				if err := json.Unmarshal(raw, &out); err != nil {
					return fmt.Errorf("the MCP server's cwac_organisation_trend output: %w", err)
				}
				return writeTrend(w, &out)
			})
		},
	}
	cmd.Flags().StringVar(&a.Schedule, "schedule", "", "only this CwacScanSchedule's scans")
	cmd.Flags().StringVarP(&output, "output", "o", outTable, "table or json")
	return cmd
}

// historyCall calls a history tool through the MCP server of the
// namespace and writes its answer: as the server gave it for -o json, else
// through table.
func historyCall(cmd *cobra.Command, o *Options, mf *mcpFlags, tool string, args any, output string,
	table func(io.Writer, json.RawMessage) error) error {
	s, err := o.newSession()
	if err != nil {
		return err
	}
	// No scan names the namespace here: the history read is the MCP
	// server's own namespace's, unless -n asks for another.
	switch {
	case !s.namespaceSet:
		s.namespace = mf.namespace
	case s.namespace != mf.namespace:
		return fmt.Errorf("the issue history is read through the MCP server in namespace %s, which keeps that namespace's history only, "+
			"and -n asks for %s: leave out -n, or use --mcp-namespace %s for a server installed there", mf.namespace, s.namespace, s.namespace)
	}
	return withMCP(cmd.Context(), o, mf, s, func(conn *MCPConn, token string) error {
		raw, err := callTool(cmd.Context(), conn, token, tool, args)
		if err != nil {
			return err
		}
		if output == outJSON {
			return writeRawJSON(o.docOut(), raw)
		}
		return table(o.out(), raw)
	})
}

func checkHistoryArgs(a mcpapi.IssueHistoryInput) error {
	if a.State != "" && !slices.Contains(store.IssueStates, a.State) {
		return fmt.Errorf("--state %q: must be one of %v", textcap.Head(a.State, 40), store.IssueStates)
	}
	if a.Limit < 0 {
		return fmt.Errorf("--limit %d: may not be negative", a.Limit)
	}
	if a.Offset < 0 {
		return fmt.Errorf("--offset %d: may not be negative", a.Offset)
	}
	return nil
}

// historyTime is how the tables show a time: the day and minute, in UTC.
func historyTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// scanShort is a scan's name without the namespace every row shares.
func scanShort(namespace, scan string) string { return strings.TrimPrefix(scan, namespace+"/") }

func writeIssueHistory(w io.Writer, out *mcpapi.IssueHistoryOutput) error {
	if out.Returned == 0 {
		fprintf(w, "No issues (of %d matching) in the issue history of namespace %s at offset %d.\n", out.Total, out.Namespace, out.Offset)
	} else {
		fprintf(w, "Issues %d-%d of %d in the issue history of namespace %s:\n", out.Offset+1, out.Offset+out.Returned, out.Total, out.Namespace)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fprintln(tw, "FINGERPRINT\tSTATE\tORGANISATION\tPAGE\tWIDTH\tRULE\tIMPACT\tFIRST SEEN\tLAST SEEN\tFIXED IN\tREOPENED\tSCANS")
	for _, is := range out.Issues {
		fixed := "-"
		if is.FixedInScan != "" {
			fixed = scanShort(out.Namespace, is.FixedInScan)
			if is.FixedReason != "" && is.FixedReason != store.ReasonFixed {
				fixed += " (" + is.FixedReason + ")"
			}
		}
		fprintln(tw, strings.Join([]string{
			is.Fingerprint[:min(len(is.Fingerprint), 12)], tableCell(is.State), tableCell(is.Organisation), tableCell(is.Page),
			strconv.Itoa(is.ViewportWidth), tableCell(is.Rule), tableCell(is.Impact),
			tableCell(scanShort(out.Namespace, is.FirstSeenScan)) + " " + historyTime(is.FirstSeenAt),
			tableCell(scanShort(out.Namespace, is.LastSeenScan)), tableCell(fixed), strconv.Itoa(is.Reopened), strconv.Itoa(is.ScansPresent),
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

func writeTrend(w io.Writer, out *mcpapi.OrganisationTrendOutput) error {
	fprintf(w, "%s in namespace %s", out.Organisation, out.Namespace)
	if out.Schedule != "" {
		fprintf(w, ", schedule %s", out.Schedule)
	}
	fprintf(w, ": %d scans\n", len(out.Points))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fprintln(tw, "FINISHED\tSCAN\tPAGES\tISSUES\tELEMENTS\tCRITICAL\tSERIOUS\tSCORE\tNEW\tFIXED\tNOT SCANNED\tREOPENED\tOPEN\tAXE-CORE")
	for _, p := range out.Points {
		score := "-"
		switch {
		case p.Score != nil && p.Completeness == string(results.VerdictPartial):
			score = strconv.FormatFloat(*p.Score, 'f', 1, 64) + " (partial)"
		case p.Score != nil:
			score = strconv.FormatFloat(*p.Score, 'f', 1, 64)
		case p.Completeness != "" && !results.Verdict(p.Completeness).ScoreShown():
			score = p.Completeness // blocked or unreachable: never a score
		}
		axe := p.Engine.AxeCore
		if axe == "" {
			axe = "-"
		}
		if p.EngineChanged {
			axe += " (changed)"
		}
		fprintln(tw, strings.Join([]string{
			historyTime(p.FinishedAt), tableCell(scanShort(out.Namespace, p.Scan)), strconv.Itoa(p.Pages),
			strconv.FormatInt(p.Issues, 10), strconv.FormatInt(p.Elements, 10),
			strconv.FormatInt(p.ByImpact["critical"], 10), strconv.FormatInt(p.ByImpact["serious"], 10), score,
			strconv.FormatInt(p.New, 10), strconv.FormatInt(p.Fixed, 10), strconv.FormatInt(p.FixedPageNotScanned, 10),
			strconv.FormatInt(p.Reopened, 10), strconv.FormatInt(p.Open, 10), tableCell(axe),
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
