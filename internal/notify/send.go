package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/netdial"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Defaults of a Sender.
const (
	DefaultTimeout = 10 * time.Second
	// maxResponse is the most of a receiver's answer read (then dropped):
	// enough to let the connection be reused, never enough to matter.
	maxResponse = 16 << 10
)

// Error is a failed delivery, with the NotificationsDelivered reason it
// maps to. Its message never holds the receiver's URL: an incoming-webhook
// URL is a credential.
type Error struct {
	// Reason is a cwacv1alpha1 Reason* constant.
	Reason string
	// Permanent errors are not retried: the same URL fails the same way.
	Permanent bool
	Msg       string
}

func (e *Error) Error() string { return e.Msg }

// Sender posts bodies to receivers. Every connection goes only to
// addresses the target policy allows, checked when it is dialled, after
// the name is resolved (so DNS rebinding cannot lead elsewhere); no proxy
// from the environment is used, and redirects are not followed.
type Sender struct {
	policy    *urlpolicy.Policy
	allowHTTP bool
	// httpSwitch names what lets this sender's receivers use http, for the
	// refusal of an http URL to say.
	httpSwitch string
	client     *http.Client
	dialer     net.Dialer
}

// DefaultHTTPSwitch is what lets notification receivers use http: the
// operator's flag.
const DefaultHTTPSwitch = "--notify-allow-http"

// WithHTTPSwitch names what lets this sender's receivers use http (a
// flag, or a chart value), for the refusal of an http URL to say.
func (s *Sender) WithHTTPSwitch(name string) *Sender {
	s.httpSwitch = name
	return s
}

// NewSender makes a sender. The policy must resolve names (a policy
// without a resolver refuses every name). allowHTTP lets receivers use
// http; otherwise only https is sent to.
func NewSender(policy *urlpolicy.Policy, allowHTTP bool, timeout time.Duration) *Sender {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	s := &Sender{policy: policy, allowHTTP: allowHTTP, httpSwitch: DefaultHTTPSwitch, dialer: net.Dialer{Timeout: timeout / 2}}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           s.dial,
		TLSHandshakeTimeout:   timeout / 2,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	s.client = &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s
}

// refused is a dial the policy refused.
type refused struct{ d *urlpolicy.Denial }

func (r *refused) Error() string { return r.d.Error() }

func (s *Sender) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portText)
	}
	addrs, denial := s.policy.Destination(ctx, host)
	if denial != nil {
		return nil, &refused{denial}
	}
	checked := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		checked = append(checked, netip.AddrPortFrom(a, uint16(port)))
	}
	return netdial.FirstOf(ctx, &s.dialer, network, checked)
}

// CheckURL checks a receiver URL's form (not yet where it leads): http(s),
// https unless http is allowed, a host, no user-info, bounded length.
func (s *Sender) CheckURL(raw string) (*url.URL, *Error) {
	invalid := func(why string) (*url.URL, *Error) {
		return nil, &Error{Reason: cwacv1alpha1.ReasonReceiverURLInvalid, Permanent: true, Msg: "the receiver URL " + why}
	}
	if len(raw) > urlpolicy.MaxURLLength {
		return invalid(fmt.Sprintf("is longer than %d bytes", urlpolicy.MaxURLLength))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("is not a valid URL")
	}
	switch {
	case u.Scheme == "http" && !s.allowHTTP:
		return invalid("is http: only https receivers are sent to (" + s.httpSwitch + " opens http)")
	case u.Scheme != "https" && u.Scheme != "http":
		return invalid("must start with https://")
	case u.User != nil:
		return invalid("may not hold a user name or password")
	case u.Hostname() == "":
		return invalid("has no host")
	}
	return u, nil
}

// Send posts body to the receiver URL with headers. A 2xx answer is
// success; anything else, a redirect included, is an *Error.
func (s *Sender) Send(ctx context.Context, rawURL string, body []byte, headers http.Header) error {
	u, uerr := s.CheckURL(rawURL)
	if uerr != nil {
		return uerr
	}
	if len(body) > MaxBody {
		return &Error{Reason: cwacv1alpha1.ReasonDeliveryFailed, Permanent: true, Msg: fmt.Sprintf("body of %d bytes exceeds the %d-byte cap", len(body), MaxBody)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return &Error{Reason: cwacv1alpha1.ReasonReceiverURLInvalid, Permanent: true, Msg: "the receiver URL cannot be requested"}
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cwac-operator")
	resp, err := s.client.Do(req)
	if err != nil {
		var r *refused
		if errors.As(err, &r) && r.d.Rule == urlpolicy.RuleUnresolvable {
			// Name lookups fail for a while and recover: tried again.
			return &Error{Reason: cwacv1alpha1.ReasonRetrying, Msg: "the receiver's host cannot be resolved: " + r.d.Detail}
		}
		if errors.As(err, &r) {
			return &Error{Reason: cwacv1alpha1.ReasonReceiverRefused, Permanent: true, Msg: "the receiver's address is refused by the target policy: " + r.Error()}
		}
		return &Error{Reason: cwacv1alpha1.ReasonRetrying, Msg: "posting to the receiver failed: " + withoutURL(err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	_ = resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	msg := fmt.Sprintf("the receiver answered HTTP %d", resp.StatusCode)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		msg += " (redirects are not followed)"
	}
	return &Error{Reason: cwacv1alpha1.ReasonRetrying, Msg: msg}
}

// withoutURL is a client error's cause without the request URL that
// net/http puts in front of it.
func withoutURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return err.Error()
}
