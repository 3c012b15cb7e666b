package urlcheck

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// fakeChecks stands in for the policy: a URL starting "https://deny" is
// refused, "https://slow" waits until its check is cancelled (a name that
// never resolves), "https://held" waits until the test releases it (and
// "https://heldeny" is then refused), and
// every other URL is allowed at once. It records the URLs it was asked
// about, in order, and those cancelled.
type fakeChecks struct {
	mu        sync.Mutex
	started   []string
	cancelled []string
	release   map[string]chan struct{}
	startedCh chan string
}

func newFakeChecks() *fakeChecks {
	return &fakeChecks{release: map[string]chan struct{}{}, startedCh: make(chan string, 1000)}
}

func (f *fakeChecks) releaseOf(url string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.release[url]
	if !ok {
		ch = make(chan struct{})
		f.release[url] = ch
	}
	return ch
}

func (f *fakeChecks) check(ctx context.Context, url string) *urlpolicy.Denial {
	f.mu.Lock()
	f.started = append(f.started, url)
	f.mu.Unlock()
	f.startedCh <- url
	wait := func(release <-chan struct{}) bool {
		select {
		case <-ctx.Done():
			f.mu.Lock()
			f.cancelled = append(f.cancelled, url)
			f.mu.Unlock()
			return false
		case <-release:
			return true
		}
	}
	switch {
	case strings.HasPrefix(url, "https://deny"):
		return &urlpolicy.Denial{URL: url, Rule: urlpolicy.RuleLoopback, Detail: "refused"}
	case strings.HasPrefix(url, "https://slow"):
		wait(nil)
		return &urlpolicy.Denial{URL: url, Rule: urlpolicy.RuleUnresolvable, Detail: "cancelled"}
	case strings.HasPrefix(url, "https://held"):
		if !wait(f.releaseOf(url)) {
			return &urlpolicy.Denial{URL: url, Rule: urlpolicy.RuleUnresolvable, Detail: "cancelled"}
		}
		if strings.HasPrefix(url, "https://heldeny") {
			return &urlpolicy.Denial{URL: url, Rule: urlpolicy.RuleLoopback, Detail: "refused"}
		}
	}
	return nil
}

func (f *fakeChecks) startedURLs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.started...)
}

func (f *fakeChecks) wasCancelled(url string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, u := range f.cancelled {
		if u == url {
			return true
		}
	}
	return false
}

// waitStarted waits for the check of url to start.
func (f *fakeChecks) waitStarted(t *testing.T, url string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		for _, u := range f.startedURLs() {
			if u == url {
				return
			}
		}
		select {
		case <-f.startedCh:
		case <-deadline:
			t.Fatalf("the check of %s never started; started: %v", url, f.startedURLs())
		}
	}
}

// decisions records the pool's notifications.
type decisions struct {
	mu    sync.Mutex
	count map[Scan]int
	ch    chan Scan
}

func newDecisions() *decisions { return &decisions{count: map[Scan]int{}, ch: make(chan Scan, 100)} }

func (d *decisions) decided(s Scan) {
	d.mu.Lock()
	d.count[s]++
	d.mu.Unlock()
	d.ch <- s
}

func (d *decisions) times(s Scan) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.count[s]
}

// runPool starts a pool and stops it when the test ends.
func runPool(t *testing.T, f *fakeChecks, limits Limits) (*Pool, *decisions) {
	t.Helper()
	d := newDecisions()
	p := New(f.check, limits, d.decided)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return p, d
}

// verdictOf waits for the scan's verdict.
func verdictOf(t *testing.T, p *Pool, d *decisions, s Scan) Verdict {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if v, ok := p.Verdict(s); ok {
			return v
		}
		select {
		case <-d.ch:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no verdict for %v", s)
		}
	}
}

func urls(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://%s-%d.example/", prefix, i)
	}
	return out
}

func TestLimitsDefaults(t *testing.T) {
	for _, tt := range []struct {
		in, want Limits
	}{
		{Limits{}, Limits{Checks: 32, PerNamespace: 16, PerScan: 8}},
		{Limits{Checks: 1}, Limits{Checks: 1, PerNamespace: 1, PerScan: 1}},
		{Limits{Checks: 3}, Limits{Checks: 3, PerNamespace: 1, PerScan: 1}},
		{Limits{Checks: 64}, Limits{Checks: 64, PerNamespace: 32, PerScan: 8}},
		{Limits{Checks: 10, PerNamespace: 20, PerScan: 30}, Limits{Checks: 10, PerNamespace: 10, PerScan: 10}},
		{Limits{Checks: 10, PerNamespace: 4, PerScan: 2}, Limits{Checks: 10, PerNamespace: 4, PerScan: 2}},
		{Limits{Checks: -1, PerNamespace: -1, PerScan: -1}, Limits{Checks: 32, PerNamespace: 16, PerScan: 8}},
	} {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("%+v: %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestBefore(t *testing.T) {
	for _, tt := range []struct {
		held, otherHeld int
		turn, otherTurn uint64
		seq, otherSeq   uint64
		want            bool
		why             string
	}{
		{0, 1, 9, 1, 9, 1, true, "fewer held wins over an older turn and an earlier arrival"},
		{2, 1, 0, 5, 0, 5, false, "more held loses"},
		{1, 1, 3, 4, 9, 1, true, "equal held: the older turn wins"},
		{1, 1, 4, 3, 1, 9, false, "equal held: the newer turn loses"},
		{1, 1, 3, 3, 1, 2, true, "equal held and turn: earlier arrival wins"},
		{1, 1, 3, 3, 2, 1, false, "equal held and turn: later arrival loses"},
		{1, 1, 3, 3, 2, 2, false, "the same candidate is not before itself"},
	} {
		if got := before(tt.held, tt.turn, tt.seq, tt.otherHeld, tt.otherTurn, tt.otherSeq); got != tt.want {
			t.Errorf("%s: %v", tt.why, got)
		}
	}
}

// The verdict names the earliest refused URL in the scan's order, even
// when a later one is refused first; URLs after a known refusal are not
// checked, and later checks in flight are cancelled.
func TestVerdictIsTheEarliestRefusal(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{Checks: 3, PerScan: 3, PerNamespace: 3})
	scan := Scan{Namespace: "a", Name: "s", UID: "1"}
	list := []string{"https://heldeny-0.example/", "https://deny-1.example/", "https://slow-2.example/", "https://ok-3.example/"}
	p.Submit(scan, list, time.Minute)
	f.waitStarted(t, "https://slow-2.example/")
	deadline := time.Now().Add(5 * time.Second)
	for !f.wasCancelled("https://slow-2.example/") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !f.wasCancelled("https://slow-2.example/") {
		t.Error("the check of a URL after a refusal was left running")
	}
	if _, ok := p.Verdict(scan); ok {
		t.Fatal("a verdict while an earlier URL is still being checked")
	}
	close(f.releaseOf("https://heldeny-0.example/"))
	v := verdictOf(t, p, d, scan)
	if v.TimedOut || v.Denial == nil || v.Denial.URL != "https://heldeny-0.example/" {
		t.Fatalf("verdict %+v, want the refusal of heldeny-0, the earliest", v)
	}
	for _, u := range f.startedURLs() {
		if u == "https://ok-3.example/" {
			t.Error("a URL after a known refusal was checked")
		}
	}
	if n := d.times(scan); n != 1 {
		t.Errorf("decided %d times, want once", n)
	}
}

func TestVerdicts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		urls     []string
		budget   time.Duration
		timedOut bool
		denied   string
	}{
		{name: "every URL allowed", urls: urls("ok", 20), budget: time.Minute},
		{name: "no URL", budget: time.Minute},
		{name: "one refused", urls: []string{"https://ok-0.example/", "https://deny-1.example/"}, budget: time.Minute, denied: "https://deny-1.example/"},
		{name: "the budget runs out", urls: []string{"https://ok-0.example/", "https://slow-1.example/"}, budget: 50 * time.Millisecond, timedOut: true},
		{
			name: "a refusal before a slow URL is known at once", urls: []string{"https://deny-0.example/", "https://slow-1.example/"},
			budget: time.Minute, denied: "https://deny-0.example/",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeChecks()
			p, d := runPool(t, f, Limits{})
			scan := Scan{Namespace: "ns", Name: tt.name, UID: "u"}
			p.Submit(scan, tt.urls, tt.budget)
			v := verdictOf(t, p, d, scan)
			if v.TimedOut != tt.timedOut {
				t.Errorf("TimedOut %v, want %v", v.TimedOut, tt.timedOut)
			}
			switch {
			case tt.denied == "" && v.Denial != nil:
				t.Errorf("denied %+v, want allowed", v.Denial)
			case tt.denied != "" && (v.Denial == nil || v.Denial.URL != tt.denied):
				t.Errorf("denial %+v, want %s", v.Denial, tt.denied)
			}
			if got := len(f.startedURLs()); tt.denied == "" && !tt.timedOut && got != len(tt.urls) {
				t.Errorf("%d URLs checked, want %d", got, len(tt.urls))
			}
			if n := d.times(scan); n != 1 {
				t.Errorf("decided %d times, want once", n)
			}
		})
	}
}

// The budget runs from a scan's first check: time spent waiting for its
// turn behind other scans is not counted against it.
func TestBudgetStartsAtTheFirstCheck(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{Checks: 1})
	holder := Scan{Namespace: "ns", Name: "holder", UID: "u"}
	p.Submit(holder, []string{"https://held-0.example/"}, time.Minute)
	f.waitStarted(t, "https://held-0.example/")
	waiter := Scan{Namespace: "ns", Name: "waiter", UID: "u"}
	p.Submit(waiter, []string{"https://held-1.example/"}, 100*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	if _, ok := p.Verdict(waiter); ok {
		t.Fatal("a scan timed out while it waited for its first turn")
	}
	close(f.releaseOf("https://held-0.example/"))
	verdictOf(t, p, d, holder)
	if v := verdictOf(t, p, d, waiter); !v.TimedOut {
		t.Errorf("verdict %+v, want TimedOut 100ms after its first check began", v)
	}
}

// A scan that times out has its checks in flight cancelled.
func TestTimeOutCancelsChecks(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{})
	scan := Scan{Namespace: "ns", Name: "slow", UID: "u"}
	p.Submit(scan, urls("slow", 3), 50*time.Millisecond)
	if v := verdictOf(t, p, d, scan); !v.TimedOut {
		t.Fatalf("verdict %+v, want TimedOut", v)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !f.wasCancelled("https://slow-2.example/") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !f.wasCancelled("https://slow-2.example/") {
		t.Error("a check of a timed-out scan kept running")
	}
}

// Eight scans of slow URLs in one namespace hold its share; a scan in
// another namespace, submitted after them, is checked at once.
func TestSlowNamespaceLeavesRoomForOthers(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{Checks: 8, PerNamespace: 4, PerScan: 2})
	for i := range 8 {
		p.Submit(Scan{Namespace: "slow", Name: fmt.Sprint("s", i), UID: "u"}, urls(fmt.Sprint("slow-", i), 400), time.Minute)
	}
	slowStarted := func() int {
		n := 0
		for _, u := range f.startedURLs() {
			if strings.HasPrefix(u, "https://slow") {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(5 * time.Second)
	for slowStarted() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	other := Scan{Namespace: "other", Name: "normal", UID: "u"}
	p.Submit(other, []string{"https://ok.example/"}, time.Minute)
	if v := verdictOf(t, p, d, other); v.Denial != nil || v.TimedOut {
		t.Fatalf("the other namespace's scan: %+v", v)
	}
	if n := slowStarted(); n != 4 {
		t.Errorf("%d checks of the slow namespace started, want its share of 4", n)
	}
}

// Within a namespace the next free place goes to the scan holding the
// fewest: a scan that arrives after two that hold places gets the next
// one, ahead of both.
func TestNewcomerIsNextInItsNamespace(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{Checks: 4, PerNamespace: 4, PerScan: 2})
	a := Scan{Namespace: "ns", Name: "a", UID: "u"}
	b := Scan{Namespace: "ns", Name: "b", UID: "u"}
	p.Submit(a, []string{"https://held-a0.example/", "https://held-a1.example/", "https://held-a2.example/"}, time.Minute)
	p.Submit(b, []string{"https://held-b0.example/", "https://held-b1.example/", "https://held-b2.example/"}, time.Minute)
	f.waitStarted(t, "https://held-b1.example/")
	c := Scan{Namespace: "ns", Name: "c", UID: "u"}
	p.Submit(c, []string{"https://ok-c.example/"}, time.Minute)
	time.Sleep(50 * time.Millisecond)
	if _, ok := p.Verdict(c); ok {
		t.Fatal("c was checked while every place was held: the test proves nothing")
	}
	close(f.releaseOf("https://held-a0.example/"))
	if v := verdictOf(t, p, d, c); v.Denial != nil {
		t.Fatalf("c: %+v", v)
	}
	started := f.startedURLs()
	if started[4] != "https://ok-c.example/" {
		t.Errorf("the freed place went to %s, want the newcomer's URL; order %v", started[4], started)
	}
}

// Submitting a scan again does nothing; Forget drops its verdict and
// cancels its checks.
func TestSubmitOnceAndForget(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{})
	done := Scan{Namespace: "ns", Name: "done", UID: "u"}
	p.Submit(done, urls("ok", 3), time.Minute)
	verdictOf(t, p, d, done)
	p.Submit(done, urls("ok", 3), time.Minute)
	if got := len(f.startedURLs()); got != 3 {
		t.Errorf("%d checks after submitting twice, want 3", got)
	}
	if _, ok := p.Verdict(Scan{Namespace: "ns", Name: "done", UID: "other"}); ok {
		t.Error("a verdict given for another UID of the same name")
	}
	p.Forget(Scan{Namespace: "ns", Name: "done"}) // gone: its UID is not known
	if _, ok := p.Verdict(done); ok {
		t.Error("a forgotten scan still has a verdict")
	}

	// A scan made again under the same name is checked anew.
	first := Scan{Namespace: "ns", Name: "again", UID: "1"}
	p.Submit(first, []string{"https://slow-first.example/"}, time.Minute)
	f.waitStarted(t, "https://slow-first.example/")
	second := Scan{Namespace: "ns", Name: "again", UID: "2"}
	p.Submit(second, []string{"https://ok-second.example/"}, time.Minute)
	if v := verdictOf(t, p, d, second); v.Denial != nil {
		t.Errorf("the second scan of the name: %+v", v)
	}
	if _, ok := p.Verdict(first); ok {
		t.Error("the replaced scan has a verdict")
	}
	p.Forget(second)

	slow := Scan{Namespace: "ns", Name: "slow", UID: "u"}
	p.Submit(slow, []string{"https://slow-0.example/"}, time.Minute)
	f.waitStarted(t, "https://slow-0.example/")
	p.Forget(slow)
	deadline := time.Now().Add(5 * time.Second)
	for !f.wasCancelled("https://slow-0.example/") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !f.wasCancelled("https://slow-0.example/") {
		t.Error("a forgotten scan's check kept running")
	}
	time.Sleep(50 * time.Millisecond)
	if n := d.times(slow); n != 0 {
		t.Errorf("a forgotten scan was decided %d times", n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.namespaces) != 0 || p.inFlight != 0 {
		t.Errorf("after forgetting every scan: %d namespaces, %d checks in flight", len(p.namespaces), p.inFlight)
	}
}

// Scans submitted before Run wait for it; when Run ends, checks in flight
// are cancelled and no verdict is given.
func TestRunStartsAndStops(t *testing.T) {
	f := newFakeChecks()
	d := newDecisions()
	p := New(f.check, Limits{}, d.decided)
	early := Scan{Namespace: "ns", Name: "early", UID: "u"}
	p.Submit(early, []string{"https://ok.example/"}, time.Minute)
	time.Sleep(20 * time.Millisecond)
	if len(f.startedURLs()) != 0 {
		t.Fatal("a check started before Run")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Run(ctx); close(done) }()
	verdictOf(t, p, d, early)

	slow := Scan{Namespace: "ns", Name: "slow", UID: "u"}
	p.Submit(slow, []string{"https://slow-0.example/"}, time.Minute)
	f.waitStarted(t, "https://slow-0.example/")
	cancel()
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for !f.wasCancelled("https://slow-0.example/") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if _, ok := p.Verdict(slow); ok || d.times(slow) != 0 {
		t.Error("a verdict from checks cancelled by the pool's stop")
	}
	p.Submit(Scan{Namespace: "ns", Name: "late", UID: "u"}, []string{"https://ok.example/"}, time.Minute)
	if got := len(f.startedURLs()); got != 2 {
		t.Errorf("%d checks, want 2: nothing starts after Run ends", got)
	}
}

// A verdict nobody collects is dropped after keepDecided.
func TestUncollectedVerdictsArePruned(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{})
	clock := time.Now()
	p.mu.Lock()
	p.now = func() time.Time { return clock }
	p.mu.Unlock()
	old := Scan{Namespace: "ns", Name: "old", UID: "u"}
	p.Submit(old, nil, time.Minute)
	verdictOf(t, p, d, old)
	clock = clock.Add(keepDecided)
	p.Submit(Scan{Namespace: "ns", Name: "kept", UID: "u"}, nil, time.Minute)
	if _, ok := p.Verdict(old); !ok {
		t.Error("a verdict exactly keepDecided old was dropped")
	}
	clock = clock.Add(time.Second)
	p.Submit(Scan{Namespace: "ns", Name: "new", UID: "u"}, nil, time.Minute)
	if _, ok := p.Verdict(old); ok {
		t.Error("a verdict older than keepDecided was kept")
	}
}

// TestNewestNewcomerFirst: scans waiting for their first check are checked
// newest first, so that a scan made after a burst is not checked after the
// whole burst.
func TestNewestNewcomerFirst(t *testing.T) {
	f := newFakeChecks()
	p, d := runPool(t, f, Limits{Checks: 1, PerNamespace: 1, PerScan: 1})
	held := Scan{Namespace: "ns", Name: "held", UID: "u"}
	p.Submit(held, []string{"https://held-0.example/"}, time.Minute)
	f.waitStarted(t, "https://held-0.example/")
	burst := make([]Scan, 0, 3)
	for _, name := range []string{"a", "b", "c"} {
		s := Scan{Namespace: "ns", Name: name, UID: "u"}
		p.Submit(s, []string{"https://ok-" + name + ".example/"}, time.Minute)
		burst = append(burst, s)
	}
	close(f.releaseOf("https://held-0.example/"))
	for _, s := range burst {
		verdictOf(t, p, d, s)
	}
	got := strings.Join(f.startedURLs()[1:], " ")
	if want := "https://ok-c.example/ https://ok-b.example/ https://ok-a.example/"; got != want {
		t.Errorf("checked %s, want newest first: %s", got, want)
	}
}

func TestScanBefore(t *testing.T) {
	scan := func(held int, turn, seq uint64) *scanChecks {
		s := &scanChecks{inFlight: map[int]context.CancelFunc{}, lastTurn: turn, seq: seq}
		for i := range held {
			s.inFlight[i] = func() {}
		}
		return s
	}
	for _, tt := range []struct {
		a, b *scanChecks
		want bool
		why  string
	}{
		{scan(0, 9, 1), scan(1, 1, 9), true, "fewer held wins over an older turn and a later arrival"},
		{scan(2, 0, 5), scan(1, 0, 5), false, "more held loses"},
		{scan(1, 3, 1), scan(1, 4, 9), true, "equal held: the older turn wins"},
		{scan(1, 4, 9), scan(1, 3, 1), false, "equal held: the newer turn loses"},
		{scan(0, 0, 2), scan(0, 0, 1), true, "no turn yet: the later arrival wins"},
		{scan(0, 0, 1), scan(0, 0, 2), false, "no turn yet: the earlier arrival loses"},
		{scan(0, 0, 2), scan(0, 0, 2), false, "the same candidate is not before itself"},
	} {
		if got := scanBefore(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: %v", tt.why, got)
		}
	}
}
