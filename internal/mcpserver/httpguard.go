package mcpserver

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultBodyReadTimeout bounds how long a client may take to send a
// request body: a client that dribbles a large body a byte at a time holds
// a connection no longer than this.
const DefaultBodyReadTimeout = 30 * time.Second

// guardHost refuses, on every route, a request that reached a loopback
// address with a Host that is not a loopback name: a web page the user
// opened elsewhere can point its own name at 127.0.0.1 (DNS rebinding), but
// cannot make the browser send a loopback Host. The MCP SDK does the same
// on /mcp; here it covers the REST routes too.
func guardHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if isLoopback(local.String()) && !isLoopback(r.Host) {
				writeExecuteError(w, http.StatusForbidden, fmt.Sprintf("invalid Host header %q for a server on a loopback address", truncate(r.Host, 128)))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// guardCrossOrigin refuses state-changing requests a browser sent from
// another origin (Sec-Fetch-Site / Origin, as net/http's
// CrossOriginProtection decides), and POST bodies that are not JSON: a web
// page can send a text/plain POST to any address without a preflight, so
// without these checks an unauthenticated server (--auth=none) would start
// scans for any page the user visits.
func guardCrossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := cop.Check(r); err != nil {
			writeExecuteError(w, http.StatusForbidden, "cross-origin request refused: "+err.Error())
			return
		}
		if r.Method == http.MethodPost {
			mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mediaType != "application/json" {
				writeExecuteError(w, http.StatusUnsupportedMediaType, "request body must be application/json")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// bindSession hands the authenticated caller to the MCP SDK as the
// session's user, so the SDK refuses a session ID presented by anyone but
// the caller who opened the session (no one can use or end another
// caller's session). Requests without a bearer token (--auth=none) have no
// caller to bind to and pass unbound.
func bindSession(next http.Handler) http.Handler {
	verifier := func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		id := decodeIdentity(r.Header.Get(IdentityHeader))
		if id == nil {
			return nil, auth.ErrInvalidToken
		}
		// Authentication already happened; this only names the caller. The
		// expiry is the SDK's requirement, not a token lifetime.
		return &auth.TokenInfo{UserID: id.String(), Expiration: time.Now().Add(time.Hour)}, nil
	}
	bound := auth.RequireBearerToken(verifier, nil)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fields := strings.Fields(r.Header.Get("Authorization")); len(fields) == 2 && strings.EqualFold(fields[0], "bearer") {
			bound.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody gives a request body timeout to arrive, and lifts the
// deadline once it has been read, so a long answer stream that follows
// (MCP's server-sent events) is not cut.
func deadlineBody(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
			next.ServeHTTP(w, r) // a ResponseWriter without deadlines (tests): nothing to lift
			return
		}
		r.Body = &liftOnEOF{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		next.ServeHTTP(w, r)
	})
}

// liftOnEOF calls lift once the body has been read to its end.
type liftOnEOF struct {
	io.ReadCloser
	lift func()
	once sync.Once
}

func (b *liftOnEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.lift)
	}
	return n, err
}

// LimitConnsPerClient caps the connections one client address holds open
// at once; those over the cap are closed as soon as they are accepted. It
// stops one client from exhausting the server with idle or slow
// connections, whatever its credentials.
func LimitConnsPerClient(l net.Listener, limit int) net.Listener {
	return &clientLimitListener{Listener: l, limit: limit, open: map[string]int{}}
}

type clientLimitListener struct {
	net.Listener
	limit int
	mu    sync.Mutex
	open  map[string]int
}

func (l *clientLimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := hostOf(c.RemoteAddr().String())
		l.mu.Lock()
		if l.open[host] >= l.limit {
			l.mu.Unlock()
			_ = c.Close() // over the cap: the client learns by the closed connection
			continue
		}
		l.open[host]++
		l.mu.Unlock()
		return &countedConn{Conn: c, release: func() { l.release(host) }}, nil
	}
}

func (l *clientLimitListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
	}
}

// countedConn gives its slot back once, when closed.
type countedConn struct {
	net.Conn
	release func()
	once    sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
