package historywriter

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// fakeScans is the namespace's scans, and the informer that tells of
// their changes (its handler is called by the test).
type fakeScans struct {
	mu      sync.Mutex
	scans   []cwacv1alpha1.CwacScan
	handler toolscache.ResourceEventHandler
	added   chan struct{}
}

func (f *fakeScans) List(context.Context) ([]cwacv1alpha1.CwacScan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.scans), nil
}

func (f *fakeScans) set(scans ...cwacv1alpha1.CwacScan) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scans = scans
}

func (f *fakeScans) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	f.mu.Lock()
	f.handler = h
	f.mu.Unlock()
	if f.added != nil {
		close(f.added)
	}
	return synced{}, nil
}

func (f *fakeScans) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error { return nil }

// synced is a registration whose informer has synced.
type synced struct{}

func (synced) HasSynced() bool                          { return true }
func (synced) HasSyncedChecker() toolscache.DoneChecker { return synced{} }
func (synced) Name() string                             { return "scans" }
func (synced) Done() <-chan struct{}                    { c := make(chan struct{}); close(c); return c }

// finishedScan is a Complete scan whose results are results (a directory
// name opened by the test's opener).
func finishedScan(name string, at int64, results string) cwacv1alpha1.CwacScan {
	return cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "a11y", UID: types.UID("uid-" + name)},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, ResultsPath: results, JobName: name + "-job",
			CompletionTime: &metav1.Time{Time: time.Unix(at, 0)}},
	}
}

// writerFixture is a writer over a real store and copies of the real run.
type writerFixture struct {
	st    *store.Store
	scans *fakeScans
	cs    *fake.Clientset
	w     *Writer
	dir   string
	// broken names results directories the opener refuses, and panicking
	// those whose files panic when opened.
	broken, panicking map[string]bool
	mu                sync.Mutex
	clock             time.Time
}

func newWriterFixture(t *testing.T, st *store.Store) *writerFixture {
	t.Helper()
	f := &writerFixture{st: st, scans: &fakeScans{}, dir: t.TempDir(), broken: map[string]bool{}, panicking: map[string]bool{}, clock: time.Unix(1_000_000, 0)}
	f.cs = fake.NewClientset(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "week-1-job-abc", Namespace: "a11y", Labels: map[string]string{"batch.kubernetes.io/job-name": "week-1-job"}},
		Status:     corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "cwac", ImageID: "reg/cwac@sha256:0123"}}},
	})
	// The fake API server does not generate names; the real one does.
	generated := 0
	f.cs.PrependReactor("create", "events", func(action clienttesting.Action) (bool, runtime.Object, error) {
		ev := action.(clienttesting.CreateAction).GetObject().(*eventsv1.Event)
		if ev.Name == "" {
			generated++
			ev.Name = ev.GenerateName + strconv.Itoa(generated)
		}
		return false, nil, nil
	})
	open := func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (fs.FS, func(), error) {
		f.mu.Lock()
		broken, panicking := f.broken[scan.Status.ResultsPath], f.panicking[scan.Status.ResultsPath]
		f.mu.Unlock()
		if broken {
			return nil, nil, errors.New("results directory is missing from the results volume")
		}
		if panicking {
			return panickingFS{}, func() {}, nil
		}
		return os.DirFS(f.dir + "/" + scan.Status.ResultsPath), func() {}, nil
	}
	w, err := NewWriter(Config{Store: st, Scans: f.scans, Changes: f.scans, Open: open, Clientset: f.cs, Holder: "test",
		BaseDelay: time.Second, MaxDelay: 4 * time.Second, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	w.now = func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.clock }
	f.w = w
	return f
}

func (f *writerFixture) advance(d time.Duration) {
	f.mu.Lock()
	f.clock = f.clock.Add(d)
	f.mu.Unlock()
}

// events are the Events recorded, as "<type> <reason> <scan>: <note>".
func (f *writerFixture) events(t *testing.T) []string {
	t.Helper()
	list, err := f.cs.EventsV1().Events("a11y").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(list.Items))
	for _, e := range list.Items {
		out = append(out, e.Type+" "+e.Reason+" "+e.Regarding.Name+": "+e.Note)
	}
	slices.Sort(out)
	return out
}

func (f *writerFixture) trend(t *testing.T) []store.TrendPoint {
	t.Helper()
	orgs, err := f.st.Organisations(context.Background(), []string{"a11y"})
	if err != nil || len(orgs) == 0 {
		return nil
	}
	trend, err := f.st.OrganisationTrend(context.Background(), []string{"a11y"}, orgs[0].Name, "")
	if err != nil {
		t.Fatal(err)
	}
	return trend
}

func scansOf(points []store.TrendPoint) string {
	names := make([]string, 0, len(points))
	for _, p := range points {
		names = append(names, p.Scan)
	}
	return strings.Join(names, " ")
}

// TestPassRecordsOldestFirst: a pass records every recordable scan not
// yet stored, oldest first, with the CWAC image its pod reported, and says
// so on each; a second pass adds nothing.
func TestPassRecordsOldestFirst(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			f := newWriterFixture(t, e.Open(t))
			copyRun(t, f.dir, "r")
			running := finishedScan("running", 0, "r")
			running.Status.Phase = cwacv1alpha1.PhaseRunning
			noPages := finishedScan("no-pages", 50, "r")
			noPages.Status.Phase, noPages.Status.Summary = cwacv1alpha1.PhaseFailed, &cwacv1alpha1.ScanSummary{}
			failedWithPages := finishedScan("week-3", 300, "r")
			failedWithPages.Status.Phase, failedWithPages.Status.Summary = cwacv1alpha1.PhaseFailed, &cwacv1alpha1.ScanSummary{PagesScanned: 4}
			f.scans.set(failedWithPages, finishedScan("week-2", 200, "r"), running, noPages, finishedScan("week-1", 100, "r"))

			if delay, err := f.w.Pass(context.Background()); delay != 0 || err != nil {
				t.Fatalf("pass: %v %v", delay, err)
			}
			trend := f.trend(t)
			if got := scansOf(trend); got != "a11y/week-1 a11y/week-2 a11y/week-3" {
				t.Errorf("recorded %q, want the three finished scans oldest first", got)
			}
			if len(trend) == 3 && (trend[0].Engine.CWACImageDigest != "reg/cwac@sha256:0123" || trend[1].Engine.CWACImageDigest != "") {
				t.Errorf("images: %+v, %+v (want week-1's pod's, and none for week-2 whose pod is gone)", trend[0].Engine, trend[1].Engine)
			}
			events := f.events(t)
			if len(events) != 3 || !strings.HasPrefix(events[0], "Normal HistoryRecorded week-1: recorded in the issue history: 1 organisations") {
				t.Errorf("events: %q", events)
			}

			if delay, err := f.w.Pass(context.Background()); delay != 0 || err != nil || len(f.events(t)) != 3 || len(f.trend(t)) != 3 {
				t.Errorf("a second pass: %v %v, %d events", delay, err, len(f.events(t)))
			}
		})
	}
}

// TestPassRetriesAFailingScanApart: a scan whose results cannot be read is
// retried with growing waits while newer scans are recorded, until it is
// given up; a Warning Event says so when it first fails and when it is
// given up, and the store keeps why for the scan's page.
func TestPassRetriesAFailingScanApart(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	copyRun(t, f.dir, "r")
	f.broken["gone"] = true
	f.scans.set(finishedScan("week-1", 100, "gone"), finishedScan("week-2", 200, "r"))
	ctx := context.Background()

	waits := make([]time.Duration, 0, 2)
	for i := range 2 {
		delay, err := f.w.Pass(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, delay)
		if got := scansOf(f.trend(t)); got != "a11y/week-2" {
			t.Fatalf("pass %d recorded %q, want week-2 while week-1 is retried apart", i+1, got)
		}
		u, err := f.st.Unrecorded(ctx, "uid-week-1")
		if err != nil || u == nil || u.State != store.Retrying || u.Attempts != i+1 || !strings.Contains(u.Reason, "missing from the results volume") {
			t.Errorf("pass %d: the store's note on week-1 is %+v (%v)", i+1, u, err)
		}
		// Too early: the pass waits without trying (no attempt counted).
		if again, _ := f.w.Pass(ctx); again != delay {
			t.Errorf("a pass before the retry is due: delay %v, want %v", again, delay)
		}
		f.advance(delay)
	}
	if !slices.Equal(waits, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("waits %v, want 1s then 2s", waits)
	}
	events := f.events(t)
	if len(events) != 2 || !strings.HasPrefix(events[1], "Warning HistoryIngestFailed week-1: recording in the issue history failed (attempt 1 of 3)") ||
		!strings.Contains(events[1], "missing from the results volume") || !strings.HasPrefix(events[0], "Normal HistoryRecorded week-2") {
		t.Errorf("events after two failures: %q", events)
	}
	// The third attempt is the last: week-1 is given up.
	if delay, err := f.w.Pass(ctx); delay != 0 || err != nil {
		t.Fatalf("the last attempt: %v %v", delay, err)
	}
	events = f.events(t)
	// (sorted: "not recorded" before "recording")
	if len(events) != 3 || !strings.HasPrefix(events[1], "Warning HistoryIngestFailed week-1: not recorded in the issue history after 3 attempts") {
		t.Errorf("events: %q", events)
	}
	if u, err := f.st.Unrecorded(ctx, "uid-week-1"); err != nil || u == nil || u.State != store.LeftOut || u.Attempts != 3 ||
		!strings.HasPrefix(u.Reason, "not recorded in the issue history after 3 attempts") {
		t.Errorf("the store's note on week-1 given up: %+v (%v)", u, err)
	}

	checkLeftOutAfterRestart(t, f)
}

// panickingFS panics when a file is opened, as a fault in the ingest
// would.
type panickingFS struct{}

func (panickingFS) Open(string) (fs.File, error) { panic("a fault in reading the results") }

// TestPassTurnsAPanicIntoTheScansFailure: a scan whose ingest panics fails
// as a scan whose results cannot be read does, said in its Event and in
// the store's note, while the pass goes on and records the scans after it.
func TestPassTurnsAPanicIntoTheScansFailure(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	copyRun(t, f.dir, "r")
	f.panicking["faulty"] = true
	f.scans.set(finishedScan("week-1", 100, "faulty"), finishedScan("week-2", 200, "r"))
	ctx := context.Background()
	if delay, err := f.w.Pass(ctx); delay != time.Second || err != nil {
		t.Fatalf("pass: %v %v, want a retry of week-1 in 1s", delay, err)
	}
	if got := scansOf(f.trend(t)); got != "a11y/week-2" {
		t.Errorf("recorded %q, want week-2", got)
	}
	events := f.events(t)
	if len(events) != 2 || !strings.HasPrefix(events[1], "Warning HistoryIngestFailed week-1: recording in the issue history failed (attempt 1 of 3)") ||
		!strings.Contains(events[1], "an internal error in the MCP server while recording (its log has the details): a fault in reading the results") {
		t.Errorf("events: %q", events)
	}
	if u, err := f.st.Unrecorded(ctx, "uid-week-1"); err != nil || u == nil || u.State != store.Retrying || u.Attempts != 1 {
		t.Errorf("the store's note on week-1: %+v (%v)", u, err)
	}
}

// checkLeftOutAfterRestart: the volume is back, too late: recording week-1
// now would rewrite week-2's transitions, so a new writer (a restart's
// backfill) leaves it out for good.
func checkLeftOutAfterRestart(t *testing.T, f *writerFixture) {
	t.Helper()
	ctx := context.Background()
	f.broken["gone"] = false
	copyRun(t, f.dir, "gone")
	restarted := newWriterFixture(t, f.st)
	restarted.scans, restarted.w.cfg.Scans, restarted.dir = f.scans, f.scans, f.dir
	if delay, err := restarted.w.Pass(ctx); delay != 0 || err != nil {
		t.Fatalf("a pass after a restart: %v %v", delay, err)
	}
	events := restarted.events(t)
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning HistoryOutOfOrder week-1: not recorded in the issue history: organisation") {
		t.Errorf("events after the restart: %q", events)
	}
	if delay, err := restarted.w.Pass(ctx); delay != 0 || err != nil || len(restarted.events(t)) != 1 {
		t.Errorf("an out-of-order scan was tried again: %v %v", delay, err)
	}
}

// TestPassLeavesOutScansOverBudget: a scan whose status counts more issues
// than MaxIssues is left out at once, saying so in an Event and in the
// store's note, and never tried again; a scan within it is recorded.
func TestPassLeavesOutScansOverBudget(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	f.w.cfg.MaxIssues = 100
	copyRun(t, f.dir, "r")
	large, small := finishedScan("large", 100, "r"), finishedScan("small", 200, "r")
	large.Status.Summary = &cwacv1alpha1.ScanSummary{PagesScanned: 4, TotalIssues: 101}
	small.Status.Summary = &cwacv1alpha1.ScanSummary{PagesScanned: 4, TotalIssues: 100}
	f.scans.set(large, small)
	ctx := context.Background()
	for range 2 {
		if delay, err := f.w.Pass(ctx); delay != 0 || err != nil {
			t.Fatalf("pass: %v %v", delay, err)
		}
	}
	if got := scansOf(f.trend(t)); got != "a11y/small" {
		t.Errorf("recorded %q, want the small scan alone", got)
	}
	events := f.events(t)
	want := "Warning HistoryIngestFailed large: not recorded in the issue history: the scan counted 101 issues, more than the 100"
	if len(events) != 2 || !strings.HasPrefix(events[1], want) || !strings.Contains(events[1], "--history-max-issues") {
		t.Errorf("events: %q", events)
	}
	if u, err := f.st.Unrecorded(ctx, "uid-large"); err != nil || u == nil || u.State != store.LeftOut || !strings.Contains(u.Reason, "counted 101 issues") {
		t.Errorf("the store's note on the large scan: %+v %v", u, err)
	}
}

// TestPassSaysWhatItDidNotRead: a scan whose results hold a CSV that is a
// link is recorded without its rows, with a Warning Event and a note for
// the scan's page naming the file; a scan recorded whole has neither.
func TestPassSaysWhatItDidNotRead(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	copyRun(t, f.dir, "linked")
	copyRun(t, f.dir, "whole")
	linked := filepath.Join(f.dir, "linked", "reflow_audit.csv")
	if err := os.Rename(linked, linked+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("reflow_audit.csv.real", linked); err != nil {
		t.Fatal(err)
	}
	f.scans.set(finishedScan("week-1", 100, "linked"), finishedScan("week-2", 200, "whole"))
	ctx := context.Background()
	if delay, err := f.w.Pass(ctx); delay != 0 || err != nil {
		t.Fatalf("pass: %v %v", delay, err)
	}
	if got := scansOf(f.trend(t)); got != "a11y/week-1 a11y/week-2" {
		t.Errorf("recorded %q", got)
	}
	events := f.events(t)
	want := "; not read, so not in its figures: reflow_audit.csv is not a regular file (L---------)"
	if len(events) != 2 || !strings.HasPrefix(events[1], "Warning HistoryRecorded week-1: recorded in the issue history") ||
		!strings.HasSuffix(events[1], want) || !strings.HasPrefix(events[0], "Normal HistoryRecorded week-2") {
		t.Errorf("events: %q", events)
	}
	if u, err := f.st.Unrecorded(ctx, "uid-week-1"); err != nil || u == nil || u.State != store.Partial || !strings.HasSuffix(u.Reason, want) {
		t.Errorf("the store's note on week-1: %+v %v", u, err)
	}
	if u, err := f.st.Unrecorded(ctx, "uid-week-2"); err != nil || u != nil {
		t.Errorf("the store's note on week-2, recorded whole: %+v %v", u, err)
	}
}

// TestPassRecordsARetryOfOtherOrganisations: a failing scan is recorded
// when its retry succeeds after a newer scan of other organisations was
// recorded, and its note is removed; one of the same organisation that
// failed and was overtaken is left out, saying both why it failed and why
// it is not tried again.
func TestPassRecordsARetryOfOtherOrganisations(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	copyRunAs(t, f.dir, "other", "Other Org")
	copyRun(t, f.dir, "r")
	f.broken["other"], f.broken["r1"] = true, true
	f.scans.set(finishedScan("other-1", 100, "other"), finishedScan("week-1", 150, "r1"), finishedScan("week-2", 200, "r"))
	ctx := context.Background()
	delay, err := f.w.Pass(ctx)
	if err != nil || delay != time.Second {
		t.Fatalf("first pass: %v %v", delay, err)
	}
	f.broken["other"], f.broken["r1"] = false, false
	copyRun(t, f.dir, "r1")
	f.advance(delay)
	if delay, err := f.w.Pass(ctx); delay != 0 || err != nil {
		t.Fatalf("the retries: %v %v", delay, err)
	}
	orgs, err := f.st.Organisations(ctx, []string{"a11y"})
	if err != nil || len(orgs) != 2 {
		t.Fatalf("organisations: %+v %v", orgs, err)
	}
	if u, err := f.st.Unrecorded(ctx, "uid-other-1"); u != nil || err != nil {
		t.Errorf("the recorded scan's note was kept: %+v %v", u, err)
	}
	u, err := f.st.Unrecorded(ctx, "uid-week-1")
	if err != nil || u == nil || u.State != store.LeftOut ||
		!strings.Contains(u.Reason, "recording it failed (opening the results: results directory is missing") ||
		!strings.Contains(u.Reason, "a newer scan of the same organisation was recorded meanwhile") {
		t.Errorf("the overtaken scan's note: %+v %v", u, err)
	}
	events := f.events(t)
	if len(events) != 5 || !slices.ContainsFunc(events, func(e string) bool {
		return strings.HasPrefix(e, "Warning HistoryOutOfOrder week-1: not recorded in the issue history: recording it failed")
	}) {
		t.Errorf("events: %q", events)
	}
}

// TestPassWhileTheStoreIsDown: attempts are not counted while the store
// does not answer: nothing is given up, the waits still grow, and newer
// scans are not tried meanwhile (each would fail alike, with its Event).
func TestPassWhileTheStoreIsDown(t *testing.T) {
	st, err := store.Open(context.Background(), storetest.SQLiteDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	f := newWriterFixture(t, st)
	copyRun(t, f.dir, "r")
	f.scans.set(finishedScan("week-1", 100, "r"), finishedScan("week-2", 200, "r"))
	_ = st.Close()
	waits := make([]time.Duration, 0, 5)
	for range 5 {
		delay, err := f.w.Pass(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, delay)
		// A pass before the retry is due (a scan finished meanwhile) does
		// not try the newer scan, which would fail alike.
		if again, err := f.w.Pass(context.Background()); again != delay || err != nil {
			t.Errorf("a pass before the retry: %v %v, want %v", again, err, delay)
		}
		f.advance(delay)
	}
	if !slices.Equal(waits, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}) {
		t.Errorf("waits %v: want doubling to the maximum, never given up", waits)
	}
	if n := f.w.attempts["uid-week-1"]; n != 0 {
		t.Errorf("%d attempts counted while the store was down", n)
	}
	if _, tried := f.w.notBefore["uid-week-2"]; tried {
		t.Error("the newer scan was tried while the store was down")
	}
	if events := f.events(t); len(events) != 1 || !strings.Contains(events[0], "retrying with backoff") {
		t.Errorf("events: %q", events)
	}
}

// TestRunBackfillsThenFollowsChanges: Run records what is finished when it
// starts, then a scan that becomes finished, and stops with its context.
func TestRunBackfillsThenFollowsChanges(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	copyRun(t, f.dir, "r")
	f.scans.added = make(chan struct{})
	f.scans.set(finishedScan("week-1", 100, "r"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.w.Run(ctx) }()
	<-f.scans.added
	waitFor(t, func() bool { return len(f.trend(t)) == 1 })

	running := finishedScan("week-2", 200, "r")
	running.Status.Phase = cwacv1alpha1.PhaseRunning
	finished := finishedScan("week-2", 200, "r")
	// Scans listed when the handler is added are the backfill's, and a
	// change that does not finish a scan wakes nothing.
	f.scans.handler.OnAdd(&finished, true)
	f.scans.handler.OnUpdate(&finished, &finished)
	f.scans.set(finishedScan("week-1", 100, "r"), finished)
	time.Sleep(50 * time.Millisecond)
	if len(f.trend(t)) != 1 {
		t.Fatal("a scan was recorded without a change that finished it")
	}
	f.scans.handler.OnUpdate(&running, &finished)
	waitFor(t, func() bool { return len(f.trend(t)) == 2 })

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
}

// waitFor waits up to ten seconds for the writer to record what cond checks.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	wait.For(t, "the writer", 10*time.Second, func() (bool, string) { return cond(), "" })
}

func TestNewWriterNeedsItsParts(t *testing.T) {
	if _, err := NewWriter(Config{}); err == nil {
		t.Error("a writer without a store was made")
	}
}

// TestPruneBesideThePasses: retention runs beside the passes, one prune at
// a time: a pass that records scans returns while the prune it started is
// still running, and the next pass records its scan without waiting.
func TestPruneBesideThePasses(t *testing.T) {
	f := newWriterFixture(t, storetest.OpenSQLite(t))
	f.w.cfg.Retention = store.Retention{MaxScans: 1}
	release, started := make(chan struct{}), make(chan struct{}, 2)
	var prunes atomic.Int32
	f.w.pruneStore = func(ctx context.Context, r store.Retention) (store.PruneResult, error) {
		prunes.Add(1)
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return f.st.Prune(ctx, r)
	}
	copyRun(t, f.dir, "r")
	f.scans.set(finishedScan("week-1", 100, "r"), finishedScan("week-2", 200, "r"))
	if _, err := f.w.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The pass has returned; its prune runs on in the background (waited
	// for here: it starts when the scheduler gets to it).
	<-started
	// The prune is held; a newer scan is recorded meanwhile, and starts no
	// second prune.
	f.scans.set(finishedScan("week-1", 100, "r"), finishedScan("week-2", 200, "r"), finishedScan("week-3", 300, "r"))
	if _, err := f.w.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := scansOf(f.trend(t)); got != "a11y/week-1 a11y/week-2 a11y/week-3" {
		t.Errorf("while the prune is held: %q, want every scan recorded", got)
	}
	close(release)
	f.w.prunes.Wait()
	// Counted once every prune the passes started has ended, so a second
	// prune started beside the first cannot be missed by starting late.
	if n := prunes.Load(); n != 1 {
		t.Errorf("%d prunes started, want one at a time", n)
	}
	if got := scansOf(f.trend(t)); got != "a11y/week-3" {
		t.Errorf("after the prune: %q, want the newest scan alone (maxScans 1)", got)
	}
	if f.w.pruning.Load() {
		t.Error("still marked as pruning after the prune ended")
	}
}
