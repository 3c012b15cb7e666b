package urlpolicy

import (
	"context"
	"flag"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Every host a connection may be asked for, as a proxy sees it (a CONNECT
// target's host, an absolute URL's host): where it may go, or why not.
func TestDestination(t *testing.T) {
	r := stubResolver{
		"public.example.org":    {"151.101.1.7", "2606:4700::6810:85e5"},
		"sneaky.example.org":    {"151.101.1.8", "10.0.0.5"},
		"metadata.example.org":  {"169.254.169.254"},
		"mapped.example.org":    {"::ffff:192.168.1.1"},
		"mapped-ok.example.org": {"::ffff:151.101.1.9"},
		"in-cluster.example.io": {"10.96.0.10"},
		"blocked.example.com":   {"151.101.0.23"},
		"empty.example.org":     {},
	}
	p := New(Config{Resolver: r, DenyDomains: []string{"example.com"}, DenyCIDRs: mustCIDRs("10.96.0.0/12")})
	tests := []struct {
		host, rule string
		want       []string
	}{
		{host: "public.example.org", want: []string{"151.101.1.7", "2606:4700::6810:85e5"}},
		{host: "PUBLIC.Example.ORG.", want: []string{"151.101.1.7", "2606:4700::6810:85e5"}},
		{host: "151.101.0.10", want: []string{"151.101.0.10"}},
		{host: "[2606:4700::1]", want: []string{"2606:4700::1"}},
		{host: "2606:4700::1", want: []string{"2606:4700::1"}},
		{host: "mapped-ok.example.org", want: []string{"151.101.1.9"}}, // dialled as IPv4
		{host: "::ffff:151.101.1.9", want: []string{"151.101.1.9"}},
		{host: "sneaky.example.org", rule: RulePrivate}, // one refused address refuses them all
		{host: "metadata.example.org", rule: RuleLinkLocal},
		{host: "mapped.example.org", rule: RulePrivate},
		{host: "in-cluster.example.io", rule: RuleDenyCIDR},
		{host: "blocked.example.com", rule: RuleDenyDomain},
		{host: "169.254.169.254", rule: RuleLinkLocal},
		{host: "0xa9fea9fe", rule: RuleLinkLocal},
		{host: "2130706433", rule: RuleLoopback},
		{host: "0177.1", rule: RuleLoopback},
		{host: "::1", rule: RuleLoopback},
		{host: "[::1]", rule: RuleLoopback},
		{host: "::ffff:a9fe:a9fe", rule: RuleLinkLocal},
		{host: "[fe80::1%25eth0]", rule: RuleHost},
		{host: "1.2.3.4.5", rule: RuleHost},
		{host: "", rule: RuleHost},
		{host: "bad_host!.example.org", rule: RuleHost},
		{host: "localhost", rule: RuleClusterName},
		{host: "kubernetes.default.svc", rule: RuleClusterName},
		{host: "metadata", rule: RuleClusterName},
		{host: "nosuch.example.org", rule: RuleUnresolvable},
		{host: "empty.example.org", rule: RuleUnresolvable},
	}
	for _, tt := range tests {
		addrs, d := p.Destination(context.Background(), tt.host)
		var got []string
		for _, a := range addrs {
			got = append(got, a.String())
		}
		switch {
		case tt.rule != "":
			if d == nil || d.Rule != tt.rule || addrs != nil {
				t.Errorf("Destination(%q) = %v, %v; want a %s denial and no address", tt.host, got, d, tt.rule)
			}
		case d != nil:
			t.Errorf("Destination(%q): %v", tt.host, d)
		default:
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Destination(%q) (-want +got):\n%s", tt.host, diff)
			}
		}
	}
}

// With an allow-list, addresses are refused unless a range opens them, and
// names outside it are refused before any lookup.
func TestDestinationAllowList(t *testing.T) {
	p := New(Config{Resolver: stubResolver{"a.govt.nz": {"151.101.0.20"}}, AllowDomains: []string{"govt.nz"}, AllowCIDRs: mustCIDRs("10.244.0.0/24")})
	for host, rule := range map[string]string{
		"a.govt.nz": "", "10.244.0.7": "", "151.101.0.20": RuleNotAllowed, "other.example.org": RuleNotAllowed,
	} {
		if _, d := p.Destination(context.Background(), host); (d == nil) != (rule == "") || d != nil && d.Rule != rule {
			t.Errorf("Destination(%q) = %v, want rule %q", host, d, rule)
		}
	}
}

// Without a resolver nothing can be checked, so nothing is allowed, not
// even an address; a lookup that hangs ends at the policy's timeout.
func TestDestinationNeedsAnAnswer(t *testing.T) {
	if _, d := New(Config{}).Destination(context.Background(), "151.101.0.10"); d == nil || d.Rule != RuleUnresolvable {
		t.Errorf("no resolver: %v, want %s", d, RuleUnresolvable)
	}
	p := New(Config{Resolver: hangingResolver{}, Timeout: 50 * time.Millisecond})
	start := time.Now()
	_, d := p.Destination(context.Background(), "slow.example.org")
	if d == nil || d.Rule != RuleUnresolvable || time.Since(start) > 5*time.Second {
		t.Errorf("hanging lookup: %v after %s, want %s at the timeout", d, time.Since(start), RuleUnresolvable)
	}
}

type hangingResolver struct{}

func (hangingResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// The lists render as the flags that parse back to them, empty ones left
// out, so a scan pod is given exactly the operator's policy.
func TestListsArgsRoundTrip(t *testing.T) {
	tests := []struct {
		lists Lists
		want  []string
	}{
		{lists: Lists{}, want: nil},
		{lists: Lists{AllowCIDRs: "10.244.0.0/24"}, want: []string{"--url-allow-cidrs=10.244.0.0/24"}},
		{
			lists: Lists{AllowDomains: "govt.nz,example.org", DenyDomains: "bad.govt.nz", DenyCIDRs: "10.96.0.0/12,fd00::/8", AllowCIDRs: "127.0.0.0/8"},
			want: []string{
				"--url-allow-domains=govt.nz,example.org", "--url-deny-domains=bad.govt.nz",
				"--url-deny-cidrs=10.96.0.0/12,fd00::/8", "--url-allow-cidrs=127.0.0.0/8",
			},
		},
	}
	for _, tt := range tests {
		args := tt.lists.Args()
		if diff := cmp.Diff(tt.want, args); diff != "" {
			t.Errorf("Args (-want +got):\n%s", diff)
		}
		var back Lists
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		back.Bind(fs)
		if err := fs.Parse(args); err != nil || back != tt.lists {
			t.Errorf("parsed back %+v, %v; want %+v", back, err, tt.lists)
		}
	}
}

func TestListsConfig(t *testing.T) {
	cfg, err := Lists{AllowDomains: " govt.nz ,", DenyCIDRs: "10.96.0.0/12", AllowCIDRs: "10.244.0.7/24"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"govt.nz"}, cfg.AllowDomains); diff != "" || len(cfg.DenyCIDRs) != 1 || cfg.AllowCIDRs[0].String() != "10.244.0.0/24" {
		t.Errorf("Config = %+v", cfg)
	}
	for _, l := range []Lists{{DenyCIDRs: "10.0.0.0/33"}, {AllowCIDRs: "nonsense"}} {
		if _, err := l.Config(); err == nil || !strings.Contains(err.Error(), "invalid CIDR") {
			t.Errorf("%+v: %v, want an invalid CIDR error", l, err)
		}
	}
}

// A denied range inside an opened one stays refused: the administrator who
// opens the pod network and denies one address in it means that address.
func TestDeniedRangeWinsOverOpenedRange(t *testing.T) {
	p := New(Config{AllowCIDRs: mustCIDRs("10.244.0.0/24"), DenyCIDRs: mustCIDRs("10.244.0.5/32")})
	tests := []struct {
		ip, rule string
	}{
		{"10.244.0.5", RuleDenyCIDR},
		{"10.244.0.4", ""},
		{"10.244.0.6", ""},
		{"10.244.1.5", RulePrivate},
	}
	for _, tt := range tests {
		if rule, detail := p.CheckIP(netip.MustParseAddr(tt.ip)); rule != tt.rule {
			t.Errorf("%s: rule %q (%s), want %q", tt.ip, rule, detail, tt.rule)
		}
	}
}
