// Package egress is the scan pod's egress proxy. The runner starts it on
// loopback before CWAC and points the browser (Chrome's --proxy-server,
// loopback included) and CWAC's own HTTP requests (HTTP_PROXY and
// HTTPS_PROXY) at it. It checks every connection when it is made: it asks
// the scan-target policy (urlpolicy.Policy.Destination) about the host,
// which resolves the name once, here, and refuses it if the name or any of
// its addresses is refused; it connects only to an address so checked,
// never resolving the name again; and it answers anything else with 403,
// logging the refusal and counting it for the scan's summary and status.
//
// So whatever leads a scan somewhere is checked where it happens: a base
// URL, a redirect in any form, a Refresh header, a meta refresh, a script,
// an image or a frame, a name that answers differently the second time
// (DNS rebinding). A check before the scan sees none of those but the
// first, and a NetworkPolicy holds only where the cluster's network plugin
// enforces it; this holds whatever the plugin.
package egress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Checker is the policy the proxy asks about each connection (urlpolicy's
// Policy is one): the addresses host may be reached at, or why not.
type Checker interface {
	Destination(ctx context.Context, host string) ([]netip.Addr, *urlpolicy.Denial)
}

// RuleProxyItself is the rule of a connection asked of the proxy's own
// address: it would loop through the proxy, using up its connections.
const RuleProxyItself = "egress-proxy-itself"

// Limits bound what one client, or a hostile page, can make the proxy hold.
type Limits struct {
	// MaxConns is how many client connections are held at once. A new one
	// takes the slot of the connection that has waited longest for its
	// request, if any is waiting; otherwise it waits to be accepted.
	MaxConns int
	// MaxConnsPerClient is how many of them one client address may hold;
	// past it a new connection takes the slot of that client's longest
	// waiting one, or is closed when all of its are being served.
	MaxConnsPerClient int
	// MaxHeaderBytes bounds a request's header, and a response's.
	MaxHeaderBytes int
	// HeaderTimeout bounds reading a request's line and header, together,
	// from the connection's start or the end of its previous request.
	HeaderTimeout time.Duration
	// DialTimeout bounds connecting to a destination, all its addresses
	// tried (or to the upstream proxy, and its answer).
	DialTimeout time.Duration
	// IdleTimeout ends a tunnel or a forwarded request when no byte has
	// moved for this long (either way), and a client connection idle
	// between requests.
	IdleTimeout time.Duration
	// MinBytes and RateWindow are the minimum transfer rate of a tunnel or
	// a forwarded exchange: fewer than MinBytes moved (both ways together)
	// in a RateWindow ends it, so a peer sending a byte now and then
	// cannot hold a connection for as long as it likes.
	MinBytes   int
	RateWindow time.Duration
	// MaxLogged is how many refusals are logged one by one; the rest are
	// counted only.
	MaxLogged int
}

// DefaultLimits suit one scan pod: CWAC's browsers and its own requests.
func DefaultLimits() Limits {
	return Limits{
		MaxConns: 256, MaxConnsPerClient: 128, MaxHeaderBytes: 64 << 10, HeaderTimeout: 10 * time.Second,
		DialTimeout: 15 * time.Second, IdleTimeout: 2 * time.Minute, MinBytes: 128, RateWindow: time.Minute,
		MaxLogged: 1000,
	}
}

// Config is a proxy's policy, log, address and limits.
type Config struct {
	// Policy decides where connections may go.
	Policy Checker
	// Log receives each refusal (up to Limits.MaxLogged) and what goes wrong.
	Log *slog.Logger
	// Addr is where to listen ("": 127.0.0.1 on a port the kernel picks).
	Addr string
	// Upstream, when set, is the proxy to reach a URL through (nil, or a
	// nil URL: connect directly), for clusters whose pods reach the
	// internet only through one (see UpstreamFromEnv). The destination is
	// checked all the same, and refused ones never reach the upstream; the
	// upstream is asked for the name, as it is configured to filter by
	// name and a plain-http site needs its name in the request line, and
	// so resolves it again: what it then reaches is its own rules' matter.
	Upstream func(*url.URL) (*url.URL, error)
	// Limits are DefaultLimits where zero.
	Limits Limits
}

// Proxy is a running egress proxy.
type Proxy struct {
	cfg    Config
	self   netip.AddrPort
	ln     *limitListener
	srv    *http.Server
	dialer net.Dialer
	served chan struct{}

	mu      sync.Mutex
	blocked results.BlockedConnections
	logged  int
}

// Start listens and serves until Close.
func Start(cfg Config) (*Proxy, error) {
	if cfg.Policy == nil {
		return nil, errors.New("egress proxy: no policy")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	cfg.Limits = cfg.Limits.orDefaults()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := &Proxy{
		cfg: cfg, self: ln.Addr().(*net.TCPAddr).AddrPort(), ln: newLimitListener(ln.(*net.TCPListener), cfg.Limits.MaxConns, cfg.Limits.MaxConnsPerClient),
		served: make(chan struct{}),
	}
	p.self = netip.AddrPortFrom(p.self.Addr().Unmap(), p.self.Port())
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: cfg.Limits.HeaderTimeout,
		MaxHeaderBytes:    cfg.Limits.MaxHeaderBytes,
		IdleTimeout:       cfg.Limits.IdleTimeout,
		ConnState:         p.ln.connState,
		ErrorLog:          slog.NewLogLogger(cfg.Log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(p.served)
		_ = p.srv.Serve(p.ln) // ends at Close
	}()
	return p, nil
}

func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	pickD := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	return Limits{
		MaxConns: pick(l.MaxConns, d.MaxConns), MaxConnsPerClient: pick(l.MaxConnsPerClient, d.MaxConnsPerClient),
		MaxHeaderBytes: pick(l.MaxHeaderBytes, d.MaxHeaderBytes),
		HeaderTimeout:  pickD(l.HeaderTimeout, d.HeaderTimeout), DialTimeout: pickD(l.DialTimeout, d.DialTimeout),
		IdleTimeout: pickD(l.IdleTimeout, d.IdleTimeout), MinBytes: pick(l.MinBytes, d.MinBytes),
		RateWindow: pickD(l.RateWindow, d.RateWindow), MaxLogged: pick(l.MaxLogged, d.MaxLogged),
	}
}

// URL is the proxy's address as clients are given it: http://127.0.0.1:port.
func (p *Proxy) URL() string { return "http://" + p.self.String() }

// Close stops the proxy and ends every connection, tunnels included.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	_ = p.ln.closeAll() // the server closed the listener already; this ends the tunnels
	<-p.served
	return err
}

// Blocked is a copy of the record of refusals so far (nil: none).
func (p *Proxy) Blocked() *results.BlockedConnections {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blocked.Total == 0 {
		return nil
	}
	c := p.blocked
	c.Hosts = append([]results.BlockedHost(nil), p.blocked.Hosts...)
	return &c
}

// maxLoggedURLBytes bounds a refused URL in the log (a page chooses it).
const maxLoggedURLBytes = 512

// record counts a refusal and logs it while fewer than MaxLogged were.
func (p *Proxy) record(target, rawURL string, d *urlpolicy.Denial) {
	p.mu.Lock()
	p.blocked.Add(target, d.Rule, d.Detail, 1)
	p.logged++
	n := p.logged
	p.mu.Unlock()
	switch limit := p.cfg.Limits.MaxLogged; {
	case n <= limit:
		p.cfg.Log.Warn("blocked by policy", "host", textcap.Head(target, results.MaxBlockedTextBytes),
			"url", textcap.Head(rawURL, maxLoggedURLBytes), "rule", d.Rule, "detail", d.Detail)
	case n == limit+1:
		p.cfg.Log.Warn("further refusals are counted in the scan's summary, not logged", "logged", limit)
	}
}
