package urlpolicy

import (
	"flag"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The flags build the policy they describe; their defaults resolve names
// and check redirects with a 5-second timeout.
func TestFlagsBuild(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		wantAllow     []string
		wantDeny      []string
		wantDenyCIDR  []netip.Prefix
		wantAllowCIDR []netip.Prefix
		wantResolve   bool
		wantRedirects bool
		wantTimeout   time.Duration
		wantErr       string
	}{
		{name: "defaults", wantResolve: true, wantRedirects: true, wantTimeout: 5 * time.Second},
		{
			name: "everything set",
			args: []string{
				"--url-allow-domains= govt.nz, *.example.org. ,", "--url-deny-domains=bad.govt.nz",
				"--url-deny-cidrs=10.96.0.0/12,fd00::1/8", "--url-allow-cidrs=127.0.0.0/8",
				"--url-resolve=false", "--url-check-redirects=false", "--url-check-timeout=2s",
			},
			wantAllow: []string{"govt.nz", "example.org"}, wantDeny: []string{"bad.govt.nz"},
			wantDenyCIDR:  []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12"), netip.MustParsePrefix("fd00::/8")},
			wantAllowCIDR: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			wantTimeout:   2 * time.Second,
		},
		{name: "a bad denied range", args: []string{"--url-deny-cidrs=10.0.0.0/33"}, wantErr: `invalid CIDR "10.0.0.0/33"`},
		{name: "a bad allowed range", args: []string{"--url-allow-cidrs=nonsense"}, wantErr: `invalid CIDR "nonsense"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Flags
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			f.Bind(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			p, err := f.Build()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Build: %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := p.cfg
			if diff := cmp.Diff(tt.wantAllow, c.AllowDomains); diff != "" {
				t.Errorf("allowed domains (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeny, c.DenyDomains); diff != "" {
				t.Errorf("denied domains (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDenyCIDR, c.DenyCIDRs, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("denied ranges (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAllowCIDR, c.AllowCIDRs, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("allowed ranges (-want +got):\n%s", diff)
			}
			if got := c.Resolver == Resolver(net.DefaultResolver); got != tt.wantResolve {
				t.Errorf("resolves names %v, want %v", got, tt.wantResolve)
			}
			if _, got := c.Redirector.(*HTTPRedirector); got != tt.wantRedirects {
				t.Errorf("checks redirects %v, want %v", got, tt.wantRedirects)
			}
			if c.Timeout != tt.wantTimeout || c.MaxRedirects != 5 {
				t.Errorf("timeout %s, max redirects %d; want %s, 5", c.Timeout, c.MaxRedirects, tt.wantTimeout)
			}
		})
	}
}

// The defaults people see in --help are the ones the policy uses.
func TestFlagDefaults(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	new(Flags).Bind(fs)
	want := map[string]string{
		"url-allow-domains": "", "url-deny-domains": "", "url-deny-cidrs": "", "url-allow-cidrs": "",
		"url-resolve": "true", "url-check-redirects": "true", "url-check-timeout": "5s",
	}
	for name, def := range want {
		if f := fs.Lookup(name); f == nil || f.DefValue != def {
			t.Errorf("--%s: %+v, want default %q", name, f, def)
		}
	}
}
