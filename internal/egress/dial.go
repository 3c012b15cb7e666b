package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/netdial"
)

// dialChecked connects to the first of addrs that answers, within the
// dial timeout for all of them: only checked addresses, never a name.
func (p *Proxy) dialChecked(ctx context.Context, addrs []netip.AddrPort) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Limits.DialTimeout)
	defer cancel()
	return netdial.FirstOf(ctx, &p.dialer, "tcp", addrs)
}

// upstream is the proxy to reach u through, nil for none.
func (p *Proxy) upstream(u *url.URL) (*url.URL, error) {
	if p.cfg.Upstream == nil {
		return nil, nil
	}
	return p.cfg.Upstream(u)
}

// dialUpstream connects to an upstream proxy (the cluster's way out, which
// the operator configured: it is not the scan's destination, so the
// policy does not apply to it).
func (p *Proxy) dialUpstream(ctx context.Context, proxy *url.URL) (net.Conn, error) {
	if proxy.Scheme != schemeHTTP {
		return nil, fmt.Errorf("upstream proxy %s: only http:// proxies are supported", proxy.Redacted())
	}
	addr := proxy.Host
	if proxy.Port() == "" {
		addr = net.JoinHostPort(proxy.Hostname(), "80")
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Limits.DialTimeout)
	defer cancel()
	return p.dialer.DialContext(ctx, "tcp", addr)
}

// connectTunnel opens the connection a CONNECT tunnel uses: to a checked
// address, or, through the upstream proxy, to the checked name (see
// Config.Upstream). It returns the connection and the reader to read it
// through (it may hold bytes read past the upstream's answer).
func (p *Proxy) connectTunnel(ctx context.Context, target string, addrs []netip.AddrPort) (net.Conn, io.Reader, error) {
	proxy, err := p.upstream(&url.URL{Scheme: "https", Host: target})
	if err != nil {
		return nil, nil, err
	}
	if proxy == nil {
		c, err := p.dialChecked(ctx, addrs)
		return c, c, err
	}
	c, err := p.dialUpstream(ctx, proxy)
	if err != nil {
		return nil, nil, err
	}
	dest := target
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: dest}, Host: dest, Header: http.Header{}}
	if proxy.User != nil {
		req.Header.Set("Proxy-Authorization", basicAuth(proxy.User))
	}
	_ = c.SetDeadline(time.Now().Add(p.cfg.Limits.DialTimeout))
	if err := req.Write(c); err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("upstream proxy %s: %w", proxy.Redacted(), err)
	}
	limited := &io.LimitedReader{R: c, N: int64(p.cfg.Limits.MaxHeaderBytes)}
	br := bufio.NewReader(limited)
	resp, err := http.ReadResponse(br, req)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("answered %s", resp.Status)
	}
	if err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("upstream proxy %s, CONNECT %s: %w", proxy.Redacted(), dest, err)
	}
	_ = c.SetDeadline(time.Time{})
	limited.N = 1<<63 - 1
	return c, br, nil
}

// connectForward opens the connection a plain-http request is sent on: to a
// checked address directly, or to the upstream proxy (returned: the
// request is then sent in absolute form).
func (p *Proxy) connectForward(ctx context.Context, u *url.URL, addrs []netip.AddrPort) (net.Conn, *url.URL, error) {
	proxy, err := p.upstream(u)
	if err != nil {
		return nil, nil, err
	}
	if proxy == nil {
		c, err := p.dialChecked(ctx, addrs)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", errNoConnection, err)
		}
		return c, nil, nil
	}
	c, err := p.dialUpstream(ctx, proxy)
	return c, proxy, err
}

// errNoConnection marks a destination no connection could be opened to
// (refused, timed out): the site did not answer, as opposed to the upstream
// proxy setting failing.
var errNoConnection = errors.New("no connection")

func basicAuth(u *url.Userinfo) string {
	password, _ := u.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+password))
}

// idleConn is a connection whose every read and write must make progress
// within idle, and which moves bytes at least at the rate's minimum.
type idleConn struct {
	net.Conn
	idle time.Duration
	rate *rateMeter
}

func (c *idleConn) Read(b []byte) (int, error) {
	_ = c.SetReadDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Read(b)
	return n, c.metered(n, err)
}

func (c *idleConn) Write(b []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Write(b)
	return n, c.metered(n, err)
}

// metered counts n bytes moved against the minimum rate and returns err,
// or the rate's refusal when there was none.
func (c *idleConn) metered(n int, err error) error {
	if rerr := c.rate.moved(n, time.Now()); rerr != nil && err == nil {
		return rerr
	}
	return err
}

// splice copies bytes both ways between a client and its destination until
// both ends are done, one fails, no byte has moved either way for idle, or
// both ways together moved less than rate's minimum in one of its windows;
// then it closes both and returns what ended it (nil: both ends). An end
// of stream one way is passed on (half-close), so the other way may still
// finish.
func splice(client net.Conn, fromClient io.Reader, dest net.Conn, fromDest io.Reader, idle time.Duration, rate *rateMeter) error {
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	done := make(chan error, 2)
	go func() { done <- pipe(dest, fromClient, client, &last, idle, rate) }()
	go func() { done <- pipe(client, fromDest, dest, &last, idle, rate) }()
	first := <-done
	if first != nil {
		_ = client.Close() // ends the other way's read too
		_ = dest.Close()
	}
	err := errors.Join(first, <-done)
	_ = client.Close()
	_ = dest.Close()
	return err
}

// pipe copies src (read through from) to dst until the end of src, an
// error, idle passing with no byte moved either way (last), or the rate
// falling below its minimum.
func pipe(dst net.Conn, from io.Reader, src net.Conn, last *atomic.Int64, idle time.Duration, rate *rateMeter) error {
	buf := make([]byte, 32<<10)
	for {
		_ = src.SetReadDeadline(time.Now().Add(idle))
		n, err := from.Read(buf)
		if n > 0 {
			now := time.Now()
			last.Store(now.UnixNano())
			if rerr := rate.moved(n, now); rerr != nil {
				return rerr
			}
			_ = dst.SetWriteDeadline(time.Now().Add(idle))
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			if cw, ok := dst.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			}
			return nil
		case isTimeout(err) && time.Since(time.Unix(0, last.Load())) < idle:
			// this way was quiet, the other was not: the tunnel is in use
		default:
			return err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
