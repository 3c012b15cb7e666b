package egress

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// limitListener bounds the connections served at once, in total and per
// client address, and remembers them, so Close can end them all (tunnels
// are hijacked from the HTTP server, which then forgets them).
//
// A connection still waiting for its request (none sent yet, or its line
// and header not complete) holds a slot only while no one else needs it:
// when the proxy is full, a new connection takes the slot of the one that
// has waited longest, and when a client is at its own limit, of that
// client's. So half-sent requests, however many, never make a request that
// was sent whole wait; a proxy full of connections that are all being
// served makes new ones wait in the kernel's queue, as before.
type limitListener struct {
	*net.TCPListener
	maxConns, perClient int
	done                chan struct{}
	freed               chan struct{} // a slot came free (buffered: one wake-up is enough)

	mu       sync.Mutex
	conns    map[*limitConn]struct{}
	byClient map[netip.Addr]int
	closed   bool
	evicted  int64
}

func newLimitListener(l *net.TCPListener, maxConns, perClient int) *limitListener {
	if perClient >= maxConns {
		perClient = maxConns + 1 // the total decides: new connections wait their turn
	}
	return &limitListener{
		TCPListener: l, maxConns: maxConns, perClient: perClient,
		done: make(chan struct{}), freed: make(chan struct{}, 1),
		conns: map[*limitConn]struct{}{}, byClient: map[netip.Addr]int{},
	}
}

// Accept takes the next connection and gives it a slot: a free one, or
// that of the connection that has waited longest for its request.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptTCP()
		if err != nil {
			return nil, err
		}
		lc := &limitConn{TCPConn: c, l: l, client: clientOf(c)}
		lc.waiting(time.Now())
		admitted, err := l.admit(lc)
		if err != nil {
			_ = c.Close()
			return nil, err
		}
		if admitted {
			return lc, nil
		}
		_ = c.Close() // its client is at its limit, every connection of it being served
	}
}

// admit gives lc a slot, waiting while every slot is held by a connection
// being served. It answers false when lc's client holds its limit of
// connections and all of them are being served.
func (l *limitListener) admit(lc *limitConn) (bool, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return false, net.ErrClosed
		}
		var victim *limitConn
		switch {
		case l.byClient[lc.client] >= l.perClient:
			victim = l.oldestWaiting(func(c *limitConn) bool { return c.client == lc.client })
			if victim == nil {
				l.mu.Unlock()
				return false, nil
			}
		case len(l.conns) >= l.maxConns:
			victim = l.oldestWaiting(func(*limitConn) bool { return true })
		default:
			l.conns[lc] = struct{}{}
			l.byClient[lc.client]++
			l.mu.Unlock()
			return true, nil
		}
		if victim != nil {
			l.forget(victim)
			l.evicted++
		}
		l.mu.Unlock()
		if victim != nil {
			_ = victim.TCPConn.Close()
			continue
		}
		select {
		case <-l.freed:
		case <-l.done:
			return false, net.ErrClosed
		}
	}
}

// oldestWaiting is the connection, among those match accepts, that has
// waited longest for its request (nil: none is waiting). Called with mu.
func (l *limitListener) oldestWaiting(match func(*limitConn) bool) *limitConn {
	var oldest *limitConn
	var since int64
	for c := range l.conns {
		s := c.since()
		if s != 0 && match(c) && (oldest == nil || s < since) {
			oldest, since = c, s
		}
	}
	return oldest
}

// forget frees c's slot. Called with mu.
func (l *limitListener) forget(c *limitConn) {
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.byClient[c.client]--; l.byClient[c.client] <= 0 {
		delete(l.byClient, c.client)
	}
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// Evicted is how many waiting connections gave their slot to a newer one.
func (l *limitListener) Evicted() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted
}

// connState is the HTTP server's ConnState hook: a connection waits for a
// request when new and between requests, and is served once a request's
// line and header are read (the hook's StateActive) or it became a tunnel.
func (l *limitListener) connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	switch s {
	case http.StateNew, http.StateIdle:
		lc.waiting(time.Now())
	case http.StateActive, http.StateHijacked:
		lc.serving()
	}
}

// Close stops accepting and closes every connection still open.
func (l *limitListener) Close() error { return l.closeAll() }

// closeAll stops accepting and closes every connection still open.
func (l *limitListener) closeAll() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.done)
	}
	conns := make([]*limitConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	err := l.TCPListener.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	return err
}

// clientOf is a connection's client address (its port left out).
func clientOf(c *net.TCPConn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// limitConn frees its slot when closed; it keeps *net.TCPConn's
// CloseWrite, which a tunnel uses to pass an end of stream on.
type limitConn struct {
	*net.TCPConn
	l      *limitListener
	client netip.Addr

	mu         sync.Mutex
	waitingFor int64 // when it began waiting for a request (UnixNano); 0 while served
	once       sync.Once
}

func (c *limitConn) waiting(now time.Time) {
	c.mu.Lock()
	c.waitingFor = now.UnixNano()
	c.mu.Unlock()
}

func (c *limitConn) serving() {
	c.mu.Lock()
	c.waitingFor = 0
	c.mu.Unlock()
}

func (c *limitConn) since() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waitingFor
}

func (c *limitConn) Close() error {
	err := c.TCPConn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.forget(c)
		c.l.mu.Unlock()
	})
	return err
}
