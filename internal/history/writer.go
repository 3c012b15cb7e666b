package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
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
	// A scan that fails is retried after BaseDelay, doubling up to
	// MaxDelay (defaults 5s and 5m); after MaxAttempts failed attempts
	// (default 8, about ten minutes) while the store answers, it is given
	// up and newer scans go on.
	BaseDelay, MaxDelay time.Duration
	MaxAttempts         int
	// IngestTimeout bounds one scan's ingest (default 30m): a hung read of
	// the results volume must not stop the history for good.
	IngestTimeout time.Duration
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
	now    func() time.Time
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
		cfg: cfg, settled: map[types.UID]bool{}, attempts: map[types.UID]int{}, warned: map[types.UID]bool{},
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

// Pass records every recordable scan not yet settled, oldest first. When
// the oldest left failed and is to be retried, it stops there (newer scans
// wait for it) and returns how long until that retry.
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
	for _, scan := range pending {
		if wait := w.notBefore[scan.UID].Sub(w.now()); wait > 0 {
			return wait, nil
		}
		stored, err := w.cfg.Store.HasScan(ctx, string(scan.UID))
		if err == nil && stored {
			w.settle(scan)
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
		if wait := w.failed(ctx, scan, err); wait > 0 {
			return wait, nil
		}
	}
	if recorded > 0 {
		w.startPrune(ctx)
	}
	return 0, nil
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
	res, err := ingest.Ingest(ctx, w.cfg.Store, fsys, Describe(scan, w.image(ctx, scan)), ingest.Options{Holder: w.cfg.Holder})
	if err != nil {
		return err
	}
	w.settle(scan)
	if res.AlreadyStored {
		return nil
	}
	w.cfg.Log.Info("issue history: recorded a scan", "scan", scan.Name, "organisations", res.Organisations, "issueRows", res.IssueRows,
		"new", res.New, "fixed", res.Fixed, "pageNotScanned", res.FixedPageNotScanned, "reopened", res.Reopened,
		"durationMs", time.Since(start).Milliseconds())
	w.event(ctx, scan, false, cwacv1alpha1.ReasonHistoryRecorded, fmt.Sprintf(
		"recorded in the issue history: %d organisations, %d new, %d fixed (%d more on pages not scanned), %d reopened, %d still open",
		res.Organisations, res.New, res.Fixed, res.FixedPageNotScanned, res.Reopened, res.StillOpen))
	return nil
}

// failed handles a scan that could not be recorded and returns how long
// until it is retried (0: go on without it). Out of order and no results
// are for good; anything else is retried with exponential backoff,
// counting attempts only while the store answers (a store that is down
// fails every scan alike, and nothing could go on).
func (w *Writer) failed(ctx context.Context, scan *cwacv1alpha1.CwacScan, err error) time.Duration {
	log := w.cfg.Log.With("scan", scan.Name, "err", err)
	switch {
	case errors.Is(err, store.ErrOutOfOrder):
		w.settle(scan)
		log.Warn("issue history: scan left out: it finished before a scan already recorded")
		w.event(ctx, scan, true, cwacv1alpha1.ReasonHistoryOutOfOrder, "not recorded in the issue history: "+err.Error()+
			"; recording it now would rewrite the transitions of the scans after it")
		return 0
	case errors.Is(err, ingest.ErrNoResults):
		w.settle(scan)
		log.Warn("issue history: scan left out: no results")
		w.event(ctx, scan, true, cwacv1alpha1.ReasonHistoryIngestFailed, "not recorded in the issue history: "+err.Error())
		return 0
	}
	storeDown := w.cfg.Store.DB().PingContext(ctx) != nil
	if !storeDown {
		w.attempts[scan.UID]++
	}
	n := w.attempts[scan.UID]
	if n >= w.cfg.MaxAttempts {
		w.settle(scan)
		log.Error("issue history: scan given up", "attempts", n)
		w.event(ctx, scan, true, cwacv1alpha1.ReasonHistoryIngestFailed, fmt.Sprintf(
			"not recorded in the issue history after %d attempts; newer scans go on without it: %v", n, err))
		return 0
	}
	wait := w.backoff.When(scan.UID)
	w.notBefore[scan.UID] = w.now().Add(wait)
	log.Error("issue history: recording a scan failed; retrying with backoff", "attempts", n, "storeDown", storeDown, "retryIn", wait.String())
	if !w.warned[scan.UID] {
		w.warned[scan.UID] = true
		w.event(ctx, scan, true, cwacv1alpha1.ReasonHistoryIngestFailed, fmt.Sprintf(
			"recording in the issue history failed, retrying with backoff (newer scans wait): %v", err))
	}
	return wait
}

func (w *Writer) settle(scan *cwacv1alpha1.CwacScan) {
	w.settled[scan.UID] = true
	delete(w.attempts, scan.UID)
	delete(w.warned, scan.UID)
	delete(w.notBefore, scan.UID)
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
