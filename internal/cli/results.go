package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

func newResultsCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a      mcpapi.ResultsInput
		output string
		format string
		failAt string
	)
	cmd := &cobra.Command{
		Use:   "results SCAN",
		Short: "List a scan's result rows (through the MCP server, with your token)",
		Example: `  kubectl cwac results weekly-abc12 -n cwac-system --audit axe_core_audit --impact critical
  kubectl cwac results weekly-abc12 -n cwac-system --issues-only --limit 1000 -o csv > issues.csv
  kubectl cwac results weekly-abc12 -n cwac-system --format sarif > cwac.sarif
  kubectl cwac results weekly-abc12 -n cwac-system --format junit > junit.xml
  kubectl cwac results weekly-abc12 -n cwac-system --format junit --fail-at moderate > junit.xml`,
		Args: exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("format") {
				return runCIFormat(cmd, o, mf, format, failAt, args[0])
			}
			if cmd.Flags().Changed(flagFailAt) {
				return fmt.Errorf("--%s sets the CI report's fail-at impact: it needs --format junit or --format sarif", flagFailAt)
			}
			if err := checkOutput(output, outTable, outJSON, outCSV); err != nil {
				return err
			}
			if err := checkResultsArgs(a); err != nil {
				return err
			}
			a.ScanID = args[0]
			raw, err := callScanTool(cmd, o, mf, args[0], "cwac_get_results", a)
			if err != nil {
				return err
			}
			return writeResults(o, output, raw)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&a.AuditType, "audit", "", "one audit's rows, e.g. axe_core_audit, reflow_audit (default: all)")
	fl.StringVar(&a.Impact, flagImpact, "", "only rows of this axe impact: critical, serious, moderate or minor")
	fl.BoolVar(&a.IssuesOnly, "issues-only", false, "only rows that are issues")
	fl.IntVar(&a.Limit, "limit", 0, "most rows (default: the server's, 100)")
	fl.IntVar(&a.Offset, "offset", 0, "matching rows to skip, for paging")
	fl.StringVarP(&output, "output", "o", outTable, "table, json or csv")
	fl.StringVar(&format, "format", "", "the whole scan's report for CI instead of rows: junit (JUnit XML) or sarif (SARIF 2.1.0)")
	fl.StringVar(&failAt, flagFailAt, "", "with --format: the least axe impact that fails a JUnit test case or is a SARIF error: "+
		strings.Join(results.Impacts(), ", ")+" (default: "+cireport.DefaultFailAt+", the report the scan pod wrote)")
	return cmd
}

// flagImpact is the --impact flag's name.
const flagImpact = "impact"

// runCIFormat writes the scan's JUnit or SARIF report (the scan's resource,
// read through the MCP server, at the fail-at impact asked for) to standard
// output.
func runCIFormat(cmd *cobra.Command, o *Options, mf *mcpFlags, format, failAt, name string) error {
	var set []string
	for _, f := range []string{"audit", flagImpact, "issues-only", "limit", "offset", "output"} {
		if cmd.Flags().Changed(f) {
			set = append(set, f)
		}
	}
	if err := checkCIFormat(format, set); err != nil {
		return err
	}
	if cmd.Flags().Changed(flagFailAt) {
		if err := checkFailAt(failAt); err != nil {
			return err
		}
	}
	s, err := o.newSession()
	if err != nil {
		return err
	}
	scan, err := s.getScan(cmd, name)
	if err != nil {
		return err
	}
	return withMCP(cmd.Context(), o, mf, s, func(conn *MCPConn, token string) error {
		return readScanResource(cmd.Context(), conn, token, scan.Namespace, scan.Name, ciFormats[format], failAt, o.docOut())
	})
}

func checkResultsArgs(a mcpapi.ResultsInput) error {
	if a.Impact != "" && !slices.Contains(impactNames, a.Impact) {
		return fmt.Errorf("--impact %q: must be one of %v", textcap.Head(a.Impact, 40), impactNames)
	}
	if a.Limit < 0 {
		return fmt.Errorf("--limit %d: may not be negative", a.Limit)
	}
	if a.Offset < 0 {
		return fmt.Errorf("--offset %d: may not be negative", a.Offset)
	}
	if a.AuditType != "" && strings.ContainsAny(a.AuditType, "/\\.") {
		return fmt.Errorf("--audit %q: an audit name such as axe_core_audit, not a path", textcap.Head(a.AuditType, 60))
	}
	return nil
}

func writeResults(o *Options, output string, raw json.RawMessage) error {
	if output == outJSON {
		return writeRawJSON(o.docOut(), raw)
	}
	var page mcpapi.ResultsOutput
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("the MCP server's cwac_get_results output: %w", err)
	}
	if output == "csv" {
		if err := writeRowsCSV(o.docOut(), page.Results); err != nil {
			return err
		}
	} else if err := writeResultsTable(o.out(), page.Results); err != nil {
		return err
	}
	total := strconv.Itoa(page.TotalResults)
	if page.TotalIsLowerBound {
		total = "at least " + total
	}
	fprintf(o.errOut(), "%d of %s matching rows.", page.ReturnedResults, total)
	if page.Note != "" {
		fprint(o.errOut(), " ", serverNote(page.Note))
	}
	fprintln(o.errOut())
	return nil
}

// writeRawJSON indents the server's output as it is.
func writeRawJSON(w io.Writer, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("the MCP server's output is not JSON: %w", err)
	}
	return writeStructured(w, outJSON, v)
}

// The result rows' keys for axe's rule and impact.
const (
	colRule   = "id"
	colImpact = "impact"
)

// resultColumns are the table's columns and the row keys they show.
var resultColumns = []struct{ title, key string }{
	{"AUDIT", "audit_type"}, {colTitleOrganisation, colOrganisation}, {colTitleURL, "url"}, {"VIEWPORT", "viewport_size"},
	{"RULE", colRule}, {"IMPACT", colImpact}, {"ISSUES", "num_issues"},
}

func writeResultsTable(w io.Writer, rows []map[string]any) error {
	if len(rows) == 0 {
		fprintln(w, "No result rows match.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	titles := make([]string, len(resultColumns))
	for i, c := range resultColumns {
		titles[i] = c.title
	}
	fprintln(tw, strings.Join(titles, "\t"))
	for _, r := range rows {
		cells := make([]string, len(resultColumns))
		for i, c := range resultColumns {
			switch c.key {
			case colRule:
				cells[i] = tableCell(ruleText(r))
			case colImpact:
				cells[i] = tableCell(impactText(r))
			default:
				cells[i] = tableCell(cellText(r[c.key]))
			}
		}
		fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// ruleText says what failed: axe's rule id, or for CWAC's own audits
// (which have none) the row's description ("Tab key press #3 had no focus
// indicator"), else the audit's own description of its issues.
func ruleText(r map[string]any) string {
	if id := cellText(r[colRule]); id != "" {
		return id
	}
	if d := cellText(r["description"]); d != "" {
		return d
	}
	return results.RuleDescription(auditOf(cellText(r["audit_type"])))
}

// impactText is axe's impact, or says that CWAC's own audits give none.
func impactText(r map[string]any) string {
	if i := cellText(r[colImpact]); i != "" {
		return i
	}
	return "none (CWAC audit)"
}

// auditOf is the audit's file name for its type ("ReflowAudit" →
// "reflow_audit"), as results.RuleDescription knows it.
func auditOf(auditType string) string {
	var b strings.Builder
	for i, r := range auditType {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// tableCell keeps a cell on one line and short, and never empty.
func tableCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	return textcap.Head(s, 100)
}

// cellText is a row value as text: a viewport as WIDTHxHEIGHT, lists and
// objects as JSON.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		if wd, ok := x["width"].(float64); ok {
			if ht, ok := x["height"].(float64); ok {
				return fmt.Sprintf("%gx%g", wd, ht)
			}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// leadingColumns come first in CSV output; the rest follow by name.
var leadingColumns = []string{"audit_type", colOrganisation, "sector", "page_title", "base_url", "url", "viewport_size", "id", "impact", "num_issues"}

// writeRowsCSV writes rows with the union of their keys as the header.
// Cells a spreadsheet would run as a formula get a leading apostrophe:
// result rows carry text from the scanned sites.
func writeRowsCSV(w io.Writer, rows []map[string]any) error {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range maps.Keys(r) {
			seen[k] = true
		}
	}
	var header []string
	for _, k := range leadingColumns {
		if seen[k] {
			header = append(header, k)
			delete(seen, k)
		}
	}
	header = append(header, slices.Sorted(maps.Keys(seen))...)
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		rec := make([]string, len(header))
		for i, k := range header {
			rec[i] = spreadsheetSafe(cellText(r[k]))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// spreadsheetSafe prefixes text a spreadsheet would read as a formula.
func spreadsheetSafe(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s // a negative number
	}
	return "'" + s
}
