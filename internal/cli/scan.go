package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newScanCommand(o *Options) *cobra.Command {
	var (
		f                         ScanFlags
		wait                      bool
		waitTimeout               time.Duration
		maxCrit, maxTotal, maxNew int64
		shards                    int32
		output                    string
	)
	cmd := &cobra.Command{
		Use:   "scan (--url URL | --site URL,ORGANISATION,SECTOR | --urls-file FILE)... [flags]",
		Short: "Create a CwacScan (and with --wait, wait for its result)",
		Example: `  kubectl cwac scan --url https://www.example.govt.nz/ --wait
  kubectl cwac scan --site "https://example.org/,Example Org,Health" --max-critical 0 --require-complete --wait
  kubectl cwac scan --urls-file sites.csv --baseline weekly-abc12 --max-new 0 --name pr-123 --wait
  kubectl cwac scan --urls-file all-agencies.csv --shards 4 --shard-failure-policy Partial --wait`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, outTable, outJSON, outYAML, outName); err != nil {
				return err
			}
			fl := cmd.Flags()
			if fl.Changed("max-critical") {
				f.MaxCritical = &maxCrit
			}
			if fl.Changed("max-total") {
				f.MaxTotal = &maxTotal
			}
			if fl.Changed("max-new") {
				f.MaxNew = &maxNew
			}
			if fl.Changed("shards") {
				f.Shards = &shards
			}
			if waitTimeout < 0 {
				return fmt.Errorf("--wait-timeout %s: may not be negative", waitTimeout)
			}
			s, err := o.newSession()
			if err != nil {
				return err
			}
			f.Namespace = s.namespace
			scan, err := BuildScan(f)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if err := s.client.Create(ctx, scan); err != nil {
				if invalid := scanInvalidError(err); invalid != nil {
					return invalid
				}
				return describeAPIError(err, fmt.Sprintf("create a CwacScan in namespace %s", s.namespace))
			}
			if !wait {
				return printScans(o, output, scan)
			}
			fprintf(o.errOut(), "cwacscan %s/%s created\n", scan.Namespace, scan.Name)
			if waitTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, waitTimeout)
				defer cancel()
			}
			return waitAndReport(ctx, o, s, scan.Name, output)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Name, "name", "", "the scan's name (default: generated, cwac-xxxxx)")
	fl.StringArrayVar(&f.URLs, "url", nil, "a base URL to scan (repeatable)")
	fl.StringArrayVar(&f.Sites, "site", nil, `a site as "url,organisation,sector" (repeatable; quote an organisation with a comma)`)
	fl.StringVar(&f.URLsFile, "urls-file", "", "a CSV with a url column (and organisation, sector), or one URL per line")
	fl.StringVar(&f.AuditName, "audit-name", "", "CWAC's audit name (default: the scan's name)")
	fl.StringVar(&f.Timeout, "timeout", "", "the scan's deadline, 1m-24h such as 30m (default 1h)")
	fl.Int32Var(&f.Threads, "threads", 0, "browsers CWAC runs in parallel, 1-16 (default 1)")
	fl.Int32Var(&f.MaxLinksPerDomain, "max-links-per-domain", 0, "pages CWAC visits per site (default 50)")
	fl.StringVar(&f.Baseline, "baseline", "", "an earlier CwacScan in the namespace to compare with")
	fl.BoolVar(&f.AllowHTTP, "allow-http", false, "scan http:// sites too (CWAC's only_allow_https: false; by default CWAC skips them and they yield no page)")
	fl.Int64Var(&maxCrit, "max-critical", 0, "threshold: most critical axe issues")
	fl.Int64Var(&maxTotal, "max-total", 0, "threshold: most issues in all")
	fl.Int64Var(&maxNew, "max-new", 0, "threshold: most issues the baseline did not have (needs --baseline)")
	fl.BoolVar(&f.RequireComplete, "require-complete", false,
		"threshold: every organisation scanned completely (none partial, blocked or unreachable; a scan whose completeness is not known does not pass)")
	fl.Int32Var(&shards, "shards", 1, "split the sites into this many shards scanned side by side, one pod each, 1-64 and at most the number of sites; "+
		"an organisation's sites stay in one shard unless it alone has more than a shard's share")
	fl.StringVar(&f.ShardFailurePolicy, "shard-failure-policy", "",
		"what a failed shard does: Fail (default: the scan fails) or Partial (the other shards' results are kept, the scan completes)")
	fl.BoolVar(&wait, "wait", false, "wait for the scan to finish; exit 2 if it failed, 3 if it crossed a threshold")
	fl.DurationVar(&waitTimeout, "wait-timeout", 0, "give up waiting after this long (default: no limit)")
	fl.StringVarP(&output, "output", "o", "name", "what to print: name, table, json or yaml")
	return cmd
}

func newWaitCommand(o *Options) *cobra.Command {
	var (
		waitTimeout time.Duration
		output      string
	)
	cmd := &cobra.Command{
		Use:   "wait SCAN",
		Short: "Wait for a scan to finish; exit 2 if it failed, 3 if it crossed a threshold",
		Args:  exactlyOneScan,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, outTable, outJSON, outYAML, outName); err != nil {
				return err
			}
			s, err := o.newSession()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if waitTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, waitTimeout)
				defer cancel()
			}
			return waitAndReport(ctx, o, s, args[0], output)
		},
	}
	cmd.Flags().DurationVar(&waitTimeout, "wait-timeout", 0, "give up waiting after this long (default: no limit)")
	cmd.Flags().StringVarP(&output, "output", "o", outTable, "what to print when it finishes: name, table, json or yaml")
	return cmd
}

// waitAndReport waits for the scan, prints it and turns its outcome into
// the exit code.
func waitAndReport(ctx context.Context, o *Options, s *session, name, output string) error {
	scan, err := waitForScan(ctx, o, s, name)
	if err != nil {
		return err
	}
	if err := printScans(o, output, scan); err != nil {
		return err
	}
	return outcomeError(scan)
}

func exactlyOneScan(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("expected one scan name, got %d arguments", len(args))
	}
	return nil
}

func checkOutput(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return fmt.Errorf("-o/--output %q: must be one of %v", got, allowed)
}
