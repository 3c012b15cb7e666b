// Package cli is the kubectl plugin `kubectl cwac`: it creates, watches,
// lists and cancels CwacScans with the user's own kubeconfig, and reads
// result files (result rows, diff rows, report.html) through the MCP
// server's REST route, reached by a port-forward and authenticated with the
// user's own bearer token, so nothing is readable that the user's RBAC
// would not allow.
package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Exit codes a CI pipeline can rely on (docs/kubectl-plugin.md).
const (
	// ExitOK: the command did what was asked (and a waited-for scan passed).
	ExitOK = 0
	// ExitError: bad usage, or the API server or MCP server could not be
	// reached or refused the request.
	ExitError = 1
	// ExitScanFailed: the waited-for scan ended Failed.
	ExitScanFailed = 2
	// ExitThresholdsCrossed: the waited-for scan completed but its
	// ThresholdsMet condition is False.
	ExitThresholdsCrossed = 3
)

// exitError carries an exit code other than ExitError up to Main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// ExitCode is the process exit code for an error returned by a command.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}

// Options are what the commands depend on beyond their flags; tests replace
// the terminal check, the browser and the way to the MCP server.
type Options struct {
	Streams genericiooptions.IOStreams
	// ConfigFlags are kubectl's connection flags (--kubeconfig, --context,
	// -n, --token…). Nil means the usual defaults.
	ConfigFlags *genericclioptions.ConfigFlags
	// MCP opens a connection to the MCP server. Nil means a port-forward to
	// its pod (see --mcp-namespace, --mcp-selector).
	MCP MCPConnector
	// IsTerminal says whether w is a terminal (progress line, browser).
	IsTerminal func(w io.Writer) bool
	// OpenBrowser shows a local file in the user's browser.
	OpenBrowser func(path string) error
	// Now is the clock for ages and elapsed times.
	Now func() time.Time

	// stdout and stderr are Streams' Out and ErrOut as every command
	// prints text to them (terminal.go).
	stdout, stderr *terminalText
}

// out is where a command prints text to standard output.
func (o *Options) out() io.Writer { return o.stdout }

// errOut is where a command prints text to standard error.
func (o *Options) errOut() io.Writer { return o.stderr }

// docOut is where a command writes a document (SARIF, JUnit, CSV) to
// standard output: as it is to a file or a pipe, escaped like text on a
// terminal.
func (o *Options) docOut() io.Writer {
	if o.IsTerminal(o.Streams.Out) {
		return o.stdout
	}
	return o.Streams.Out
}

// flush writes what the text streams hold back.
func (o *Options) flush() {
	_ = o.stdout.Flush() // a failed write to the terminal has nowhere to be reported
	_ = o.stderr.Flush()
}

func (o *Options) defaults() {
	if o.ConfigFlags == nil {
		o.ConfigFlags = genericclioptions.NewConfigFlags(true)
	}
	if o.IsTerminal == nil {
		o.IsTerminal = func(w io.Writer) bool {
			f, ok := w.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		}
	}
	if o.OpenBrowser == nil {
		o.OpenBrowser = openBrowser
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	// Streams may be replaced between runs (tests reuse Options).
	if o.stdout == nil || o.stdout.w != o.Streams.Out {
		o.stdout = newTerminalText(o.Streams.Out)
	}
	if o.stderr == nil || o.stderr.w != o.Streams.ErrOut {
		o.stderr = newTerminalText(o.Streams.ErrOut)
	}
}

// NewCommand is `kubectl cwac` with its subcommands.
func NewCommand(o *Options) *cobra.Command {
	o.defaults()
	root := &cobra.Command{
		Use:   "kubectl-cwac",
		Short: "Run and read CWAC accessibility scans (CwacScan objects)",
		Long: `kubectl cwac creates, watches and reads CWAC accessibility scans with your
kubeconfig's identity. Result files (rows, diffs, report.html) are read through
the MCP server, reached by a port-forward and authorised with your own token.

Exit codes: 0 ok; 1 usage or connection error; 2 the scan failed;
3 the scan crossed its thresholds.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl cwac",
		},
	}
	root.SetIn(o.Streams.In)
	root.SetOut(o.out())
	root.SetErr(o.errOut())
	o.ConfigFlags.AddFlags(root.PersistentFlags())
	mf := &mcpFlags{}
	mf.addFlags(root.PersistentFlags())
	root.AddCommand(
		newScanCommand(o),
		newWaitCommand(o),
		newGetCommand(o),
		newListCommand(o),
		newSummaryCommand(o),
		newResultsCommand(o, mf),
		newSignalsCommand(o, mf),
		newDiffCommand(o, mf),
		newReportCommand(o, mf),
		newHistoryCommand(o, mf),
		newDecideCommand(o, mf),
		newCancelCommand(o),
	)
	return root
}

// Main runs the plugin with the process's streams and returns its exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := &Options{Streams: genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}}
	return Run(ctx, o, args)
}

// Run executes one command line and returns its exit code, printing any
// error to the error stream.
func Run(ctx context.Context, o *Options, args []string) int {
	cmd := NewCommand(o)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil {
		fprintln(o.errOut(), "error:", err)
	}
	o.flush()
	return ExitCode(err)
}
