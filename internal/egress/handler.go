package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// schemeHTTP is the one scheme forwarded, and the one an upstream proxy may have.
const schemeHTTP = "http"

// ServeHTTP serves one request a client sent the proxy: CONNECT host:port
// opens a tunnel (https, and WebSockets, which Chrome always tunnels);
// GET http://host/… and the like are forwarded (plain http). Anything
// else is a bad request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == schemeHTTP && r.URL.Host != "":
		p.forward(w, r)
	case r.URL.IsAbs():
		badRequest(w, "only http:// URLs are forwarded; other schemes go through CONNECT")
	default:
		badRequest(w, "this is a forward proxy: ask for an absolute http:// URL, or CONNECT host:port")
	}
}

func badRequest(w http.ResponseWriter, why string) {
	w.Header().Set("Connection", "close")
	http.Error(w, "egress proxy: "+why, http.StatusBadRequest)
}

// splitTarget reads CONNECT's host:port: a host and a port.
func splitTarget(hostport string) (string, uint16, error) {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil || host == "" {
		return "", 0, fmt.Errorf("%q is not host:port", hostport)
	}
	port, err := parsePort(portText)
	return host, port, err
}

// parsePort reads a port: a decimal number from 1 to 65535.
func parsePort(text string) (uint16, error) {
	port, err := strconv.ParseUint(text, 10, 16)
	if err != nil || port == 0 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", text)
	}
	return uint16(port), nil
}

// destination asks the policy where target may be reached, and answers
// 403 (recorded) when it may not, or as unreachable when the name resolves
// to no address: ok is false when the request was answered so.
func (p *Proxy) destination(w http.ResponseWriter, r *http.Request, target, host string, port uint16) ([]netip.AddrPort, bool) {
	addrs, d := p.cfg.Policy.Destination(r.Context(), host)
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.Unmap(), port)
		if ap == p.self || a.IsUnspecified() && port == p.self.Port() {
			d = &urlpolicy.Denial{URL: target, Rule: RuleProxyItself, Detail: target + " is the egress proxy itself"}
		}
		out = append(out, ap)
	}
	if d == nil && len(out) == 0 || d != nil && d.Rule == urlpolicy.RuleUnresolvable {
		// A name with no address leads nowhere: nothing was refused, and the
		// site is unreachable as it would be without the proxy (CWAC reports
		// it so). Counting it as blocked by policy would raise
		// ConnectionsBlocked on every scan of a cluster without outside DNS,
		// where the browser's own background requests fail to resolve.
		p.unreachable(w, r, target, fmt.Errorf("%s could not be resolved", host))
		return nil, false
	}
	if d != nil {
		p.record(target, requestURL(r), d)
		w.Header().Set("Connection", "close")
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, fmt.Sprintf("blocked by policy: %s (%s): %s", target, d.Rule, d.Detail), http.StatusForbidden)
		return nil, false
	}
	return out, true
}

// requestURL is what the client asked for, for the log: the URL of a
// forwarded request, the host:port of a tunnel (its path is encrypted).
func requestURL(r *http.Request) string {
	if r.Method == http.MethodConnect {
		return r.Host
	}
	return r.URL.String()
}

// unreachable tells the client that a destination the policy allows could
// not be reached (no refusal: CWAC reports unreachable sites itself). A
// tunnel (CONNECT) is answered 502, as any proxy answers a tunnel it could
// not open; clients take that for a failed connection. A plain-http request
// gets no answer at all: its connection is closed, as it would have been
// without the proxy, so CWAC records the URL as not answering (-1) and not
// as a 502 the site never sent (a closed port read "the base URL answered
// 502 (server error)" in the scan's completeness before).
func (p *Proxy) unreachable(w http.ResponseWriter, r *http.Request, target string, err error) {
	p.cfg.Log.Debug("destination unreachable", "host", target, "err", err)
	if r.Method != http.MethodConnect {
		if conn, _, herr := http.NewResponseController(w).Hijack(); herr == nil {
			_ = conn.Close()
			return
		}
	}
	p.badGateway(w, target, err)
}

// badGateway answers 502: the destination could not be reached through the
// proxy, or answered something the proxy cannot pass on.
func (p *Proxy) badGateway(w http.ResponseWriter, target string, err error) {
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("egress proxy: cannot reach %s: %v", target, err), http.StatusBadGateway)
}

// tunnel serves CONNECT: checks the destination, connects to a checked
// address, answers 200 and copies bytes both ways.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	target := r.Host // CONNECT's authority
	host, port, err := splitTarget(target)
	if err != nil {
		badRequest(w, "CONNECT: "+err.Error())
		return
	}
	addrs, ok := p.destination(w, r, target, host, port)
	if !ok {
		return
	}
	up, fromUp, err := p.connectTunnel(r.Context(), target, addrs)
	if err != nil {
		p.unreachable(w, r, target, err)
		return
	}
	client, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		_ = up.Close()
		p.badGateway(w, target, err)
		return
	}
	_ = client.SetDeadline(time.Time{})
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = client.Close()
		_ = up.Close()
		return
	}
	if err := splice(client, brw.Reader, up, fromUp, p.cfg.Limits.IdleTimeout, p.rate()); err != nil {
		p.cfg.Log.Debug("tunnel ended", "host", target, "err", err)
	}
}

// forward serves a plain-http request: checks the destination, connects to
// a checked address, sends the request on (hop-by-hop headers removed, one
// request per connection) and the answer back.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	host, portText := r.URL.Hostname(), r.URL.Port()
	if portText == "" {
		portText = "80"
	}
	port, err := parsePort(portText)
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	target := net.JoinHostPort(host, portText)
	addrs, ok := p.destination(w, r, target, host, port)
	if !ok {
		return
	}
	conn, viaUpstream, err := p.connectForward(r.Context(), r.URL, addrs)
	if errors.Is(err, errNoConnection) {
		p.unreachable(w, r, target, err)
		return
	}
	if err != nil {
		// The upstream proxy setting, not the site, failed: say so.
		p.badGateway(w, target, err)
		return
	}
	up := &idleConn{Conn: conn, idle: p.cfg.Limits.IdleTimeout, rate: p.rate()}
	defer func() { _ = up.Close() }()
	out := outgoing(r, viaUpstream != nil)
	write := out.Write
	if viaUpstream != nil {
		if viaUpstream.User != nil {
			out.Header.Set("Proxy-Authorization", basicAuth(viaUpstream.User))
		}
		write = out.WriteProxy
	}
	if err := write(up); err != nil {
		p.unreachable(w, r, target, fmt.Errorf("sending the request: %w", err))
		return
	}
	resp, err := readResponse(up, out, p.cfg.Limits.MaxHeaderBytes)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The site closed the connection without answering: so does the proxy.
		p.unreachable(w, r, target, fmt.Errorf("reading the answer: %w", err))
		return
	}
	if err != nil {
		// It answered something that cannot be passed on (too large a
		// header, a protocol switch, not HTTP): a 502 says what.
		p.badGateway(w, target, fmt.Errorf("reading the answer: %w", err))
		return
	}
	defer func() { _ = resp.Body.Close() }()
	removeHopHeaders(resp.Header)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	copyBody(w, resp.Body, p.cfg.Limits.IdleTimeout)
}

// outgoing is r as it is sent on: its header without hop-by-hop fields
// (and without Expect, so no interim answer comes), closing the
// connection after it; in origin form ("/path?query") to the destination,
// in absolute form to an upstream proxy.
func outgoing(r *http.Request, viaUpstream bool) *http.Request {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Close = true
	removeHopHeaders(out.Header)
	out.Header.Del("Expect")
	if out.Host == "" {
		out.Host = r.URL.Host
	}
	if !viaUpstream {
		out.URL = &url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	}
	return out
}

// maxInterimAnswers bounds the 1xx answers (103 Early Hints) skipped
// before the final one.
const maxInterimAnswers = 8

// readResponse reads the final answer to req from conn, its header at most
// maxHeader bytes; interim 1xx answers are skipped, and 101 (an upgrade,
// never asked for: Upgrade is a hop-by-hop field) is an error.
func readResponse(conn net.Conn, req *http.Request, maxHeader int) (*http.Response, error) {
	limited := &io.LimitedReader{R: conn, N: int64(maxHeader)}
	br := bufio.NewReader(limited)
	for range maxInterimAnswers {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			if limited.N <= 0 {
				return nil, fmt.Errorf("the answer's header is over %d bytes", maxHeader)
			}
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			_ = resp.Body.Close()
			return nil, errors.New("the destination switched protocols, which the request did not ask for")
		case resp.StatusCode < 200:
			limited.N = int64(maxHeader) // each answer's header has its own bound
			continue
		}
		limited.N = math.MaxInt64 // the body is bounded by time, not size
		return resp, nil
	}
	return nil, fmt.Errorf("more than %d interim answers", maxInterimAnswers)
}

// copyBody copies an answer's body to the client, each write bounded by
// idle (a client that stops reading is let go).
func copyBody(w http.ResponseWriter, body io.Reader, idle time.Duration) {
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(idle))
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// hopHeaders are the fields that concern one connection, never passed on
// (RFC 9110, 7.6.1), the proxy's own included.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func removeHopHeaders(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}
