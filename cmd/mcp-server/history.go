package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/decide"
	"github.com/a11y-dev/cwac-operator/internal/digestsend"
	"github.com/a11y-dev/cwac-operator/internal/historywriter"
	"github.com/a11y-dev/cwac-operator/internal/issueevents"
	"github.com/a11y-dev/cwac-operator/internal/mailer"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// storeDSNVariable may hold the store's DSN instead of --store, so that
// the DSN (which may hold a password) can come from a Secret without being
// on the command line.
const storeDSNVariable = "CWAC_STORE_DSN"

// storeFlags are the issue history's flags.
type storeFlags struct {
	dsn, dsnFile string
}

func (f *storeFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.dsn, "store", "", "the issue history's database: sqlite:///path/history.db or postgres://user@host/db "+
		"(default: $"+storeDSNVariable+"; empty: no history, the other tools work as without it)")
	fs.StringVar(&f.dsnFile, "store-file", "", "a file holding the store's DSN (mount it from a Secret), instead of --store")
}

// resolve is the DSN the flags and the environment give ("": no history).
// Exactly one source may give it; the error never quotes it.
func (f storeFlags) resolve(getenv func(string) string) (string, error) {
	env := strings.TrimSpace(getenv(storeDSNVariable))
	var given []string
	if f.dsn != "" {
		given = append(given, "--store")
	}
	if f.dsnFile != "" {
		given = append(given, "--store-file")
	}
	if env != "" {
		given = append(given, "$"+storeDSNVariable)
	}
	if len(given) > 1 {
		return "", fmt.Errorf("the store's DSN is given by %s: give it once", strings.Join(given, " and "))
	}
	switch {
	case f.dsnFile != "":
		return readSecretFile("store-file", f.dsnFile)
	case f.dsn != "":
		return f.dsn, nil
	}
	return env, nil
}

// writerFlags say how the server records finished scans in the store.
type writerFlags struct {
	ingest         bool
	leaderElection bool
	lease          string
	maxAge         time.Duration
	maxScans       int
	maxIssues      int64
}

func (f *writerFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&f.ingest, "history-ingest", true, "with --store: record every finished scan of the namespace in the issue history "+
		"(false: only read it, another process writes)")
	fs.BoolVar(&f.leaderElection, "history-leader-election", true, "with --store: one replica at a time records scans, elected with a Lease "+
		"(false: this process always does; for a single process outside a cluster)")
	fs.StringVar(&f.lease, "history-lease", "cwac-mcp-history-writer", "the Lease the replicas elect the history's writer with")
	fs.DurationVar(&f.maxAge, "history-max-age", 0, "retention: prune scans that finished longer ago than this (0: keep)")
	fs.IntVar(&f.maxScans, "history-max-scans", 0, "retention: keep the newest N scans of each schedule (0: keep all)")
	fs.Int64Var(&f.maxIssues, "history-max-issues", 0, "the largest scan, in issues, the history records: a larger one is left out "+
		"with a Warning Event and a line on its page, since recording holds memory for every issue row (0: no limit)")
}

// historyDeps are what the history's writer shares with the MCP server.
type historyDeps struct {
	scans cache.Cache // nil when the scan cache did not sync
	// decisions are the namespace's CwacIssueDecisions (nil: not read,
	// and their history not recorded).
	decisions   *mcpserver.DecisionSource
	clientset   kubernetes.Interface
	namespace   string
	resultsRoot string
	bucket      *objectstore.Store // where results are read, when set (not resultsRoot)
	log         *slog.Logger
	// client reads and patches CwacDigests, the schedules and scans their
	// owners come from and the decisions due for review.
	client client.Client
	// digests sends the namespace's CwacDigests from the elected writer;
	// nil: not at all.
	digests *digestSettings
	// issueEvents are pushed by the elected writer after it records a scan.
	issueEvents issueEventSettings
}

// issueEventSettings are the checked issue-event flags: no receivers, none sent.
type issueEventSettings struct {
	receivers []issueevents.Receiver
	http      *notify.Sender
}

// digestSettings are the checked digest flags.
type digestSettings struct {
	mail         *mailer.Server // nil: no SMTP server (each digest says so)
	dashboardURL string
}

// startHistory checks the history's flags, then opens its store (a handle
// with none when no DSN is configured) and, once the store is open, starts
// recording finished scans in it unless --history-ingest=false. A failure
// to start the writer after the store opened ends the process through fail.
func startHistory(ctx context.Context, sf storeFlags, wf writerFlags, d historyDeps, fail func(string, error)) (*store.Handle, error) {
	dsn, err := sf.resolve(os.Getenv)
	if err != nil {
		return nil, err
	}
	if err := wf.check(); err != nil {
		return nil, err
	}
	if len(d.issueEvents.receivers) > 0 && (dsn == "" || !wf.ingest) {
		return nil, errors.New("--issue-event-receivers needs --store and --history-ingest: the events are what the history's writer records")
	}
	if dsn != "" && wf.ingest && d.scans == nil {
		return nil, errors.New("recording the issue history needs the scan cache, which did not sync (watch on cwacscans)")
	}
	return openStore(ctx, dsn, store.DefaultBackoff, d.log, func(st *store.Store) {
		if !wf.ingest {
			d.log.Info("issue history: reading only (--history-ingest=false)")
			return
		}
		if err := startWriter(ctx, wf, st, d); err != nil {
			// The informer is synced already: this is the process's own fault.
			fail("recording the issue history", err)
		}
	})
}

// openStore opens the issue history's store: a handle with none when no
// DSN is configured. A database that does not answer at start is logged
// and retried in the background (main: store.DefaultBackoff) while the
// server serves everything else; opened runs once the store is open (it
// starts the writer). A DSN that can never work is an error at once.
func openStore(ctx context.Context, dsn string, b store.Backoff, log *slog.Logger, opened func(*store.Store)) (*store.Handle, error) {
	return store.OpenInBackground(ctx, dsn, b,
		func(err error, retryIn time.Duration) {
			// store errors never repeat the DSN
			log.Error("issue history: the store's database did not answer; the history's tools and pages say so until it does",
				"err", err, "retryIn", retryIn)
		},
		func(st *store.Store) {
			log.Info("issue history: store open", "engine", st.Engine())
			opened(st)
		})
}

// check refuses flags that can never work, before anything starts.
func (f writerFlags) check() error {
	if f.maxAge < 0 || f.maxScans < 0 || f.maxIssues < 0 {
		return errors.New("--history-max-age, --history-max-scans and --history-max-issues must not be negative")
	}
	return nil
}

// startWriter records finished scans, and the decisions' changes, in the
// store from the server's cache, and sends the namespace's digests, under
// the Lease when elected, until ctx ends.
func startWriter(ctx context.Context, f writerFlags, st *store.Store, d historyDeps) error {
	informer, err := d.scans.GetInformer(ctx, &cwacv1alpha1.CwacScan{})
	if err != nil {
		return err
	}
	identity, log := podName(), d.log
	var events *issueevents.Sender
	recorded := make(chan struct{}, 1)
	if len(d.issueEvents.receivers) > 0 {
		var lister decide.Lister
		if d.decisions != nil {
			lister = d.decisions
		}
		events, err = issueevents.New(issueevents.Config{Store: st, Receivers: d.issueEvents.receivers, HTTP: d.issueEvents.http,
			Decisions: lister, Log: log, Retry: issueevents.DefaultRetry})
		if err != nil {
			return err
		}
	}
	// A recorded scan or decision event wakes the issue events' sender
	// (never blocks).
	wake := func() {
		select {
		case recorded <- struct{}{}:
		default:
		}
	}
	w, err := historywriter.NewWriter(historywriter.Config{
		Recorded: wake,
		Store:    st, Scans: mcpserver.ScanLister{Reader: d.scans, Namespace: d.namespace}, Changes: informer,
		Open: mcpserver.OpenScanResults(d.resultsRoot, d.bucket), Clientset: d.clientset, Holder: identity, Log: log,
		Retention: store.Retention{MaxAge: f.maxAge, MaxScans: f.maxScans}, MaxIssues: f.maxIssues,
	})
	if err != nil {
		return err
	}
	var sender *digestsend.Sender
	if d.digests != nil {
		sender, err = digestsend.New(digestsend.Config{Client: d.client, Informers: d.scans, Clientset: d.clientset, Store: st,
			Mail: d.digests.mail, DashboardURL: d.digests.dashboardURL, Namespace: d.namespace, Log: log, Retry: digestsend.DefaultRetry})
		if err != nil {
			return err
		}
	}
	var decisions *historywriter.DecisionRecorder
	if d.decisions != nil {
		decisions = &historywriter.DecisionRecorder{Store: st, Namespace: d.namespace, Decisions: d.decisions,
			Changes: d.decisions.Informer, Log: log, Recorded: wake}
	}
	run := func(ctx context.Context) {
		if sender != nil {
			// Digests are sent by the elected writer alone: one sender at a time.
			go func() {
				if err := sender.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
					log.Error("digests: the sender stopped", "err", err)
				}
			}()
		}
		if events != nil {
			// Sent by the elected writer alone: one sender at a time.
			go func() {
				if err := events.Run(ctx, recorded); err != nil && !errors.Is(err, context.Canceled) {
					log.Error("issue events: the sender stopped", "err", err)
				}
			}()
		}
		if decisions != nil {
			go func() {
				if err := decisions.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
					log.Error("issue history: the decisions' recorder stopped", "err", err)
				}
			}()
		}
		if err := w.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("issue history: the writer stopped", "err", err)
		}
	}
	if !f.leaderElection {
		go run(ctx)
		return nil
	}
	go historywriter.Election{Clientset: d.clientset, Namespace: d.namespace, Lease: f.lease, Identity: identity, Log: log}.Run(ctx, run)
	return nil
}

// podName names this process in the Lease and the store's lock: the pod's
// name (its host name in a cluster).
func podName() string {
	if n := os.Getenv("POD_NAME"); n != "" {
		return n
	}
	if h, err := os.Hostname(); err == nil {
		return h
	}
	return "mcp-server"
}
