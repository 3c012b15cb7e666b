package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// TestSign checks the signature with an HMAC computed here by hand, as a
// receiver would, and Verify's refusals.
func TestSign(t *testing.T) {
	key, body := []byte("s3cret"), []byte(`{"event":"ScanFailed"}`)
	at := time.Unix(1_800_000_000, 0)
	ts, sig := Sign(key, at, body)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("1800000000." + string(body)))
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); ts != "1800000000" || sig != want {
		t.Fatalf("Sign = %s %s, want 1800000000 %s", ts, sig, want)
	}
	now := at.Add(time.Minute)
	if !Verify(key, ts, sig, body, now, 5*time.Minute) {
		t.Error("a good signature was refused")
	}
	for name, ok := range map[string]bool{
		"other body":    Verify(key, ts, sig, []byte(`{"event":"ScanRecovered"}`), now, 5*time.Minute),
		"other key":     Verify([]byte("other"), ts, sig, body, now, 5*time.Minute),
		"replayed late": Verify(key, ts, sig, body, at.Add(time.Hour), 5*time.Minute),
		"other time":    Verify(key, "1800000001", sig, body, now, 5*time.Minute),
		"no prefix":     Verify(key, ts, strings.TrimPrefix(sig, "sha256="), body, now, 5*time.Minute),
		"not hex":       Verify(key, ts, "sha256=zz", body, now, 5*time.Minute),
		"bad time":      Verify(key, "soon", sig, body, now, 5*time.Minute),
	} {
		if ok {
			t.Errorf("%s: verified", name)
		}
	}
}

func TestRenderSignsWebhooks(t *testing.T) {
	s, d := everyEvent()
	p, _ := Build(s, d, receiver("ops", cwacv1alpha1.ReceiverWebhook, AllEvents...), cwacv1alpha1.EventNewIssues, Options{})
	at := time.Unix(1_800_000_000, 0)
	body, h, err := Render(p, cwacv1alpha1.ReceiverWebhook, []byte("k"), at)
	if err != nil {
		t.Fatal(err)
	}
	if h.Get(HeaderEvent) != "NewIssues" || h.Get(HeaderDelivery) != "uid-s/ops/NewIssues" || h.Get(HeaderTimestamp) != "1800000000" {
		t.Errorf("headers %v", h)
	}
	if !Verify([]byte("k"), h.Get(HeaderTimestamp), h.Get(HeaderSignature), body, at, time.Minute) {
		t.Error("signature does not verify")
	}
	if _, h, _ := Render(p, cwacv1alpha1.ReceiverWebhook, nil, at); h.Get(HeaderSignature) != "" || h.Get(HeaderTimestamp) != "" {
		t.Error("signed without a key")
	}
}

// loopbackOpen is the policy with loopback opened, as a test machine's.
func loopbackOpen() *urlpolicy.Policy {
	return urlpolicy.New(urlpolicy.Config{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Resolver: stubDNS{}})
}

// stubDNS resolves rebind.example to the metadata address, and nothing else.
type stubDNS struct{}

func (stubDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "rebind.example" {
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	return nil, errors.New("no such host")
}

type hits struct {
	n      atomic.Int32
	header atomic.Value
	body   atomic.Value
}

func counting(h *hits, status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.n.Add(1)
		b, _ := io.ReadAll(r.Body)
		h.body.Store(string(b))
		h.header.Store(r.Header.Clone())
		w.WriteHeader(status)
		_, _ = w.Write([]byte(strings.Repeat("x", 1<<20)))
	}
}

func TestSend(t *testing.T) {
	var ok, down, other hits
	okSrv := httptest.NewServer(counting(&ok, http.StatusNoContent))
	defer okSrv.Close()
	downSrv := httptest.NewServer(counting(&down, http.StatusServiceUnavailable))
	defer downSrv.Close()
	otherSrv := httptest.NewServer(counting(&other, http.StatusOK))
	defer otherSrv.Close()
	redirect := httptest.NewServer(http.RedirectHandler(otherSrv.URL+"/elsewhere", http.StatusFound))
	defer redirect.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer slow.Close()

	open := NewSender(loopbackOpen(), true, 500*time.Millisecond)
	ctx := context.Background()
	secretPath := "/services/T000/B000/XXXXsecretXXXX"
	h := http.Header{}
	h.Set(HeaderEvent, "ScanFailed")
	if err := open.Send(ctx, okSrv.URL+secretPath, []byte(`{"a":1}`), h); err != nil {
		t.Fatalf("send: %v", err)
	}
	if ok.n.Load() != 1 || ok.body.Load() != `{"a":1}` || ok.header.Load().(http.Header).Get(HeaderEvent) != "ScanFailed" ||
		ok.header.Load().(http.Header).Get("Content-Type") != "application/json" {
		t.Errorf("received %d, body %v, header %v", ok.n.Load(), ok.body.Load(), ok.header.Load())
	}

	check := func(name string, err error, reason string, permanent bool, says string) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: error %v, want *Error", name, err)
		}
		if e.Reason != reason || e.Permanent != permanent || !strings.Contains(e.Msg, says) {
			t.Errorf("%s: %+v, want reason %s permanent %v saying %q", name, e, reason, permanent, says)
		}
		if strings.Contains(e.Msg, "secret") || strings.Contains(e.Msg, "/services/") {
			t.Errorf("%s: the URL leaked into %q", name, e.Msg)
		}
	}
	check("down", open.Send(ctx, downSrv.URL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonRetrying, false, "HTTP 503")
	check("redirect", open.Send(ctx, redirect.URL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonRetrying, false, "HTTP 302 (redirects are not followed)")
	if other.n.Load() != 0 {
		t.Error("a redirect was followed")
	}
	start := time.Now()
	check("slow", open.Send(ctx, slow.URL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonRetrying, false, "timed out")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a slow receiver held the sender %s", d)
	}
	closedURL := "http://" + freeport.Refused(t)
	check("closed", open.Send(ctx, closedURL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonRetrying, false, "connection refused")

	// The default policy refuses loopback, link-local (metadata) and
	// cluster names, at dial time; nothing reaches the server.
	strict := NewSender(urlpolicy.New(urlpolicy.Config{Resolver: stubDNS{}}), true, time.Second)
	before := ok.n.Load()
	check("loopback", strict.Send(ctx, okSrv.URL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonReceiverRefused, true, "(loopback)")
	check("metadata", strict.Send(ctx, "http://169.254.169.254/latest"+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonReceiverRefused, true, "(link-local)")
	zoned := strings.Replace(okSrv.URL, "127.0.0.1", "[::ffff:127.0.0.1%25lo]", 1)
	check("zoned loopback", strict.Send(ctx, zoned+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonReceiverRefused, true, "zone identifiers")
	check("zoned IPv6 loopback", strict.Send(ctx, "http://[::1%25lo]:"+okSrv.URL[strings.LastIndex(okSrv.URL, ":")+1:]+secretPath, []byte("{}"), nil),
		cwacv1alpha1.ReasonReceiverRefused, true, "zone identifiers")
	check("zoned link-local", strict.Send(ctx, "http://[fe80::1%25lo]:19001"+secretPath, []byte("{}"), nil),
		cwacv1alpha1.ReasonReceiverRefused, true, "zone identifiers")
	check("cluster name", strict.Send(ctx, "http://hooks.team.svc.cluster.local"+secretPath, []byte("{}"), nil),
		cwacv1alpha1.ReasonReceiverRefused, true, "cluster-internal-name")
	check("rebinding name", strict.Send(ctx, "https://rebind.example"+secretPath, []byte("{}"), nil),
		cwacv1alpha1.ReasonReceiverRefused, true, "resolves to 169.254.169.254")
	check("unresolvable", strict.Send(ctx, "https://nowhere.example"+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonRetrying, false, "could not be resolved")
	if ok.n.Load() != before {
		t.Error("a refused receiver was sent to")
	}

	httpsOnly := NewSender(loopbackOpen(), false, time.Second)
	check("http", httpsOnly.Send(ctx, okSrv.URL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonReceiverURLInvalid, true,
		"is http: only https receivers are sent to (--notify-allow-http opens http)")
	check("http, another switch", NewSender(loopbackOpen(), false, time.Second).WithHTTPSwitch("issueEvents.allowHTTP").Send(ctx,
		okSrv.URL+secretPath, []byte("{}"), nil), cwacv1alpha1.ReasonReceiverURLInvalid, true, "(issueEvents.allowHTTP opens http)")
	check("scheme", open.Send(ctx, "ftp://x.example"+secretPath, nil, nil), cwacv1alpha1.ReasonReceiverURLInvalid, true, "https://")
	check("userinfo", open.Send(ctx, "https://u:p@x.example"+secretPath, nil, nil), cwacv1alpha1.ReasonReceiverURLInvalid, true, "user name")
	check("no host", open.Send(ctx, "https://"+secretPath, nil, nil), cwacv1alpha1.ReasonReceiverURLInvalid, true, "no host")
	check("long", open.Send(ctx, "https://x.example/"+strings.Repeat("a", 3000), nil, nil), cwacv1alpha1.ReasonReceiverURLInvalid, true, "longer than 2048")
	check("garbage", open.Send(ctx, "https://x.example/%zz"+secretPath, nil, nil), cwacv1alpha1.ReasonReceiverURLInvalid, true, "not a valid URL")
	check("big body", open.Send(ctx, okSrv.URL, make([]byte, MaxBody+1), nil), cwacv1alpha1.ReasonDeliveryFailed, true, "exceeds")
}

func TestRetry(t *testing.T) {
	at := func(sec int64) *metav1.Time { x := metav1.Unix(1_800_000_000+sec, 0); return &x }
	r := Retry{First: 5 * time.Second, MaxGap: time.Minute, Window: 10 * time.Minute}
	for _, tc := range []struct {
		attempts int32
		last     int64
		next     int64
		giveUp   bool
	}{
		{1, 0, 5, false}, {2, 5, 15, false}, {3, 15, 35, false}, {4, 35, 75, false},
		{5, 75, 135, false}, {9, 400, 460, false}, {30, 540, 600, false}, {31, 541, 601, true},
	} {
		d := cwacv1alpha1.NotificationDelivery{Attempts: tc.attempts, FirstAttemptTime: at(0), LastAttemptTime: at(tc.last)}
		if got := r.NextAttempt(d); !got.Equal(at(tc.next).Time) {
			t.Errorf("attempts %d last %d: next %s, want +%ds", tc.attempts, tc.last, got, tc.next)
		}
		if got := r.GiveUp(d); got != tc.giveUp {
			t.Errorf("attempts %d last %d: give up %v", tc.attempts, tc.last, got)
		}
	}
	if !(Retry{}).NextAttempt(cwacv1alpha1.NotificationDelivery{}).IsZero() {
		t.Error("a new delivery waits")
	}
	if (Retry{}).GiveUp(cwacv1alpha1.NotificationDelivery{}) {
		t.Error("a new delivery gave up")
	}
	d := cwacv1alpha1.NotificationDelivery{Attempts: 1, FirstAttemptTime: at(0), LastAttemptTime: at(3599)}
	if !(Retry{}).GiveUp(d) || (Retry{}).GiveUp(cwacv1alpha1.NotificationDelivery{Attempts: 1, FirstAttemptTime: at(0), LastAttemptTime: at(3594)}) {
		t.Error("defaults: the window is not an hour with 5 s first retry")
	}
}
