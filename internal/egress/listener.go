package egress

import (
	"net"
	"sync"
)

// limitListener accepts at most max connections at once (more wait in
// the kernel's queue) and remembers them, so Close can end them all:
// tunnels are hijacked from the HTTP server, which then forgets them.
type limitListener struct {
	*net.TCPListener
	slots chan struct{}
	done  chan struct{}

	mu     sync.Mutex
	conns  map[*limitConn]struct{}
	closed bool
}

func newLimitListener(l *net.TCPListener, maxConns int) *limitListener {
	return &limitListener{TCPListener: l, slots: make(chan struct{}, maxConns), done: make(chan struct{}), conns: map[*limitConn]struct{}{}}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.AcceptTCP()
	if err != nil {
		<-l.slots
		return nil, err
	}
	lc := &limitConn{TCPConn: c, l: l}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = c.Close()
		<-l.slots
		return nil, net.ErrClosed
	}
	l.conns[lc] = struct{}{}
	return lc, nil
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

// limitConn frees its slot when closed; it keeps *net.TCPConn's
// CloseWrite, which a tunnel uses to pass an end of stream on.
type limitConn struct {
	*net.TCPConn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.TCPConn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}
