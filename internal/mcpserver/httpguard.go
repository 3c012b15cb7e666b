package mcpserver

import (
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
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
