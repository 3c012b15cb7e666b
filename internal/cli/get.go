package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

func newGetCommand(o *Options) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "get SCAN",
		Short: "Show a scan's status: phase, pages, issues by impact, new and fixed",
		Args:  exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outputFormats...); err != nil {
				return err
			}
			s, err := o.newSession()
			if err != nil {
				return err
			}
			scan, err := s.getScan(cmd, args[0])
			if err != nil {
				return err
			}
			return printScans(o, output, scan)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", outTable, "table, json or yaml")
	return cmd
}

func newListCommand(o *Options) *cobra.Command {
	var (
		output        string
		allNamespaces bool
		selector      string
	)
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List scans with their status, oldest first",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, outputFormats...); err != nil {
				return err
			}
			s, err := o.newSession()
			if err != nil {
				return err
			}
			opts := []client.ListOption{}
			where := "in namespace " + s.namespace
			if allNamespaces {
				where = "in all namespaces"
			} else {
				opts = append(opts, client.InNamespace(s.namespace))
			}
			if selector != "" {
				sel, err := labels.Parse(selector)
				if err != nil {
					return fmt.Errorf("-l/--selector %q: %w", selector, err)
				}
				opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
			}
			list := &cwacv1alpha1.CwacScanList{}
			if err := s.client.List(cmd.Context(), list, opts...); err != nil {
				return describeAPIError(err, "list CwacScans "+where)
			}
			if len(list.Items) == 0 && output == outTable {
				fprintf(o.errOut(), "No CwacScans found %s.\n", where)
				return nil
			}
			scans := make([]*cwacv1alpha1.CwacScan, len(list.Items))
			for i := range list.Items {
				scans[i] = &list.Items[i]
			}
			sort.SliceStable(scans, func(i, j int) bool {
				return scans[i].CreationTimestamp.Before(&scans[j].CreationTimestamp)
			})
			return writeScans(o.out(), output, o.Now(), scanListing{withNamespace: allNamespaces, asList: true}, scans...)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", outTable, "table, json or yaml")
	cmd.Flags().BoolVarP(&allNamespaces, "all-namespaces", "A", false, "list scans in every namespace")
	cmd.Flags().StringVarP(&selector, "selector", "l", "", "label selector, e.g. cwac.a11y.dev/schedule=weekly")
	return cmd
}

// getScan reads one scan from the API server.
func (s *session) getScan(cmd *cobra.Command, name string) (*cwacv1alpha1.CwacScan, error) {
	scan := &cwacv1alpha1.CwacScan{}
	key := types.NamespacedName{Namespace: s.namespace, Name: name}
	if err := s.client.Get(cmd.Context(), key, scan); err != nil {
		return nil, describeAPIError(err, "get CwacScan "+key.String())
	}
	return scan, nil
}

func newSummaryCommand(o *Options) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "summary SCAN",
		Short: "Show a finished scan's summary: issues by impact and audit, top rules, diff counts",
		Args:  exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outputFormats...); err != nil {
				return err
			}
			s, err := o.newSession()
			if err != nil {
				return err
			}
			scan, err := s.getScan(cmd, args[0])
			if err != nil {
				return err
			}
			if output == outTable {
				return writeSummary(o.out(), scan)
			}
			return writeStructured(o.docOut(), output, summaryOf(scan))
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", outTable, "table (human-readable), json or yaml")
	return cmd
}

// ScanSummaryOutput is `summary -o json`: the scan's status summary with
// its outcome.
type ScanSummaryOutput struct {
	Scan       string                    `json:"scan"`
	Namespace  string                    `json:"namespace"`
	Phase      cwacv1alpha1.Phase        `json:"phase"`
	Message    string                    `json:"message,omitempty"`
	Thresholds string                    `json:"thresholds"`
	Outcome    int                       `json:"exitCode"`
	Summary    *cwacv1alpha1.ScanSummary `json:"summary,omitempty"`
	Failure    *cwacv1alpha1.ScanFailure `json:"failure,omitempty"`
}

func summaryOf(scan *cwacv1alpha1.CwacScan) ScanSummaryOutput {
	out := ScanSummaryOutput{Scan: scan.Name, Namespace: scan.Namespace, Phase: scan.Status.Phase, Message: scan.Status.Message,
		Thresholds: thresholdsCell(scan), Summary: scan.Status.Summary, Failure: scan.Status.Failure}
	if scan.Status.Phase.Finished() {
		out.Outcome = OutcomeCode(scan)
	}
	return out
}

// writeSummary prints the summary for people.
func writeSummary(w io.Writer, scan *cwacv1alpha1.CwacScan) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	line := func(k, format string, a ...any) { fprintf(tw, "%s:\t"+format+"\n", append([]any{k}, a...)...) }
	line("Scan", "%s/%s", scan.Namespace, scan.Name)
	phase := phaseText(scan)
	line("Phase", "%s", phase)
	if scan.Status.Message != "" {
		line("Message", "%s", scan.Status.Message)
	}
	if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet); c != nil {
		line("Thresholds", "%s (%s)", thresholdsCell(scan), c.Message)
	}
	sum := scan.Status.Summary
	if sum == nil {
		if scan.Status.Phase == cwacv1alpha1.PhaseFailed {
			line("Failure", "%s", failureText(scan))
		}
		line("Summary", "none yet (a scan has one once it has finished with results)")
		return tw.Flush()
	}
	urls := "URLs"
	if sum.UrlsScanned == 1 {
		urls = "URL"
	}
	line("Pages scanned", "%d (%d distinct page %s audited)", sum.PagesScanned, sum.UrlsScanned, urls)
	if sum.DurationSeconds > 0 {
		line("Duration", "%s", time.Duration(sum.DurationSeconds)*time.Second)
	}
	line("Total issues", "%d", sum.TotalIssues)
	if sum.DecidedIssues > 0 {
		line("Decided", "%d more a decision covers (in no figure here)", sum.DecidedIssues)
	}
	line("By impact", "%s", impactCounts(sum.IssuesByImpact))
	if len(sum.IssuesByAuditType) > 0 {
		line("By audit", "%s", sortedCounts(sum.IssuesByAuditType))
	}
	if len(sum.Informational) > 0 {
		line("Informational rows", "%s", sortedCounts(sum.Informational))
	}
	if len(sum.UnscannedBaseURLs) > 0 {
		line("Unscanned base URLs", "%s", strings.Join(sum.UnscannedBaseURLs, ", "))
	}
	if c := sum.Completeness; c != nil {
		line("Completeness", "%s", completenessLine(c))
	}
	if d := sum.Diff; d != nil {
		line("Compared with", "%s", d.Baseline)
		line("New / fixed / unchanged", "%d / %d / %d (unstable %d)", d.New, d.Fixed, d.Unchanged, d.Unstable)
		if len(d.NewByImpact) > 0 {
			line("New by impact", "%s", impactCounts(d.NewByImpact))
		}
		if d.PagesAdded > 0 || d.PagesRemoved > 0 {
			line("Pages added / removed", "%d / %d (%d new issues on added pages, %d fixed on removed pages)",
				d.PagesAdded, d.PagesRemoved, d.NewOnAddedPages, d.FixedOnRemovedPages)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := sum.Completeness; c != nil {
		if err := writeIncomplete(w, c); err != nil {
			return err
		}
	}
	if len(sum.TopViolations) > 0 {
		fprintln(w, "\nTop rules:")
		tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fprintln(tw, "  RULE\tIMPACT\tISSUES\tDESCRIPTION")
		for _, v := range sum.TopViolations {
			impact := v.Impact
			if impact == "" {
				impact = "-"
			}
			fprintf(tw, "  %s\t%s\t%d\t%s\n", v.ID, impact, v.Count, textcap.Head(v.Description, 80))
		}
		return tw.Flush()
	}
	return nil
}

func impactCounts(m map[string]int64) string {
	parts := make([]string, 0, len(impactNames))
	for _, k := range impactNames {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedCounts(m map[string]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func newCancelCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel SCAN",
		Short: "Cancel a scan (sets the cwac.a11y.dev/cancel annotation); it ends Failed with reason Cancelled",
		Args:  exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := o.newSession()
			if err != nil {
				return err
			}
			patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{cwacv1alpha1.AnnotationCancel: "true"}}})
			if err != nil {
				return err
			}
			scan := &cwacv1alpha1.CwacScan{}
			scan.Namespace, scan.Name = s.namespace, args[0]
			if err := s.client.Patch(cmd.Context(), scan, client.RawPatch(types.MergePatchType, patch)); err != nil {
				return describeAPIError(err, fmt.Sprintf("cancel CwacScan %s/%s (patch its annotations)", s.namespace, args[0]))
			}
			if scan.Status.Phase.Finished() {
				fprintf(o.out(), "cwacscan/%s had already finished (%s); nothing to cancel\n", scan.Name, scan.Status.Phase)
				return nil
			}
			fprintf(o.out(), "cwacscan/%s cancel requested\n", scan.Name)
			return nil
		},
	}
}
