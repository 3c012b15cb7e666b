package mcpserver

import (
	"container/list"
	"context"
	"fmt"
	"net"
	"sync"
)

// ConnLimits bound the connections the HTTP server holds open. Connections
// are counted in two pools, so that callers without credentials cannot
// crowd out callers with them: every port-forwarded client arrives from
// 127.0.0.1, so a cap per address would let anyone who can reach the port
// lock out everyone else.
type ConnLimits struct {
	// PerCaller caps the connections one authenticated caller holds at once
	// (its identity: a Kubernetes user, the shared token, or without
	// authentication the client's address). A connection is counted from
	// its first authenticated request until it closes; a request that
	// would go over the cap is answered 429 and its connection closed.
	PerCaller int
	// Unauthenticated caps the connections that have not yet made an
	// authenticated request, all clients together. When the pool is full,
	// a new connection closes the oldest one that is waiting for a request
	// (a slow or idle client); if every one is serving a request, the new
	// connection is closed instead.
	Unauthenticated int
}

// Defaults of ConnLimits.
const (
	DefaultMaxConnsPerCaller       = 64
	DefaultMaxUnauthenticatedConns = 256
)

// Check refuses limits below 1, naming the binary's flags.
func (l ConnLimits) Check() error {
	if l.PerCaller < 1 {
		return fmt.Errorf("--max-conns-per-client is %d: a caller must be allowed at least 1 connection", l.PerCaller)
	}
	if l.Unauthenticated < 1 {
		return fmt.Errorf("--max-unauthenticated-conns is %d: at least 1 connection must be allowed to authenticate", l.Unauthenticated)
	}
	return nil
}

func (l ConnLimits) withDefaults() ConnLimits {
	if l.PerCaller <= 0 {
		l.PerCaller = DefaultMaxConnsPerCaller
	}
	if l.Unauthenticated <= 0 {
		l.Unauthenticated = DefaultMaxUnauthenticatedConns
	}
	return l
}

// connLimiter keeps both pools' counts.
type connLimiter struct {
	limits ConnLimits
	mu     sync.Mutex
	// callers counts the authenticated connections of each caller.
	callers map[string]int
	// unauthenticated counts the open connections not yet authenticated.
	unauthenticated int
	// waiting holds the unauthenticated connections not serving a
	// request, oldest first: the ones a new connection may displace.
	waiting list.List
}

func newConnLimiter(limits ConnLimits) *connLimiter {
	return &connLimiter{limits: limits.withDefaults(), callers: map[string]int{}}
}

// limitedListener hands out connections counted by a connLimiter.
type limitedListener struct {
	net.Listener
	limiter *connLimiter
}

func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, limiter: l.limiter}
		displaced, ok := l.limiter.accept(tc)
		if displaced != nil {
			_ = displaced.Conn.Close() // its count was given up in accept
		}
		if !ok {
			_ = c.Close() // every unauthenticated connection is busy: the client learns by the closed connection
			continue
		}
		return tc, nil
	}
}

// The states of a tracked connection.
const (
	connUnauthenticated = iota
	connAuthenticated
	connGone
)

// trackedConn is a connection counted in one pool until it closes.
type trackedConn struct {
	net.Conn
	limiter *connLimiter
	// The fields below are guarded by limiter.mu.
	state  int
	caller string
	// waiting is the connection's place in limiter.waiting (nil while it
	// serves a request, or once it is authenticated or gone).
	waiting *list.Element
}

// accept counts a new connection as unauthenticated. When that pool is
// full it gives up the oldest waiting connection's place (returned, for
// the caller to close outside the lock), or refuses the new one.
func (l *connLimiter) accept(c *trackedConn) (displaced *trackedConn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unauthenticated >= l.limits.Unauthenticated {
		front := l.waiting.Front()
		if front == nil {
			return nil, false
		}
		displaced = front.Value.(*trackedConn)
		l.forget(displaced)
	}
	l.unauthenticated++
	c.waiting = l.waiting.PushBack(c)
	return displaced, true
}

// forget takes a connection out of its pool; the caller holds l.mu.
func (l *connLimiter) forget(c *trackedConn) {
	switch c.state {
	case connUnauthenticated:
		l.unauthenticated--
		if c.waiting != nil {
			l.waiting.Remove(c.waiting)
			c.waiting = nil
		}
	case connAuthenticated:
		if l.callers[c.caller]--; l.callers[c.caller] <= 0 {
			delete(l.callers, c.caller)
		}
	}
	c.state = connGone
}

// Close gives the connection's place back, once.
func (c *trackedConn) Close() error {
	c.limiter.mu.Lock()
	c.limiter.forget(c)
	c.limiter.mu.Unlock()
	return c.Conn.Close()
}

// serving marks the connection busy with a request (true) or waiting for
// the next one (false): a busy connection is never displaced.
func (c *trackedConn) serving(busy bool) {
	l := c.limiter
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.state != connUnauthenticated {
		return
	}
	switch {
	case busy && c.waiting != nil:
		l.waiting.Remove(c.waiting)
		c.waiting = nil
	case !busy && c.waiting == nil:
		c.waiting = l.waiting.PushBack(c)
	}
}

// authenticated moves the connection into its caller's pool, unless the
// caller already holds the cap. A connection keeps the caller of its first
// authenticated request.
func (c *trackedConn) authenticated(caller string) error {
	l := c.limiter
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.state != connUnauthenticated {
		return nil
	}
	if l.callers[caller] >= l.limits.PerCaller {
		return fmt.Errorf("%s already holds %d connections, the most one caller may hold open", truncate(caller, 256), l.limits.PerCaller)
	}
	l.forget(c)
	c.state, c.caller = connAuthenticated, caller
	l.callers[caller]++
	return nil
}

// connKey carries the request's trackedConn in its context.
type connKey struct{}

// withConn is an http.Server's ConnContext: it hands the connection to
// the handlers, which tell it when it serves and who authenticated on it.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

func connOf(ctx context.Context) *trackedConn {
	tc, _ := ctx.Value(connKey{}).(*trackedConn)
	return tc
}
