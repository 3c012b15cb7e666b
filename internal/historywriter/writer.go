package historywriter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/ingest"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// Scans lists the namespace's CwacScans (the MCP server's informer cache).
type Scans interface {
	List(ctx context.Context) ([]cwacv1alpha1.CwacScan, error)
}

// Changes tells of changes to the namespace's CwacScans (the informer that
// fills the cache Scans lists).
type Changes interface {
	AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error)
	RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error
}

// ResultsOpener opens a finished scan's results directory, read-only and
// confined to the results volume; the caller calls the close function.
type ResultsOpener func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (fs.FS, func(), error)

// Config configures a Writer.
type Config struct {
	Store *store.Store
	Scans Scans
	// Changes wakes the writer when a scan becomes finished.
	Changes Changes
	Open    ResultsOpener
	// Clientset records Events on scans and reads the scan pods' images
	// (nil: neither; tests).
	Clientset kubernetes.Interface
	// Holder names this writer in the store's lock row (the pod's name).
	Holder string
	// Retention is applied after each pass that recorded a scan (zero:
	// keep everything).
	Retention store.Retention
	Log       *slog.Logger
	// A scan that fails is retried apart after BaseDelay, doubling up to
	// MaxDelay (defaults 5s and 5m), while newer scans are recorded; after
	// MaxAttempts failed attempts (default 8, about ten minutes) while the
	// store answers, it is given up.
	BaseDelay, MaxDelay time.Duration
	MaxAttempts         int
	// IngestTimeout bounds one scan's ingest (default 30m): a hung read of
	// the results volume must not stop the history for good.
	IngestTimeout time.Duration
	// Recorded, when set, is called after each scan is newly recorded (it
	// wakes the issue events' sender; it must not block).
	Recorded func()
	// MaxIssues is the largest scan, in issues as its status counts them,
	// the writer records (0: no limit). Recording holds memory for every
	// issue row: a larger scan is left out, saying so, rather than running
	// the process out of memory at every retry.
	MaxIssues int64
}

func (c *Config) defaults() {
	if c.BaseDelay <= 0 {
		c.BaseDelay = 5 * time.Second
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 5 * time.Minute
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.IngestTimeout <= 0 {
		c.IngestTimeout = 30 * time.Minute
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Holder == "" {
		c.Holder = "mcp-server"
	}
}

// Writer records finished scans in the store, oldest first. Run it in
// one process at a time (Elect).
type Writer struct {
	cfg Config
	// running is held by Run: a new leadership term's Run waits for the
	// last term's to return (it may still be rolling back an ingest).
	running sync.Mutex
	// settled are scans the writer is done with: stored, already in the
	// store, or left out for good (out of order, no results, given up).
	settled map[types.UID]bool
	// attempts counts each failing scan's attempts while the store answered.
	attempts map[types.UID]int
	// backoff spaces a failing scan's attempts exponentially; notBefore is
	// when its next attempt may start.
	backoff   workqueue.TypedRateLimiter[types.UID]
	notBefore map[types.UID]time.Time
	// warned are scans whose failure already has a Warning Event.
	warned map[types.UID]bool
	// lastErr is each failing scan's last error while the store answered.
	lastErr map[types.UID]string
	// storeDown is set when the last failure found the store not
	// answering: passes then wait for the failing scan's retry instead of
	// trying newer scans, which would fail alike (each with its Event).
	storeDown bool
	now       func() time.Time
	// pruning is held while a prune runs beside the passes: retention over
	// years of history can take minutes, and new scans are not held back
	// for it. prunes is waited for when Run returns.
	pruning atomic.Bool
	prunes  sync.WaitGroup
	// pruneStore applies retention (the store's Prune; tests replace it).
	pruneStore func(context.Context, store.Retention) (store.PruneResult, error)
}

// NewWriter returns a writer.
func NewWriter(cfg Config) (*Writer, error) {
	cfg.defaults()
	if cfg.Store == nil || cfg.Scans == nil || cfg.Changes == nil || cfg.Open == nil {
		return nil, errors.New("history: a writer needs a store, the scans, their changes and a results opener")
	}
	return &Writer{
		cfg: cfg, settled: map[types.UID]bool{}, attempts: map[types.UID]int{}, warned: map[types.UID]bool{}, lastErr: map[types.UID]string{},
		backoff:   workqueue.NewTypedItemExponentialFailureRateLimiter[types.UID](cfg.BaseDelay, cfg.MaxDelay),
		notBefore: map[types.UID]time.Time{}, now: time.Now, pruneStore: cfg.Store.Prune,
	}, nil
}

// passKey is the writer's one work item: "record every finished scan not
// yet recorded, oldest first". Scans are not queued one by one, so that a
// pass always starts from the oldest and no scan overtakes an older one
// that is being retried.
const passKey = "record-finished-scans"

// Run records every finished scan not yet in the store (the backfill),
// then each scan that becomes finished, until ctx ends.
func (w *Writer) Run(ctx context.Context) error {
	w.running.Lock()
	defer w.running.Unlock()
	defer w.prunes.Wait() // a prune ends with ctx; the next term starts clean
	// The queue's own backoff is for passes that cannot list the scans; a
	// failing scan's is the writer's (Pass says when to come back).
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](w.cfg.BaseDelay, w.cfg.MaxDelay),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "cwac-history"})
	defer queue.ShutDown()
	reg, err := w.cfg.Changes.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		// Scans listed when the handler is added are the backfill's.
		AddFunc: func(obj any, initial bool) {
			if scan, ok := obj.(*cwacv1alpha1.CwacScan); ok && !initial && Recordable(scan) {
				queue.Add(passKey)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*cwacv1alpha1.CwacScan)
			scan, ok2 := newObj.(*cwacv1alpha1.CwacScan)
			if ok1 && ok2 && Recordable(scan) && !Recordable(old) {
				queue.Add(passKey)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("history: watching scans: %w", err)
	}
	defer func() { _ = w.cfg.Changes.RemoveEventHandler(reg) }() // the informer outlives the writer
	if !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return ctx.Err()
	}
	w.cfg.Log.Info("issue history: recording finished scans", "engine", w.cfg.Store.Engine())
	queue.Add(passKey) // the backfill
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return ctx.Err()
		}
		wait, err := w.Pass(ctx)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			w.cfg.Log.Error("issue history: listing scans", "err", err)
			queue.AddRateLimited(key)
		case wait > 0:
			queue.Forget(key)
			queue.AddAfter(key, wait)
		default:
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

// Pass records every recordable scan not yet settled, oldest first. A scan
// that fails is retried apart, after its own backoff, and newer scans are
// recorded meanwhile: one scan that cannot be recorded (too large, its
// results unreadable) never holds the history back. Pass returns how long
// until the next retry is due (0: none). While the store does not answer
// it stops at the first failure, since every scan would fail alike.
func (w *Writer) Pass(ctx context.Context) (time.Duration, error) {
	list, err := w.cfg.Scans.List(ctx)
	if err != nil {
		return 0, err
	}
	pending := make([]*cwacv1alpha1.CwacScan, 0, len(list))
	for i := range list {
		if s := &list[i]; Recordable(s) && !w.settled[s.UID] {
			pending = append(pending, s)
		}
	}
	slices.SortFunc(pending, oldestFirst)
	recorded := 0
	var next time.Duration
	due := func(wait time.Duration) {
		if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
	}
	for _, scan := range pending {
		if wait := w.notBefore[scan.UID].Sub(w.now()); wait > 0 {
			due(wait)
			if w.storeDown {
				break
			}
			continue
		}
		stored, err := w.cfg.Store.HasScan(ctx, string(scan.UID))
		if err == nil {
			w.storeDown = false
		}
		if err == nil && stored {
			w.settle(scan)
			continue
		}
		if err == nil && w.overBudget(scan) {
			w.leaveOut(ctx, scan, cwacv1alpha1.ReasonHistoryIngestFailed, fmt.Sprintf(
				"not recorded in the issue history: the scan counted %d issues, more than the %d a scan may have to be recorded "+
					"(the MCP server's --history-max-issues; raise it with the server's memory). Its results stay on the volume",
				scan.Status.Summary.TotalIssues, w.cfg.MaxIssues))
			continue
		}
		if err == nil {
			err = w.record(ctx, scan)
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err == nil {
			recorded++
			continue
		}
		wait, storeDown := w.failed(ctx, scan, err)
		due(wait)
		if storeDown {
			break
		}
	}
	if recorded > 0 {
		w.startPrune(ctx)
	}
	return next, nil
}

// overBudget reports whether a scan counted more issues than the writer
// records (Config.MaxIssues).
func (w *Writer) overBudget(scan *cwacv1alpha1.CwacScan) bool {
	return w.cfg.MaxIssues > 0 && scan.Status.Summary != nil && scan.Status.Summary.TotalIssues > w.cfg.MaxIssues
}

// record ingests one scan and says so in a Normal Event.
func (w *Writer) record(ctx context.Context, scan *cwacv1alpha1.CwacScan) error {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.IngestTimeout)
	defer cancel()
	fsys, closeFn, err := w.cfg.Open(ctx, scan)
	if err != nil {
		return fmt.Errorf("opening the results: %w", err)
	}
	defer closeFn()
	start := time.Now()
	res, err := w.ingest(ctx, scan, fsys)
	if err != nil {
		return err
	}
	w.settle(scan)
	if res.AlreadyStored {
		return nil
	}
	note := fmt.Sprintf(
		"recorded in the issue history: %d organisations, %d new, %d fixed (%d more on pages not scanned), %d reopened, %d still open",
		res.Organisations, res.New, res.Fixed, res.FixedPageNotScanned, res.Reopened, res.StillOpen)
	if len(res.Skipped) > 0 {
		// Recorded without some of its results: said in a Warning Event
		// and kept for the scan's page, as a scan not recorded is.
		note += "; not read, so not in its figures: " + strings.Join(res.Skipped, "; ")
		w.noteUnrecorded(ctx, scan, store.Partial, 0, note)
	} else if err := w.cfg.Store.ClearUnrecorded(ctx, string(scan.UID)); err != nil {
		w.cfg.Log.Error("issue history: forgetting an earlier failure of a recorded scan", "scan", scan.Name, "err", err)
	}
	w.cfg.Log.Info("issue history: recorded a scan", "scan", scan.Name, "organisations", res.Organisations, "issueRows", res.IssueRows,
		"new", res.New, "fixed", res.Fixed, "pageNotScanned", res.FixedPageNotScanned, "reopened", res.Reopened,
		"skippedFiles", len(res.Skipped), "durationMs", time.Since(start).Milliseconds())
	w.event(ctx, scan, len(res.Skipped) > 0, cwacv1alpha1.ReasonHistoryRecorded, note)
	if w.cfg.Recorded != nil {
		w.cfg.Recorded()
	}
	return nil
}

// ingest records one scan's results. A fault that one scan's results
// bring out in the ingest (a panic) is that scan's failure, retried and
// then left out as any other, not the whole server's crash: the writer
// records the scans left at every start, so it crashed again at each one,
// and the dashboard with it. The store's transaction is rolled back as
// the panic unwinds.
func (w *Writer) ingest(ctx context.Context, scan *cwacv1alpha1.CwacScan, fsys fs.FS) (res ingest.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			w.cfg.Log.Error("issue history: recording a scan panicked", "scan", scan.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("an internal error in the MCP server while recording (its log has the details): %v", r)
		}
	}()
	return ingest.Ingest(ctx, w.cfg.Store, fsys, Describe(scan, w.image(ctx, scan)), ingest.Options{Holder: w.cfg.Holder})
}

// failed handles a scan that could not be recorded and returns how long
// until it is retried (0: not again) and whether the store is down. Out of
// order and no results are for good; anything else is retried with
// exponential backoff, counting attempts only while the store answers (a
// store that is down fails every scan alike). What happened is said in an
// Event on the scan and kept in the store for the scan's page.
func (w *Writer) failed(ctx context.Context, scan *cwacv1alpha1.CwacScan, err error) (time.Duration, bool) {
	log := w.cfg.Log.With("scan", scan.Name, "err", err)
	earlier := w.lastErr[scan.UID]
	switch {
	case errors.Is(err, store.ErrOutOfOrder):
		note := "not recorded in the issue history: " + err.Error() + "; recording it now would rewrite the transitions of the scans after it"
		if earlier != "" {
			note = "not recorded in the issue history: recording it failed (" + earlier +
				"), and a newer scan of the same organisation was recorded meanwhile: " + err.Error()
		}
		log.Warn("issue history: scan left out: it finished before a scan already recorded")
		w.leaveOut(ctx, scan, cwacv1alpha1.ReasonHistoryOutOfOrder, note)
		return 0, false
	case errors.Is(err, ingest.ErrNoResults):
		log.Warn("issue history: scan left out: no results")
		w.leaveOut(ctx, scan, cwacv1alpha1.ReasonHistoryIngestFailed, "not recorded in the issue history: "+err.Error())
		return 0, false
	}
	storeDown := w.cfg.Store.Ping(ctx) != nil
	w.storeDown = storeDown
	if !storeDown {
		w.attempts[scan.UID]++
		w.lastErr[scan.UID] = err.Error()
	}
	n := w.attempts[scan.UID]
	if n >= w.cfg.MaxAttempts {
		log.Error("issue history: scan given up", "attempts", n)
		w.leaveOut(ctx, scan, cwacv1alpha1.ReasonHistoryIngestFailed, fmt.Sprintf(
			"not recorded in the issue history after %d attempts: %v", n, err))
		return 0, false
	}
	wait := w.backoff.When(scan.UID)
	w.notBefore[scan.UID] = w.now().Add(wait)
	log.Error("issue history: recording a scan failed; retrying with backoff", "attempts", n, "storeDown", storeDown, "retryIn", wait.String())
	note := fmt.Sprintf("recording in the issue history failed (attempt %d of %d), retried with backoff while newer scans are recorded: %v",
		n, w.cfg.MaxAttempts, err)
	if storeDown {
		note = fmt.Sprintf("recording in the issue history failed: the store does not answer; retrying with backoff: %v", err)
	}
	if !w.warned[scan.UID] {
		w.warned[scan.UID] = true
		w.event(ctx, scan, true, cwacv1alpha1.ReasonHistoryIngestFailed, note)
	}
	if !storeDown {
		w.noteUnrecorded(ctx, scan, store.Retrying, n, note)
	}
	return wait, storeDown
}

// leaveOut settles a scan that will not be recorded, with a Warning Event
// and the store's note for its page, both saying why.
func (w *Writer) leaveOut(ctx context.Context, scan *cwacv1alpha1.CwacScan, reason, note string) {
	n := w.attempts[scan.UID]
	w.settle(scan)
	w.event(ctx, scan, true, reason, note)
	w.noteUnrecorded(ctx, scan, store.LeftOut, n, note)
}

// noteUnrecorded keeps why a scan is not recorded (or is, in part), for its page; a store
// that cannot take the note only loses that line (the Event says it too).
func (w *Writer) noteUnrecorded(ctx context.Context, scan *cwacv1alpha1.CwacScan, state store.UnrecordedState, attempts int, note string) {
	err := w.cfg.Store.NoteUnrecorded(ctx, store.UnrecordedScan{UID: string(scan.UID), Namespace: scan.Namespace, Name: scan.Name,
		State: state, Reason: note, Attempts: attempts, UpdatedAt: w.now()})
	if err != nil {
		w.cfg.Log.Error("issue history: keeping why a scan is not recorded", "scan", scan.Name, "err", err)
	}
}

func (w *Writer) settle(scan *cwacv1alpha1.CwacScan) {
	w.settled[scan.UID] = true
	delete(w.attempts, scan.UID)
	delete(w.warned, scan.UID)
	delete(w.notBefore, scan.UID)
	delete(w.lastErr, scan.UID)
	w.backoff.Forget(scan.UID)
}

// startPrune applies the retention policy in the background, unless a
// prune is running already (the next pass that records a scan starts
// another). Pruning works in small transactions of its own, so an ingest
// beside it waits at most for one of them.
func (w *Writer) startPrune(ctx context.Context) {
	if w.cfg.Retention == (store.Retention{}) || !w.pruning.CompareAndSwap(false, true) {
		return
	}
	w.prunes.Add(1)
	go func() {
		defer w.prunes.Done()
		defer w.pruning.Store(false)
		w.prune(ctx)
	}()
}

// prune applies the retention policy; it logs what it removed, and its
// failures, which the next prune retries.
func (w *Writer) prune(ctx context.Context) {
	res, err := w.pruneStore(ctx, w.cfg.Retention)
	if err != nil {
		w.cfg.Log.Error("issue history: applying retention", "err", err)
		return
	}
	if res != (store.PruneResult{}) {
		w.cfg.Log.Info("issue history: retention applied", "scans", res.Scans, "presences", res.Presences, "issues", res.Issues)
	}
}
