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
// and reports its Location. Its dialer re-checks the address it actually
// connects to against the policy, so a name that resolves differently the
// second time (DNS rebinding) still cannot reach a refused address.
type HTTPRedirector struct {
	client *http.Client
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
	return &HTTPRedirector{client: &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Redirect implements Redirector.
func (r *HTTPRedirector) Redirect(ctx context.Context, rawURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "cwac-operator-url-policy/1 (redirect check)")
	resp, err := r.client.Do(req)
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
