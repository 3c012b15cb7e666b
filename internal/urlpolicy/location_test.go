package urlpolicy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Location values a browser resolves differently from Go's URL parser: each
// must come out where the browser goes (the WHATWG URL standard's answers).
func TestResolveLocationLikeABrowser(t *testing.T) {
	base, _ := url.Parse("http://site.example/a/b")
	tests := []struct {
		location, want, wantErr string
	}{
		{location: `/\169.254.169.254/latest/meta-data/`, want: "http://169.254.169.254/latest/meta-data/"},
		{location: `\\169.254.169.254\`, want: "http://169.254.169.254/"},
		{location: `/\/169.254.169.254/`, want: "http://169.254.169.254/"},
		{location: `\/169.254.169.254/`, want: "http://169.254.169.254/"},
		{location: `http://169.254.169.254\@127.0.0.2/`, want: "http://169.254.169.254/@127.0.0.2/"},
		{location: "/\t/169.254.169.254/", want: "http://169.254.169.254/"},
		{location: "/\n/169.254.169.254/", want: "http://169.254.169.254/"},
		{location: " \x00//169.254.169.254/ ", want: "http://169.254.169.254/"},
		{location: "http:///169.254.169.254/", want: "http://169.254.169.254/"},
		{location: "https:169.254.169.254/", want: "https://169.254.169.254/"},
		{location: "HTTPS://Other.example/x?q=a\\b", want: "https://Other.example/x?q=a\\b"}, // the query keeps its backslash
		// A percent-encoded host is decoded first, as a browser decodes it.
		{location: "http://%31%36%39.254.169.254/", want: "http://169.254.169.254/"},
		{location: "//%31%36%39.254.169.254:8080/x?y", want: "http://169.254.169.254:8080/x?y"},
		{location: "http://user@%31%32%37.0.0.1/", want: "http://user@127.0.0.1/"},
		{location: "http://EX%41MPLE.org/", want: "http://example.org/"},
		{location: "http://example.org/%31", want: "http://example.org/%31"}, // a path's escapes stay
		// Ordinary redirects stay what they were.
		{location: "/ok", want: "http://site.example/ok"},
		{location: "ok", want: "http://site.example/a/ok"},
		{location: "http:ok", want: "http://site.example/a/ok"},
		{location: "?page=2", want: "http://site.example/a/b?page=2"},
		{location: "https://www.example.govt.nz/", want: "https://www.example.govt.nz/"},
		{location: "//cdn.example/x", want: "http://cdn.example/x"},
		// What cannot be resolved is an error (the check refuses it).
		{location: "", wantErr: "empty Location"},
		{location: " \t", wantErr: "empty Location"},
		{location: "javascript:alert(1)", wantErr: "javascript: URL"},
		{location: "file:///etc/passwd", wantErr: "file: URL"},
		{location: "http://", wantErr: "without a host"},
		{location: "//", wantErr: "without a host"},
		{location: "http://[::1", wantErr: "cannot be parsed"},
		{location: "%zz", wantErr: "cannot be parsed"},
		{location: "http://%zz.example/", wantErr: "percent-encoded host"},
		{location: "http://%2F%2F169.254.169.254/", wantErr: "percent-encoded host"},
		{location: "http://a%40169.254.169.254/", wantErr: "percent-encoded host"},
		{location: "http://%C3%A9.example/", wantErr: "percent-encoded host"},
		{location: "http://%00.example/", wantErr: "percent-encoded host"},
		{location: "http://%7F.example/", wantErr: "percent-encoded host"},
		{location: "http://%/", wantErr: "percent-encoded host"},
		{location: "http://a%20b.example/", wantErr: "percent-encoded host"}, // a space, the last code point refused below 0x21
		{location: "http://a%21b.example/", want: "http://a!b.example/"},     // "!", the first one allowed (the policy refuses the name)
		{location: "http://?%41", wantErr: "without a host"},                 // a query is not a host, whatever it holds
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

// A redirect the browser would follow to the metadata address is refused,
// and one whose Location cannot be resolved is refused too (fail closed).
func TestRedirectCheckFailsClosed(t *testing.T) {
	locations := []string{
		`/\169.254.169.254/latest/meta-data/`, `\\169.254.169.254\`, `/\/169.254.169.254/`, `\/169.254.169.254/`,
		`http://169.254.169.254\@127.0.0.2/`, "/\t/169.254.169.254/", "http://[::1", "javascript:alert(1)",
	}
	for _, loc := range locations {
		p := New(Config{Resolver: resolver, Redirector: stubRedirector{"https://public.example.org/": loc}})
		d := p.CheckURL(context.Background(), "https://public.example.org/")
		if d == nil || d.Rule != RuleRedirect {
			t.Errorf("Location %q: %v, want a %s denial", loc, d, RuleRedirect)
		}
	}
}

// The Location values Go's HTTP client could not parse, which once counted
// as "unreachable, allow", sent by a real server on loopback: each is read as
// a browser reads it, leads to the metadata address, and is refused.
func TestRedirectCheckReadsLocationLikeABrowser(t *testing.T) {
	locations := []string{
		`http://169.254.169.254\@127.0.0.2/`,
		"/\t/169.254.169.254/",
		"http://%31%36%39.254.169.254/",
		"//%31%36%39.254.169.254/latest/meta-data/",
	}
	for _, loc := range locations {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header()["Location"] = []string{loc}
			w.WriteHeader(http.StatusFound)
		}))
		p := New(Config{AllowCIDRs: mustCIDRs("127.0.0.0/8")})
		p.cfg.Redirector = NewHTTPRedirector(p, 5*time.Second)
		d := p.CheckURL(context.Background(), srv.URL+"/")
		srv.Close()
		if d == nil || d.Rule != RuleRedirect || !strings.Contains(d.Detail, "redirects to http://169.254.169.254/") || !strings.Contains(d.Detail, RuleLinkLocal) {
			t.Errorf("Location %q: %v, want a %s denial naming the metadata address", loc, d, RuleRedirect)
		}
	}
}

// A Location that cannot be read as a browser reads it is refused, sent by a
// real server too: never counted as an unreachable site.
func TestRedirectCheckRefusesAnUnreadableLocation(t *testing.T) {
	for _, loc := range []string{"http://%zz.example/", "http://[::1", "javascript:alert(1)"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header()["Location"] = []string{loc}
			w.WriteHeader(http.StatusMovedPermanently)
		}))
		p := New(Config{AllowCIDRs: mustCIDRs("127.0.0.0/8")})
		p.cfg.Redirector = NewHTTPRedirector(p, 5*time.Second)
		d := p.CheckURL(context.Background(), srv.URL+"/")
		srv.Close()
		if d == nil || d.Rule != RuleRedirect {
			t.Errorf("Location %q: %v, want a %s denial", loc, d, RuleRedirect)
		}
	}
}

// Whatever a server puts in Location, a resolved redirect is an http or
// https URL with a host, never something else waved through.
func FuzzResolveLocation(f *testing.F) {
	for _, s := range []string{`/\169.254.169.254/`, "http:ok", "//x", "javascript:x", "/\t/a", "https:b", "?q", "%zz"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://site.example/a/b")
	f.Fuzz(func(t *testing.T, location string) {
		u, err := ResolveLocation(base, location)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			t.Fatalf("ResolveLocation(%q) = %q: not an http(s) URL with a host", location, u)
		}
	})
}
