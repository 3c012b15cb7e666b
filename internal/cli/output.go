package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Output formats (-o).
const (
	outTable = "table"
	outJSON  = "json"
	outYAML  = "yaml"
	outName  = "name"
	outCSV   = "csv"
)

// phaseText is the scan's phase, Pending before the operator set one.
func phaseText(s *cwacv1alpha1.CwacScan) string {
	if s.Status.Phase == "" {
		return string(cwacv1alpha1.PhasePending)
	}
	return string(s.Status.Phase)
}

// printScans prints one scan (or a list) as name, table, json or yaml.
func printScans(o *Options, output string, scans ...*cwacv1alpha1.CwacScan) error {
	return writeScans(o.out(), output, o.Now(), scanListing{}, scans...)
}

// scanListing says how a listing is printed: with a NAMESPACE column in
// the table, and as a List in JSON and YAML even when it holds one scan.
type scanListing struct {
	withNamespace bool
	asList        bool
}

func writeScans(w io.Writer, output string, now time.Time, how scanListing, scans ...*cwacv1alpha1.CwacScan) error {
	for _, s := range scans {
		s.APIVersion = cwacv1alpha1.GroupVersion.String()
		s.Kind = "CwacScan"
		s.ManagedFields = nil
	}
	switch output {
	case outName:
		for _, s := range scans {
			fprintf(w, "cwacscan/%s\n", s.Name)
		}
		return nil
	case outJSON, outYAML:
		var v any
		if len(scans) == 1 && !how.asList {
			v = scans[0]
		} else {
			list := &cwacv1alpha1.CwacScanList{Items: make([]cwacv1alpha1.CwacScan, 0, len(scans))}
			list.APIVersion, list.Kind = "v1", "List"
			for _, s := range scans {
				list.Items = append(list.Items, *s)
			}
			v = list
		}
		return writeStructured(w, output, v)
	default:
		return writeScanTable(w, now, how.withNamespace, scans)
	}
}

// writeStructured prints v as indented JSON or YAML.
func writeStructured(w io.Writer, output string, v any) error {
	if output == outYAML {
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// scanColumns are the table's columns, after NAMESPACE when shown.
var scanColumns = []string{"NAME", "PHASE", colTitlePages, "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "THRESHOLDS", "AGE"}

// completeColumn is where COMPLETE goes in scanColumns: after FIXED.
const completeColumn = 10

// writeScanTable prints the scans as a table. A SHARDS column (after
// PHASE) appears only when some scan in it is sharded, and a COMPLETE
// column (after FIXED: organisations scanned completely of all) only when
// some scan in it did not scan every organisation completely, so tables of
// unsharded, complete scans look as they always have.
func writeScanTable(w io.Writer, now time.Time, withNamespace bool, scans []*cwacv1alpha1.CwacScan) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	withShards := slices.ContainsFunc(scans, isSharded)
	withComplete := slices.ContainsFunc(scans, hasIncomplete)
	header := slices.Clone(scanColumns)
	if withComplete {
		header = slices.Insert(header, completeColumn, "COMPLETE")
	}
	if withShards {
		header = slices.Insert(header, 2, "SHARDS")
	}
	if withNamespace {
		header = append([]string{"NAMESPACE"}, header...)
	}
	fprintln(tw, strings.Join(header, "\t"))
	for _, s := range scans {
		row := scanRow(s, now)
		if withComplete {
			row = slices.Insert(row, completeColumn, completeCell(s))
		}
		if withShards {
			row = slices.Insert(row, 2, shardsCell(s))
		}
		if withNamespace {
			row = append([]string{s.Namespace}, row...)
		}
		fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// isSharded: the scan asked for more than one shard, or the operator
// counts its shards.
func isSharded(s *cwacv1alpha1.CwacScan) bool {
	return s.Spec.ShardCount() > 1 || s.Status.Shards != nil
}

// shardsCell is a sharded scan's shards done of all ("3/4"), with the
// failed ones ("2/4, 1 failed"); "-" before the operator counted them, or
// for an unsharded scan.
func shardsCell(s *cwacv1alpha1.CwacScan) string {
	st := s.Status.Shards
	if st == nil {
		return "-"
	}
	cell := fmt.Sprintf("%d/%d", st.Succeeded, st.Total)
	if st.Failed > 0 {
		cell += fmt.Sprintf(", %d failed", st.Failed)
	}
	return cell
}

// shardsText is a sharded scan's shards in words, for the wait progress
// line: "shards 1/4 done, 2 running, 1 failed (2)".
func shardsText(st *cwacv1alpha1.ShardStatus) string {
	text := fmt.Sprintf("shards %d/%d done, %d running, %d failed", st.Succeeded, st.Total, st.Running, st.Failed)
	if st.FailedIndexes != "" {
		text += " (" + st.FailedIndexes + ")"
	}
	if st.Merged {
		text += ", merged"
	}
	return text
}

// scanRow is one scan's table cells; "-" where nothing is known yet.
func scanRow(s *cwacv1alpha1.CwacScan, now time.Time) []string {
	phase := phaseText(s)
	row := []string{s.Name, phase}
	sum := s.Status.Summary
	if sum == nil {
		row = append(row, "-", "-", "-", "-", "-", "-")
	} else {
		row = append(row, strconv.Itoa(int(sum.PagesScanned)), strconv.FormatInt(sum.TotalIssues, 10))
		for _, impact := range impactNames {
			row = append(row, strconv.FormatInt(sum.IssuesByImpact[impact], 10))
		}
	}
	if sum != nil && sum.Diff != nil {
		row = append(row, strconv.FormatInt(sum.Diff.New, 10), strconv.FormatInt(sum.Diff.Fixed, 10))
	} else {
		row = append(row, "-", "-")
	}
	row = append(row, thresholdsCell(s))
	age := "-"
	if !s.CreationTimestamp.IsZero() {
		age = duration.HumanDuration(now.Sub(s.CreationTimestamp.Time))
	}
	return append(row, age)
}

// thresholdsCell is the ThresholdsMet condition in a word: Met, Crossed,
// None (no thresholds set) or "-" before the scan finished.
func thresholdsCell(s *cwacv1alpha1.CwacScan) string {
	c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet)
	switch {
	case c == nil:
		return "-"
	case c.Reason == cwacv1alpha1.ReasonNoThresholds:
		return "None"
	case c.Status == "True":
		return "Met"
	case c.Reason == cwacv1alpha1.ReasonScanFailed:
		return "Unjudged"
	default:
		return "Crossed"
	}
}

// fprintf, fprintln and fprint write human-readable text whose write
// errors are not worth failing for (a closed pipe); data outputs go through
// encoders and tabwriters, whose errors are returned.
func fprintf(w io.Writer, format string, a ...any) { _, _ = fmt.Fprintf(w, format, a...) }
func fprintln(w io.Writer, a ...any)               { _, _ = fmt.Fprintln(w, a...) }
func fprint(w io.Writer, a ...any)                 { _, _ = fmt.Fprint(w, a...) }

// serverOffset is how the MCP server's notes name its paging argument
// ("use offset=100 to read on", "continue with offset 100").
var serverOffset = regexp.MustCompile(`\boffset[= ](\d+)`)

// serverNote is a note from the MCP server as this plugin's user reads it:
// the tool's paging argument named as the flag that sets it.
func serverNote(note string) string {
	return serverOffset.ReplaceAllString(note, "--offset $1")
}
