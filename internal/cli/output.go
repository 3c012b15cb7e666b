package cli

import (
	"encoding/json"
	"fmt"
	"io"
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
	return writeScans(o.Streams.Out, output, o.Now(), scanListing{}, scans...)
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
var scanColumns = []string{"NAME", "PHASE", "PAGES", "ISSUES", "CRITICAL", "SERIOUS", "MODERATE", "MINOR", "NEW", "FIXED", "THRESHOLDS", "AGE"}

func writeScanTable(w io.Writer, now time.Time, withNamespace bool, scans []*cwacv1alpha1.CwacScan) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	header := scanColumns
	if withNamespace {
		header = append([]string{"NAMESPACE"}, header...)
	}
	fprintln(tw, strings.Join(header, "\t"))
	for _, s := range scans {
		row := scanRow(s, now)
		if withNamespace {
			row = append([]string{s.Namespace}, row...)
		}
		fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
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
