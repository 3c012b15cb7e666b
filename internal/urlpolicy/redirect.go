package urlpolicy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// HTTPRedirector asks a URL once (GET, no redirects followed, body unread)
// and reports its Location exactly as the server sent it. Its dialer
// re-checks the address it actually connects to against the policy, so a
// name that resolves differently the second time (DNS rebinding) still
// cannot reach a refused address.
//
// It sends the request with the transport alone, not an http.Client: a
// client parses Location itself before any redirect hook runs, and fails on
// values a browser follows (a backslash in the host, a tab, a
// percent-encoded host), which once read as "unreachable" and let the URL
// through. Here every Location reaches ResolveLocation, which reads it as a
// browser does or refuses it.
type HTTPRedirector struct {
	transport *http.Transport
	timeout   time.Duration
}

// NewHTTPRedirector builds a redirector guarded by p.
func NewHTTPRedirector(p *Policy, timeout time.Duration) *HTTPRedirector {
	dialer := &net.Dialer{
		Timeout: timeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("policy: cannot check address %q", address)
			}
			if rule, detail := p.CheckIP(ap.Addr()); rule != "" {
				return fmt.Errorf("policy refused connecting to %s (%s): %s", ap.Addr(), rule, detail)
			}
			return nil
		},
	}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          1,
		DisableKeepAlives:     true,
		Proxy:                 nil, // never through a proxy: the check is about where the scanner itself goes
	}
	return &HTTPRedirector{transport: transport, timeout: timeout}
}

// Redirect implements Redirector.
func (r *HTTPRedirector) Redirect(ctx context.Context, rawURL string) (string, error) {
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "cwac-operator-url-policy/1 (redirect check)")
	resp, err := r.transport.RoundTrip(req)
	if err != nil {
		return "", err
	}
	_ = resp.Body.Close() // only the status and Location are read
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc := resp.Header.Get("Location")
		if loc == "" {
			return "", errors.New("redirect without a Location")
		}
		return loc, nil
	}
	return "", nil
}
