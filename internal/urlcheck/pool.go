// Package urlcheck checks the URLs of many scans against the scan-target
// policy on a bounded number of concurrent checks, shared fairly: first
// across namespaces, then across the scans of a namespace. A scan whose
// URLs are slow to check (names that never resolve, sites that answer
// slowly) therefore delays only itself: a scan that arrives later gets the
// next free check ahead of every scan that already holds more, instead of
// waiting for those scans to finish.
//
// A check holds its place for one URL (name lookups and redirect probes,
// each bounded by the policy's own timeout), never for a whole scan, and
// no goroutine waits for a place: a scan waiting for its turn is a list of
// URLs, not a blocked worker.
package urlcheck

import (
	"context"
	"sync"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Check decides one URL: urlpolicy.Policy.CheckURL.
type Check func(ctx context.Context, url string) *urlpolicy.Denial

// Scan names one scan; the pool keeps one set of checks and one verdict
// per namespace and name, for the UID submitted last (a scan deleted and
// made again under its name has a new UID, and is checked anew).
type Scan struct {
	Namespace, Name, UID string
}

// scanName is a scan's place in the pool, whatever its UID.
type scanName struct{ namespace, name string }

func nameOf(s Scan) scanName { return scanName{s.Namespace, s.Name} }

// Limits bound the checks in flight.
type Limits struct {
	// Checks is how many URLs are checked at once, all scans together
	// (default DefaultChecks).
	Checks int
	// PerNamespace is how many of those one namespace's scans may hold
	// (default half of Checks, at least 1), so that a namespace full of
	// slow scans leaves room for every other namespace.
	PerNamespace int
	// PerScan is how many one scan may hold (default DefaultPerScan, at
	// most PerNamespace).
	PerScan int
}

// Defaults of Limits.
const (
	DefaultChecks  = 32
	DefaultPerScan = 8
)

// withDefaults fills in what is unset and keeps the limits nested: a scan
// never holds more than its namespace, nor a namespace more than all.
func (l Limits) withDefaults() Limits {
	if l.Checks <= 0 {
		l.Checks = DefaultChecks
	}
	if l.PerNamespace <= 0 {
		l.PerNamespace = max(1, l.Checks/2)
	}
	l.PerNamespace = min(l.PerNamespace, l.Checks)
	if l.PerScan <= 0 {
		l.PerScan = DefaultPerScan
	}
	l.PerScan = min(l.PerScan, l.PerNamespace)
	return l
}

// Verdict is the outcome of one scan's checks.
type Verdict struct {
	// Denial is the refusal of the earliest refused URL in the scan's
	// order (nil: every URL is allowed).
	Denial *urlpolicy.Denial
	// TimedOut: the scan's budget ran out before its verdict was known.
	TimedOut bool
}

// Pool runs the checks. Its zero value is not usable: call New, then Run.
type Pool struct {
	check   Check
	limits  Limits
	decided func(Scan)
	now     func() time.Time

	mu         sync.Mutex
	ctx        context.Context // Run's; nil before Run and after it returns
	stopped    bool
	inFlight   int
	tick       uint64 // counts dispatches: a scan's or namespace's last turn
	seq        uint64 // counts submissions: arrival order
	scans      map[scanName]*scanChecks
	namespaces map[string]*namespaceChecks
}

// New makes a pool that checks URLs with check within limits. decided is
// called (outside the pool's lock) once a scan's verdict is known.
func New(check Check, limits Limits, decided func(Scan)) *Pool {
	return &Pool{
		check: check, limits: limits.withDefaults(), decided: decided, now: time.Now,
		scans: map[scanName]*scanChecks{}, namespaces: map[string]*namespaceChecks{},
	}
}

// namespaceChecks is one namespace's share.
type namespaceChecks struct {
	name     string
	inFlight int
	lastTurn uint64
	seq      uint64
	// waiting are its scans with URLs not yet dispatched.
	waiting map[*scanChecks]struct{}
}

// scanChecks is one scan's progress.
type scanChecks struct {
	key      Scan
	ns       *namespaceChecks
	urls     []string
	next     int // the next URL to dispatch, in order
	inFlight map[int]context.CancelFunc
	lastTurn uint64
	seq      uint64
	// firstDenied is the index of the earliest refused URL so far
	// (len(urls) while none is): URLs after it need no check.
	firstDenied  int
	denial       *urlpolicy.Denial
	done         bool
	verdict      Verdict
	decidedAt    time.Time
	ctx          context.Context
	cancel       context.CancelFunc
	budget       *time.Timer // started with the scan's first check
	budgetLength time.Duration
	forgotten    bool
}

// Run dispatches checks until ctx ends, then cancels those in flight. No
// verdict is given after Run returns: the scans are checked again by the
// next pool (after a restart).
func (p *Pool) Run(ctx context.Context) error {
	// The checks' contexts end when the pool has stopped, not with ctx:
	// a check cancelled by the stop must find the pool stopped, or its
	// cancelled lookup would read as a name that does not resolve.
	base, stop := context.WithCancel(context.WithoutCancel(ctx))
	p.mu.Lock()
	p.ctx = base
	for _, s := range p.scans {
		if !s.done && s.ctx == nil {
			s.ctx, s.cancel = context.WithCancel(ctx)
		}
	}
	p.dispatch()
	p.mu.Unlock()
	<-ctx.Done()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	stop()
	for _, s := range p.scans {
		p.drop(s)
	}
	return nil
}

// Submit starts checking a scan's URLs, unless the pool already has that
// scan (the same UID); budget bounds how long its verdict may take from
// its first check (then it is TimedOut: the time a scan waits for its
// first turn is the pool's, not the scan's). A scan with no URL is
// decided at once.
func (p *Pool) Submit(key Scan, urls []string, budget time.Duration) {
	var notify bool
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	if s, ok := p.scans[nameOf(key)]; ok {
		if s.key.UID == key.UID {
			p.mu.Unlock()
			return
		}
		p.drop(s) // an earlier scan of the same name
	}
	p.pruneDecided()
	ns := p.namespaces[key.Namespace]
	if ns == nil {
		p.seq++
		ns = &namespaceChecks{name: key.Namespace, seq: p.seq, waiting: map[*scanChecks]struct{}{}}
		p.namespaces[key.Namespace] = ns
	}
	p.seq++
	s := &scanChecks{key: key, ns: ns, urls: urls, inFlight: map[int]context.CancelFunc{}, seq: p.seq, firstDenied: len(urls)}
	p.scans[nameOf(key)] = s
	if len(urls) == 0 {
		notify = p.decide(s, Verdict{})
	} else {
		if p.ctx != nil {
			s.ctx, s.cancel = context.WithCancel(p.ctx)
		}
		ns.waiting[s] = struct{}{}
		s.budgetLength = budget
		p.dispatch()
	}
	p.mu.Unlock()
	if notify {
		p.notify(key)
	}
}

// Verdict is the scan's verdict, once known.
func (p *Pool) Verdict(key Scan) (Verdict, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.scans[nameOf(key)]
	if !ok || !s.done || s.key.UID != key.UID {
		return Verdict{}, false
	}
	return s.verdict, true
}

// Forget drops the scan of key's namespace and name, whatever its UID: its
// verdict has been recorded, or the scan is gone. Checks still in flight
// for it are cancelled.
func (p *Pool) Forget(key Scan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.scans[nameOf(key)]; ok {
		p.drop(s)
	}
}

// keepDecided is how long a verdict nobody collected is kept: a scan
// deleted before its verdict was recorded is forgotten after this.
const keepDecided = 10 * time.Minute

// pruneDecided forgets verdicts older than keepDecided; the caller holds p.mu.
func (p *Pool) pruneDecided() {
	for _, s := range p.scans {
		if s.done && p.now().Sub(s.decidedAt) > keepDecided {
			p.drop(s)
		}
	}
}

// drop removes a scan and cancels its checks; the caller holds p.mu.
func (p *Pool) drop(s *scanChecks) {
	s.forgotten = true
	p.stopChecks(s)
	if p.scans[nameOf(s.key)] == s {
		delete(p.scans, nameOf(s.key))
	}
	delete(s.ns.waiting, s)
	p.releaseNamespace(s.ns)
}

// stopChecks cancels the scan's checks in flight and its budget.
func (p *Pool) stopChecks(s *scanChecks) {
	if s.budget != nil {
		s.budget.Stop()
	}
	if s.cancel != nil {
		s.cancel()
	}
}

// releaseNamespace forgets a namespace that has nothing left in the pool.
func (p *Pool) releaseNamespace(ns *namespaceChecks) {
	if ns.inFlight > 0 || len(ns.waiting) > 0 {
		return
	}
	for _, s := range p.scans {
		if s.ns == ns {
			return
		}
	}
	if p.namespaces[ns.name] == ns {
		delete(p.namespaces, ns.name)
	}
}

// decide records a verdict once; it reports whether this call made it, for
// the caller to notify outside the lock. The caller holds p.mu.
func (p *Pool) decide(s *scanChecks, v Verdict) bool {
	if s.done || s.forgotten || p.stopped {
		return false
	}
	s.done, s.verdict, s.decidedAt = true, v, p.now()
	delete(s.ns.waiting, s)
	p.stopChecks(s)
	return true
}

// notify tells the owner a verdict is known; the caller must not hold p.mu.
func (p *Pool) notify(key Scan) {
	if p.decided != nil {
		p.decided(key)
	}
}

func (p *Pool) timeOut(s *scanChecks) {
	p.mu.Lock()
	notify := p.decide(s, Verdict{TimedOut: true})
	p.mu.Unlock()
	if notify {
		p.notify(s.key)
	}
}

// dispatch starts checks while places are free; the caller holds p.mu.
func (p *Pool) dispatch() {
	if p.ctx == nil || p.stopped {
		return
	}
	for p.inFlight < p.limits.Checks {
		s := p.pick()
		if s == nil {
			return
		}
		p.start(s)
	}
}

// pick is the scan whose URL is checked next: from the namespace holding
// the fewest checks (then the one whose last turn is oldest, then the
// first to arrive), its scan holding the fewest (then the one whose last
// turn is oldest, then the last to arrive). A newcomer holds none, so it
// is next in line however many slow scans hold theirs.
func (p *Pool) pick() *scanChecks {
	var best *scanChecks
	var bestNS *namespaceChecks
	for _, ns := range p.namespaces {
		if ns.inFlight >= p.limits.PerNamespace || len(ns.waiting) == 0 {
			continue
		}
		s := p.pickIn(ns)
		if s == nil {
			continue
		}
		if bestNS == nil || before(ns.inFlight, ns.lastTurn, ns.seq, bestNS.inFlight, bestNS.lastTurn, bestNS.seq) {
			best, bestNS = s, ns
		}
	}
	return best
}

func (p *Pool) pickIn(ns *namespaceChecks) *scanChecks {
	var best *scanChecks
	for s := range ns.waiting {
		if len(s.inFlight) >= p.limits.PerScan {
			continue
		}
		if best == nil || scanBefore(s, best) {
			best = s
		}
	}
	return best
}

// before orders candidates: fewer checks held, then an older last turn,
// then earlier arrival.
func before(held int, turn, seq uint64, otherHeld int, otherTurn, otherSeq uint64) bool {
	if held != otherHeld {
		return held < otherHeld
	}
	if turn != otherTurn {
		return turn < otherTurn
	}
	return seq < otherSeq
}

// scanBefore orders a namespace's waiting scans: fewer checks held, then
// an older last turn, then, among scans yet to have a turn, the newest: a
// scan made after a burst of new scans is checked next, not after the whole
// burst, as the admission controller also takes new scans newest first. A
// scan's budget starts with its first check, so the wait costs the burst
// nothing but time.
func scanBefore(a, b *scanChecks) bool {
	if len(a.inFlight) != len(b.inFlight) {
		return len(a.inFlight) < len(b.inFlight)
	}
	if a.lastTurn != b.lastTurn {
		return a.lastTurn < b.lastTurn
	}
	return a.seq > b.seq
}

// start checks the scan's next URL in a goroutine of its own; the caller
// holds p.mu.
func (p *Pool) start(s *scanChecks) {
	i := s.next
	s.next++
	if s.next >= s.firstDenied {
		delete(s.ns.waiting, s) // nothing after it needs a check
	}
	p.tick++
	s.lastTurn, s.ns.lastTurn = p.tick, p.tick
	ctx, cancel := context.WithCancel(s.ctx)
	s.inFlight[i] = cancel
	s.ns.inFlight++
	p.inFlight++
	if s.budget == nil {
		s.budget = time.AfterFunc(s.budgetLength, func() { p.timeOut(s) })
	}
	url := s.urls[i]
	go func() {
		denial := p.check(ctx, url)
		p.finish(s, i, denial)
	}()
}

// finish records one URL's outcome and hands its place on.
func (p *Pool) finish(s *scanChecks, i int, denial *urlpolicy.Denial) {
	p.mu.Lock()
	if cancel, ok := s.inFlight[i]; ok {
		cancel()
		delete(s.inFlight, i)
	}
	s.ns.inFlight--
	p.inFlight--
	notify := false
	if !s.done && !s.forgotten && !p.stopped {
		if denial != nil && i < s.firstDenied {
			s.firstDenied, s.denial = i, denial
			if s.next >= s.firstDenied {
				delete(s.ns.waiting, s)
			}
			for j, cancel := range s.inFlight {
				if j > i {
					cancel() // a later URL cannot change the verdict
				}
			}
		}
		if p.known(s) {
			notify = p.decide(s, Verdict{Denial: s.denial})
		}
	}
	if s.forgotten {
		p.releaseNamespace(s.ns)
	}
	p.dispatch()
	p.mu.Unlock()
	if notify {
		p.notify(s.key)
	}
}

// known: every URL before the earliest refusal (every URL, when none is
// refused) has been checked.
func (p *Pool) known(s *scanChecks) bool {
	if s.next < s.firstDenied {
		return false
	}
	for j := range s.inFlight {
		if j < s.firstDenied {
			return false
		}
	}
	return true
}
