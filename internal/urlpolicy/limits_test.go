package urlpolicy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// parseHostIP at each boundary of the WHATWG IPv4 parser: label counts,
// each label's range, the last label's range by how many labels precede
// it, and the characters that make a label a number.
func TestParseHostIPBoundaries(t *testing.T) {
	tests := []struct {
		host    string
		want    string // the address; "" for a name
		wantErr string
	}{
		// Four labels, each 0-255; one above in any position is refused.
		{host: "1.2.3.255", want: "1.2.3.255"},
		{host: "1.2.3.256", wantErr: errInvalidIPv4.Error()},
		{host: "255.2.3.4", want: "255.2.3.4"},
		{host: "256.2.3.4", wantErr: errInvalidIPv4.Error()},
		{host: "1.2.3.4.", want: "1.2.3.4"}, // one trailing dot
		{host: "1.2.3.4.5", wantErr: errInvalidIPv4.Error()},
		// Fewer labels: the last one fills the rest, below 256^(5-labels).
		{host: "1.2.65535", want: "1.2.255.255"},
		{host: "1.2.65536", wantErr: errInvalidIPv4.Error()},
		{host: "1.16777215", want: "1.255.255.255"},
		{host: "1.16777216", wantErr: errInvalidIPv4.Error()},
		{host: "4294967295", want: "255.255.255.255"},
		{host: "4294967296", wantErr: errInvalidIPv4.Error()},
		{host: "0xffffffff", want: "255.255.255.255"},
		{host: "0x100000000", wantErr: errInvalidIPv4.Error()},
		// "0x" alone is the number 0; hex digits at each end of their ranges.
		{host: "0x", want: "0.0.0.0"},
		{host: "127.0.0.0x", want: "127.0.0.0"},
		{host: "0xaf.0xAF.0x9.0x0", want: "175.175.9.0"},
		{host: "0XfF.0.0.1", want: "255.0.0.1"},
		{host: "1.2.3.0xa", want: "1.2.3.10"}, // the last label decides whether a host is an address
		{host: "1.2.3.0xf", want: "1.2.3.15"},
		{host: "1.2.3.0xA", want: "1.2.3.10"},
		{host: "1.2.3.0xF", want: "1.2.3.15"},
		{host: "1.2.3.0x9", want: "1.2.3.9"},
		{host: "1.2.3.0xg"}, // g after f: not a number, so a name
		{host: "1.2.3.0xG"}, // G after F
		{host: "1.2.3.0x`"}, // ` before a
		{host: "1.2.3.0x@"}, // @ before A
		{host: "1.2.3.0x/"}, // / before 0
		{host: "1.2.3.0x;"}, // ; after 9 (a colon makes it an IPv6 spelling)
		{host: "1.2.3.4a"},  // decimal digits only without 0x
		{host: "0177.0.0.1", want: "127.0.0.1"},
		{host: "09.0.0.1", wantErr: errInvalidIPv4.Error()}, // 9 is no octal digit
		{host: ""},
		{host: "x"},
		// IPv6: bracketed, bare, and zones refused wherever the % is.
		{host: "[::1]", want: "::1"},
		{host: "::1", want: "::1"},
		{host: "[%25eth0]", wantErr: "zone identifiers"},
		{host: "[fe80::1%25eth0]", wantErr: "zone identifiers"},
		{host: "::1%lo", wantErr: "zone identifiers"},       // bare, as net.SplitHostPort leaves a CONNECT target
		{host: "fe80::1%25lo", wantErr: "zone identifiers"}, // bare, zone "25lo"
		{host: "::ffff:127.0.0.1%1", wantErr: "zone identifiers"},
		{host: "::1x", wantErr: "invalid IPv6 address"},
		{host: "1.2.3.4:", wantErr: "invalid IPv6 address"}, // a colon is never in a name
		{host: "[1.2.3.4]", wantErr: "invalid IPv6 address"},
	}
	for _, tt := range tests {
		ip, ok, err := parseHostIP(tt.host)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseHostIP(%q) = %v, %v, %v; want an error with %q", tt.host, ip, ok, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("parseHostIP(%q): %v", tt.host, err)
		case tt.want == "" && ok:
			t.Errorf("parseHostIP(%q) = %v, want a name", tt.host, ip)
		case tt.want != "" && (!ok || ip != netip.MustParseAddr(tt.want)):
			t.Errorf("parseHostIP(%q) = %v, %v; want %s", tt.host, ip, ok, tt.want)
		}
	}
}

// A URL whose host ends in "0x" is the address it spells, refused as such,
// not a name that would pass without a resolver.
func TestHexHostIsAnAddress(t *testing.T) {
	if d := New(Config{}).CheckURL(context.Background(), "http://127.0.0.0x/"); d == nil || d.Rule != RuleLoopback {
		t.Errorf("http://127.0.0.0x/: %v, want %s", d, RuleLoopback)
	}
}

// The limits CheckURL enforces, one below, at and one above: the URL's
// length, a label's 63 and a name's 253 characters, and the port's range.
func TestCheckURLLimits(t *testing.T) {
	label := func(n int) string { return strings.Repeat("a", n) }
	// name(n) is a host name of exactly n characters, in labels of 50.
	name := func(n int) string {
		b := []byte(label(n))
		for i := 50; i < n-1; i += 51 {
			b[i] = '.'
		}
		return string(b)
	}
	urlOfLength := func(n int) string {
		const prefix = "https://example.org/"
		return prefix + strings.Repeat("p", n-len(prefix))
	}
	tests := []struct {
		name, url, rule string
	}{
		{"URL one below the limit", urlOfLength(MaxURLLength - 1), ""},
		{"URL at the limit", urlOfLength(MaxURLLength), ""},
		{"URL one above the limit", urlOfLength(MaxURLLength + 1), RuleLength},
		// Characters, as the CRD's maxLength counts them, not bytes: 2048
		// characters of which most take two bytes pass.
		{"URL at the limit in two-byte characters", "https://example.org/" + strings.Repeat("é", MaxURLLength-len("https://example.org/")), ""},
		{"URL one above the limit in two-byte characters", "https://example.org/" + strings.Repeat("é", MaxURLLength+1-len("https://example.org/")), RuleLength},
		{"label of 62", "https://" + label(62) + ".example/", ""},
		{"label of 63", "https://" + label(63) + ".example/", ""},
		{"label of 64", "https://" + label(64) + ".example/", RuleHost},
		{"name of 252", "https://" + name(252) + "/", ""},
		{"name of 253", "https://" + name(253) + "/", ""},
		{"name of 253 and the root's dot", "https://" + name(253) + "./", ""},
		{"name of 254", "https://" + name(254) + "/", RuleHost},
		{"port 0", "https://example.org:0/", RuleHost},
		{"port 1", "https://example.org:1/", ""},
		{"port 65535", "https://example.org:65535/", ""},
		{"port 65536", "https://example.org:65536/", RuleHost},
		{"label starting with a dash", "https://-a.example/", RuleHost},
		{"label ending with a dash", "https://a-.example/", RuleHost},
		{"underscore", "https://a_b.example/", ""},
	}
	p := New(Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.CheckURL(context.Background(), tt.url)
			if (d == nil) != (tt.rule == "") || (d != nil && d.Rule != tt.rule) {
				t.Errorf("%d characters: %v, want rule %q", len(tt.url), d, tt.rule)
			}
		})
	}
	if n := len(name(253)); n != 253 {
		t.Fatalf("name(253) has %d characters", n)
	}
}

// hostChars are checked at both ends of each allowed range.
func TestValidHostnameCharacters(t *testing.T) {
	for c := 0; c < 128; c++ {
		if c == '.' {
			continue // the separator
		}
		want := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		name := "x" + string(rune(c)) + "x.example"
		if got := validHostname(name); got != want {
			t.Errorf("validHostname(%q) = %v, want %v", name, got, want)
		}
	}
}

// splitScheme's character ranges at both ends, and browserClean's query
// that starts the Location.
func TestResolveLocationSchemeBoundaries(t *testing.T) {
	base, _ := url.Parse("http://site.example/a/b")
	tests := []struct {
		location, want, wantErr string
	}{
		{location: "a:x", wantErr: "redirects to a a: URL"},
		{location: "z:x", wantErr: "redirects to a z: URL"},
		{location: "A:x", wantErr: "redirects to a a: URL"},
		{location: "Z:x", wantErr: "redirects to a z: URL"},
		{location: "a09+-.:x", wantErr: "redirects to a a09+-.: URL"},
		{location: "`:x", wantErr: "cannot be parsed"},  // ` before a: no scheme
		{location: "{:x", wantErr: "cannot be parsed"},  // { after z
		{location: "@:x", wantErr: "cannot be parsed"},  // @ before A
		{location: "[:x", wantErr: "cannot be parsed"},  // [ after Z
		{location: "1a:x", wantErr: "cannot be parsed"}, // a digit cannot start a scheme
		{location: "a_b:x", wantErr: "cannot be parsed"},
		{location: ":x", wantErr: "cannot be parsed"},
		{location: "a/:x", want: "http://site.example/a/a/:x"},
		{location: `?a\b`, want: `http://site.example/a/b?a\b`}, // the query keeps its backslash
	}
	for _, tt := range tests {
		got, err := ResolveLocation(base, tt.location)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ResolveLocation(%q) = %v, %v; want an error with %q", tt.location, got, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ResolveLocation(%q): %v", tt.location, err)
		case got.String() != tt.want:
			t.Errorf("ResolveLocation(%q) = %q, want %q", tt.location, got, tt.want)
		}
	}
}

func TestParsePort(t *testing.T) {
	tests := []struct {
		port string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"65535", 65535, true}, {"65536", 0, false},
		{"99999999999999999999", 0, false}, {"8x", 0, false}, {"-1", 0, false},
	}
	for _, tt := range tests {
		got, err := parsePort(tt.port)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parsePort(%q) = %d, %v; want %d, ok %v", tt.port, got, err, tt.want, tt.ok)
		}
	}
}

// CheckAll answers the earliest refused URL in list order, however many
// are checked at once.
func TestCheckAll(t *testing.T) {
	p := New(Config{})
	urls := make([]string, 20)
	for i := range urls {
		urls[i] = "https://site" + itoa(i) + ".example/"
	}
	if d := p.CheckAll(context.Background(), urls); d != nil {
		t.Fatalf("all public, refused: %v", d)
	}
	urls[15] = "http://10.0.0.1/"
	urls[3] = "http://127.0.0.1/"
	if d := p.CheckAll(context.Background(), urls); d == nil || d.URL != urls[3] || d.Rule != RuleLoopback {
		t.Errorf("CheckAll = %v, want the loopback URL at index 3", d)
	}
}

// With an allow-list of domains, an address literal passes only when its
// range is opened explicitly (IPv4-mapped IPv6 too).
func TestAllowDomainsWithAddressLiterals(t *testing.T) {
	p := New(Config{AllowDomains: []string{"govt.nz"}, AllowCIDRs: mustCIDRs("127.0.0.0/8")})
	tests := map[string]string{
		"http://127.0.0.1/":          "",
		"http://[::ffff:127.0.0.1]/": "",
		"http://151.101.0.10/":       RuleNotAllowed,
	}
	for u, rule := range tests {
		d := p.CheckURL(context.Background(), u)
		if (d == nil) != (rule == "") || (d != nil && d.Rule != rule) {
			t.Errorf("%s: %v, want %q", u, d, rule)
		}
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Only 3xx answers redirect: 299 and 400 do not even with a Location; a
// 3xx without one is an error. Loopback only, opted in.
func TestHTTPRedirectorStatusRange(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if r.URL.Query().Get("location") != "none" {
			w.Header().Set("Location", "/next")
		}
		w.WriteHeader(code)
	}))
	defer srv.Close()
	r := NewHTTPRedirector(New(Config{AllowCIDRs: mustCIDRs("127.0.0.0/8")}), 0)
	tests := []struct {
		path, want, wantErr string
	}{
		{path: "/299", want: ""},
		{path: "/300", want: "/next"},
		{path: "/399", want: "/next"},
		{path: "/400", want: ""},
		{path: "/302?location=none", wantErr: "redirect without a Location"},
	}
	for _, tt := range tests {
		got, err := r.Redirect(context.Background(), srv.URL+tt.path)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: %q, %v; want an error with %q", tt.path, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := r.Redirect(context.Background(), "http://[::1"); err == nil {
		t.Error("an unparsable URL was asked")
	}
}
