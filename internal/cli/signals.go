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
)

// signalKinds are the --kind values of `signals`, each with its MCP tool
// and its table.
var signalKinds = map[string]struct {
	tool  string
	table func(w io.Writer, raw json.RawMessage) (mcpapi.SignalsPage, error)
}{
	"templates":   {"cwac_get_templates", templatesTable},
	"titles":      {"cwac_get_page_titles", titlesTable},
	"responses":   {"cwac_get_broken_responses", responsesTable},
	"readability": {"cwac_get_readability", readabilityTable},
}

func newSignalsCommand(o *Options, mf *mcpFlags) *cobra.Command {
	var (
		a      mcpapi.SignalsInput
		kind   string
		output string
	)
	kinds := slices.Sorted(func(yield func(string) bool) {
		for k := range signalKinds {
			if !yield(k) {
				return
			}
		}
	})
	cmd := &cobra.Command{
		Use:   "signals SCAN --kind " + strings.Join(kinds, "|"),
		Short: "Show what CWAC found besides issues: template issues, page titles, broken responses, reading level (through the MCP server)",
		Example: `  kubectl cwac signals weekly-abc12 -n cwac-system --kind templates
  kubectl cwac signals weekly-abc12 -n cwac-system --kind titles --organisation "Ministry of Examples"
  kubectl cwac signals weekly-abc12 -n cwac-system --kind responses -o json`,
		Args: exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, ok := signalKinds[kind]
			if !ok {
				return fmt.Errorf("--kind %q: want one of %s", kind, strings.Join(kinds, ", "))
			}
			if err := checkOutput(output, outTable, outJSON); err != nil {
				return err
			}
			if a.Limit < 0 || a.Offset < 0 {
				return fmt.Errorf("--limit and --offset must be 0 or more (got %d and %d)", a.Limit, a.Offset)
			}
			a.ScanID = args[0]
			raw, err := callScanTool(cmd, o, mf, args[0], k.tool, a)
			if err != nil {
				return err
			}
			if output == outJSON {
				return writeRawJSON(o.docOut(), raw)
			}
			page, err := k.table(o.out(), raw)
			if err != nil {
				return fmt.Errorf("the MCP server's %s output: %w", k.tool, err)
			}
			writePageLine(o.errOut(), page)
			if a.Organisation != "" {
				fprintf(o.errOut(), "The first line counts the whole scan; the list is %s's (-o json has each organisation's counts).\n", a.Organisation)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kind, "kind", "", "what to show: "+strings.Join(kinds, ", "))
	fl.StringVar(&a.Organisation, "organisation", "", "only this organisation (CWAC's name, exactly)")
	fl.IntVar(&a.Limit, "limit", 0, "most items (default: the server's, 100)")
	fl.IntVar(&a.Offset, "offset", 0, "items to skip, for paging")
	fl.StringVarP(&output, "output", "o", outTable, "table or json (the tool's output, unchanged)")
	_ = cmd.MarkFlagRequired("kind")
	return cmd
}

// writePageLine says on standard error how much of the list was shown and
// how to read on.
func writePageLine(w io.Writer, p mcpapi.SignalsPage) {
	fprintf(w, "%d of %d items.", p.Returned, p.Total)
	if next := p.Offset + p.Returned; next < p.Total {
		fprintf(w, " Read on with --offset %d.", next)
	}
	if p.Note != "" {
		fprint(w, " ", serverNote(p.Note))
	}
	fprintln(w)
}

// table writes a header and rows of cells, each kept on one line.
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = tableCell(c)
		}
		fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// Column titles the signal tables share with others.
const (
	colTitleOrganisation = "ORGANISATION"
	colTitleURL          = "URL"
	colTitlePages        = "PAGES"
)

func count(n int64) string { return strconv.FormatInt(n, 10) }

func templatesTable(w io.Writer, raw json.RawMessage) (mcpapi.SignalsPage, error) {
	var out mcpapi.TemplatesOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return out.SignalsPage, err
	}
	fprintf(w, "%d template issues holding %d issues (fix once, fixed on every page).\n", out.TemplateIssues, out.Instances)
	rows := make([][]string, 0, len(out.Issues))
	for _, i := range out.Issues {
		rows = append(rows, []string{i.Organisation, i.RuleID, i.Impact, count(i.Pages), count(i.Instances), i.ExampleURL})
	}
	return out.SignalsPage, table(w, []string{colTitleOrganisation, "RULE", "IMPACT", colTitlePages, "INSTANCES", "EXAMPLE PAGE"}, rows)
}

func titlesTable(w io.Writer, raw json.RawMessage) (mcpapi.SignalsPage, error) {
	var out mcpapi.PageTitlesOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return out.SignalsPage, err
	}
	fprintf(w, "%d pages: %d without a title, %d titles shared by %d pages (WCAG 2.4.2 Page Titled).\n",
		out.Pages, out.MissingOrEmpty, out.DuplicateTitles, out.PagesWithDuplicateTitle)
	rows := make([][]string, 0, len(out.Findings))
	for _, f := range out.Findings {
		title := f.Title
		if f.Problem != "duplicate" {
			title = "-"
		}
		rows = append(rows, []string{f.Organisation, f.Problem, title, count(f.Pages), strings.Join(f.URLs, " ")})
	}
	return out.SignalsPage, table(w, []string{colTitleOrganisation, "PROBLEM", "TITLE", colTitlePages, "URLS"}, rows)
}

func responsesTable(w io.Writer, raw json.RawMessage) (mcpapi.SignalsPage, error) {
	var out mcpapi.BrokenResponsesOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return out.SignalsPage, err
	}
	fprintf(w, "%d broken responses met while crawling (%s).\n", out.Responses, sortedCounts(out.ByStatus))
	rows := make([][]string, 0, len(out.List))
	for _, r := range out.List {
		rows = append(rows, []string{r.Organisation, r.Status, r.URL, r.LinkedFrom})
	}
	return out.SignalsPage, table(w, []string{colTitleOrganisation, "STATUS", colTitleURL, "LINKED FROM"}, rows)
}

func readabilityTable(w io.Writer, raw json.RawMessage) (mcpapi.SignalsPage, error) {
	var out mcpapi.ReadabilityOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return out.SignalsPage, err
	}
	fprintf(w, "%d pages measured (information, not issues), hardest to read first.\n", out.Pages)
	rows := make([][]string, 0, len(out.List))
	for _, p := range out.List {
		rows = append(rows, []string{p.Organisation, strconv.FormatFloat(p.FleschKincaidGrade, 'f', 1, 64),
			strconv.FormatFloat(p.SMOGGrade, 'f', 1, 64), p.URL})
	}
	return out.SignalsPage, table(w, []string{colTitleOrganisation, "GRADE", "SMOG", colTitleURL}, rows)
}
