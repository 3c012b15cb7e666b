package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// verdictComplete and verdictOrder are the verdicts of
// status.summary.completeness (docs/completeness.md), worst first after
// complete, as the summary lists them.
const verdictComplete = "complete"

var verdictOrder = []string{"partial", "blocked", "unreachable"}

// maxReasonCells bounds an organisation's reason in the summary's table.
const maxReasonCells = 160

// completenessOf is a scan's completeness record, nil when the scan has
// none (not finished, or an older runner).
func completenessOf(s *cwacv1alpha1.CwacScan) *cwacv1alpha1.ScanCompleteness {
	if s.Status.Summary == nil {
		return nil
	}
	return s.Status.Summary.Completeness
}

// hasIncomplete: some organisation of the scan was not scanned completely.
func hasIncomplete(s *cwacv1alpha1.CwacScan) bool {
	c := completenessOf(s)
	if c == nil {
		return false
	}
	for v, n := range c.OrganisationsByVerdict {
		if v != verdictComplete && n > 0 {
			return true
		}
	}
	return c.SitesNotJudged > 0
}

// organisations counts the record's organisations, all verdicts.
func organisations(c *cwacv1alpha1.ScanCompleteness) int32 {
	var all int32
	for _, n := range c.OrganisationsByVerdict {
		all += n
	}
	return all
}

// completeCell is the organisations scanned completely of all ("7/9"),
// "-" when the scan has no completeness record.
func completeCell(s *cwacv1alpha1.CwacScan) string {
	c := completenessOf(s)
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", c.OrganisationsByVerdict[verdictComplete], organisations(c))
}

// completenessLine is the record in words: "7 of 9 organisations complete
// (1 partial, 1 blocked)", with sites not judged when there are any.
func completenessLine(c *cwacv1alpha1.ScanCompleteness) string {
	line := fmt.Sprintf("%d of %d organisations complete", c.OrganisationsByVerdict[verdictComplete], organisations(c))
	var rest []string
	for _, v := range verdictOrder {
		if n := c.OrganisationsByVerdict[v]; n > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(rest) > 0 {
		line += " (" + strings.Join(rest, ", ") + ")"
	}
	if c.SitesNotJudged > 0 {
		line += fmt.Sprintf("; %d sites past the reader's bound, not judged", c.SitesNotJudged)
	}
	return line
}

// writeIncomplete lists the organisations status names as not complete,
// with their verdict and reason (status lists at most 20: summary.json on
// the results volume, and the report, list them all).
func writeIncomplete(w io.Writer, c *cwacv1alpha1.ScanCompleteness) error {
	if len(c.Incomplete) == 0 {
		return nil
	}
	fprintln(w, "\nNot scanned completely:")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fprintln(tw, "  ORGANISATION\tVERDICT\tWHY")
	for _, o := range c.Incomplete {
		fprintf(tw, "  %s\t%s\t%s\n", textcap.Head(o.Organisation, 60), o.Verdict, textcap.Head(o.Reason, maxReasonCells))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	notComplete := organisations(c) - c.OrganisationsByVerdict[verdictComplete]
	if more := int(notComplete) - len(c.Incomplete); more > 0 {
		fprintf(w, "  and %d more (the report and summary.json list them all)\n", more)
	}
	return nil
}
