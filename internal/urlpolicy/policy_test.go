package urlpolicy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// stubResolver answers from a table, like a local DNS server would.
type stubResolver map[string][]string

func (s stubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := s[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

var resolver = stubResolver{
	"www.example.govt.nz":   {"151.101.0.10"},
	"public.example.org":    {"151.101.1.7", "2606:4700::6810:85e5"},
	"sneaky.example.org":    {"151.101.1.8", "10.0.0.5"},
	"metadata.example.org":  {"169.254.169.254"},
	"loop.example.org":      {"127.0.0.1"},
	"v6loop.example.org":    {"::1"},
	"mapped.example.org":    {"::ffff:192.168.1.1"},
	"ula.example.org":       {"fd00:ec2::254"},
	"a.govt.nz":             {"151.101.0.20"},
	"www.health.govt.nz":    {"151.101.0.21"},
	"evilgovt.nz":           {"151.101.0.22"},
	"blocked.example.com":   {"151.101.0.23"},
	"in-cluster.example.io": {"10.96.0.10"},
}

func TestHostileURLs(t *testing.T) {
	p := New(Config{Resolver: resolver, DenyDomains: []string{"example.com"}, DenyCIDRs: mustCIDRs("10.96.0.0/12")})
	tests := []struct {
		url  string
		rule string // "" = allowed
	}{
		{"https://www.example.govt.nz/", ""},
		{"http://public.example.org:8080/a?b=c", ""},
		{"https://151.101.0.10/", ""},
		// Special-purpose ranges no public site uses (refused by default).
		{"http://[::ffff:0:127.0.0.1]/", RuleLoopback},
		{"http://[::ffff:0:a9fe:a9fe]/", RuleLinkLocal},
		{"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", RuleReserved}, // Teredo hiding 127.0.0.1
		{"http://[64:ff9b:1::7f00:1]/", RuleLoopback},
		{"http://[64:ff9b:1:2::5db8:d70e]/", RuleReserved}, // NAT64 local use, even around a public address
		{"http://192.0.2.1/", RuleReserved},
		{"http://198.51.100.1/", RuleReserved},
		{"http://203.0.113.255/", RuleReserved},
		{"http://192.88.99.1/", RuleReserved},
		{"http://[2001:10::1]/", RuleReserved},
		{"http://[2001:2f::1]/", RuleReserved},
		{"http://203.0.112.255/", ""}, // one below TEST-NET-3
		{"http://203.0.114.0/", ""},   // one above
		// IP literals in every form browsers accept, all 127.0.0.1
		{"http://127.0.0.1/", RuleLoopback},
		{"http://2130706433/", RuleLoopback},
		{"http://0x7f000001/", RuleLoopback},
		{"http://0x7f.0.0.1/", RuleLoopback},
		{"http://0177.0.0.1/", RuleLoopback},
		{"http://0177.00.00.01/", RuleLoopback},
		{"http://127.1/", RuleLoopback},
		{"http://127.0.1/", RuleLoopback},
		{"http://127.000.000.001/", RuleLoopback},
		{"http://127.0.0.1./", RuleLoopback},
		{"http://[::1]/", RuleLoopback},
		{"http://[::ffff:127.0.0.1]/", RuleLoopback},
		{"http://[::ffff:7f00:1]/", RuleLoopback},
		{"http://[0:0:0:0:0:ffff:127.0.0.1]/", RuleLoopback},
		{"http://[64:ff9b::7f00:1]/", RuleLoopback},
		{"http://[2002:7f00:1::]/", RuleLoopback},
		{"http://0.0.0.0/", RuleUnspecified},
		{"http://0/", RuleUnspecified},
		{"http://[::]/", RuleUnspecified},
		// metadata, private, shared, multicast, reserved
		{"http://169.254.169.254/latest/meta-data/", RuleLinkLocal},
		{"http://0xa9fea9fe/", RuleLinkLocal},
		{"http://[fe80::1]/", RuleLinkLocal},
		{"http://[fd00:ec2::254]/", RulePrivate},
		{"http://10.1.2.3/", RulePrivate},
		{"http://172.16.0.1/", RulePrivate},
		{"http://172.31.255.255/", RulePrivate},
		{"http://192.168.0.1/", RulePrivate},
		{"http://100.100.100.200/", RuleShared},
		{"http://224.0.0.1/", RuleMulticast},
		{"http://255.255.255.255/", RuleReserved},
		{"http://10.96.0.1/", RuleDenyCIDR},
		// invalid IPv4 forms are refused, not treated as names
		{"http://256.0.0.1/", RuleHost},
		{"http://1.2.3.4.5/", RuleHost},
		{"http://0x100000000/", RuleHost},
		{"http://08.0.0.1/", RuleHost},
		// names
		{"http://localhost/", RuleClusterName},
		{"http://LOCALHOST:8080/", RuleClusterName},
		{"http://foo.localhost/", RuleClusterName},
		{"http://kubernetes.default.svc/", RuleClusterName},
		{"http://kubernetes.default.svc.cluster.local/", RuleClusterName},
		{"http://metadata.google.internal/", RuleClusterName},
		{"http://printer.local/", RuleClusterName},
		{"http://intranet/", RuleClusterName},
		{"http://sneaky.example.org/", RulePrivate},
		{"http://metadata.example.org/", RuleLinkLocal},
		{"http://loop.example.org/", RuleLoopback},
		{"http://v6loop.example.org/", RuleLoopback},
		{"http://mapped.example.org/", RulePrivate},
		{"http://ula.example.org/", RulePrivate},
		{"http://in-cluster.example.io/", RuleDenyCIDR},
		{"http://nowhere.example.net/", RuleUnresolvable},
		{"https://blocked.example.com/", RuleDenyDomain},
		{"https://www.blocked.example.com/", RuleDenyDomain},
		// schemes and forms
		{"file:///etc/passwd", RuleScheme},
		{"javascript:alert(1)", RuleScheme},
		{"data:text/html,<script>alert(1)</script>", RuleScheme},
		{"ftp://public.example.org/", RuleScheme},
		{"gopher://127.0.0.1:6379/_FLUSHALL", RuleScheme},
		{"http://public@127.0.0.1/", RuleUserInfo},
		{"http://user:pass@public.example.org/", RuleUserInfo},
		{"http://127.0.0.1\\@public.example.org/", RuleHost},
		{"http:///path", RuleHost},
		{"http://[::1%25eth0]/", RuleHost},
		{"http://public.example.org:99999/", RuleHost},
		{"http://exa mple.org/", RuleHost},
		{"https://public.example.org/" + strings.Repeat("a", 2048), RuleLength},
	}
	for _, tt := range tests {
		t.Run(tt.url[:min(len(tt.url), 60)], func(t *testing.T) {
			d := p.CheckURL(context.Background(), tt.url)
			got := ""
			if d != nil {
				got = d.Rule
				if !strings.Contains(d.Error(), d.Rule) || d.Detail == "" {
					t.Errorf("unclear denial: %v", d)
				}
			}
			if got != tt.rule {
				t.Errorf("CheckURL(%q) = %v, want rule %q", tt.url, d, tt.rule)
			}
		})
	}
}

func TestAllowlistAndOptIn(t *testing.T) {
	p := New(Config{Resolver: resolver, AllowDomains: []string{"*.govt.nz."}})
	for url, rule := range map[string]string{
		"https://a.govt.nz/":          "",
		"https://www.health.govt.nz/": "",
		"https://evilgovt.nz/":        RuleNotAllowed,
		"https://public.example.org/": RuleNotAllowed,
		"https://151.101.0.10/":       RuleNotAllowed,
	} {
		if d := p.CheckURL(context.Background(), url); (d == nil) != (rule == "") || (d != nil && d.Rule != rule) {
			t.Errorf("%s: %v, want %q", url, d, rule)
		}
	}
	// Loopback only by explicit opt-in, and only the range opened.
	open := New(Config{AllowCIDRs: mustCIDRs("127.0.0.0/8")})
	if d := open.CheckURL(context.Background(), "http://127.0.0.1:8765/"); d != nil {
		t.Errorf("opted-in loopback refused: %v", d)
	}
	if d := open.CheckURL(context.Background(), "http://169.254.169.254/"); d == nil {
		t.Error("metadata allowed by a loopback opt-in")
	}
	if d := open.CheckURL(context.Background(), "http://localhost:8765/"); d == nil {
		t.Error("the name localhost is refused even when loopback addresses are opened (use 127.0.0.1)")
	}
}

type stubRedirector map[string]string

func (s stubRedirector) Redirect(_ context.Context, u string) (string, error) { return s[u], nil }

func TestRedirectsSeenAtAdmission(t *testing.T) {
	p := New(Config{Resolver: resolver, Redirector: stubRedirector{
		"https://public.example.org/":       "http://169.254.169.254/latest/",
		"https://www.example.govt.nz/":      "/home", // relative: same host
		"https://www.example.govt.nz/home":  "",
		"https://a.govt.nz/":                "https://www.health.govt.nz/x",
		"https://www.health.govt.nz/x":      "https://a.govt.nz/", // a loop
		"https://151.101.0.10/":             "https://loop.example.org/",
		"https://www.health.govt.nz/denied": "javascript:alert(1)",
	}})
	tests := map[string]string{
		"https://public.example.org/":       RuleRedirect,
		"https://www.example.govt.nz/":      "",
		"https://a.govt.nz/":                RuleRedirect,
		"https://151.101.0.10/":             RuleRedirect,
		"https://www.health.govt.nz/denied": RuleRedirect,
	}
	for url, rule := range tests {
		d := p.CheckURL(context.Background(), url)
		if (d == nil) != (rule == "") || (d != nil && d.Rule != rule) {
			t.Errorf("%s: %v, want %q", url, d, rule)
		}
	}
	d := p.CheckURL(context.Background(), "https://public.example.org/")
	if d == nil || !strings.Contains(d.Detail, "redirects to http://169.254.169.254/latest/") || !strings.Contains(d.Detail, RuleLinkLocal) {
		t.Errorf("redirect denial does not say where: %v", d)
	}
}

// TestHTTPRedirector checks the real redirect probe on loopback, opted in.
func TestHTTPRedirector(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-self":
			http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
		default:
			_, _ = fmt.Fprint(w, "ok")
		}
	}))
	defer srv.Close()
	p := New(Config{AllowCIDRs: mustCIDRs("127.0.0.0/8")})
	p.cfg.Redirector = NewHTTPRedirector(p, 0)
	if d := p.CheckURL(context.Background(), srv.URL+"/to-metadata"); d == nil || d.Rule != RuleRedirect {
		t.Errorf("redirect to metadata: %v", d)
	}
	if d := p.CheckURL(context.Background(), srv.URL+"/to-self"); d != nil {
		t.Errorf("same-site redirect refused: %v", d)
	}
	// Without the opt-in, the probe's dialer itself refuses loopback.
	strict := New(Config{})
	if _, err := NewHTTPRedirector(strict, 0).Redirect(context.Background(), srv.URL+"/"); err == nil || !strings.Contains(err.Error(), "policy refused") {
		t.Errorf("dialer did not refuse loopback: %v", err)
	}
}

func TestParseCIDRs(t *testing.T) {
	got, err := ParseCIDRs(" 10.96.0.0/12, fd00::/8 ,")
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := ParseCIDRs("10.0.0.0/33"); err == nil {
		t.Error("bad CIDR accepted")
	}
}

func mustCIDRs(s string) []netip.Prefix {
	p, err := ParseCIDRs(s)
	if err != nil {
		panic(err)
	}
	return p
}

// FuzzCheckURL: no input panics, and nothing the policy allows points at a
// refused address once parsed the way a browser would.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1/", "http://0x7f.1/", "http://[::ffff:10.0.0.1]/", "https://www.example.govt.nz/",
		"http://2130706433/", "http://a@b/", "http://1.2.3.4.5/",
	} {
		f.Add(s)
	}
	p := New(Config{Resolver: resolver})
	f.Fuzz(func(t *testing.T, raw string) {
		d := p.CheckURL(context.Background(), raw)
		if d != nil {
			return
		}
		host := strings.ToLower(hostOf(raw))
		if ip, ok, err := parseHostIP(host); err == nil && ok {
			if rule, _ := p.CheckIP(ip); rule != "" {
				t.Fatalf("allowed %q, which is %s (%s)", raw, ip, rule)
			}
		}
	})
}

func hostOf(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if strings.HasPrefix(rest, "[") {
		if j := strings.Index(rest, "]"); j >= 0 {
			return rest[:j+1]
		}
	}
	if j := strings.LastIndex(rest, ":"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
