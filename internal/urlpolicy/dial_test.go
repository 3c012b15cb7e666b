package urlpolicy

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/netdial"
)

// loopbackListener accepts on addr and reports the local address of each
// connection it accepts: the address a dialer actually reached.
func loopbackListener(t *testing.T, addr string) (netip.AddrPort, <-chan netip.Addr) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", addr, err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	reached := make(chan netip.Addr, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached <- netip.MustParseAddrPort(c.LocalAddr().String()).Addr()
			_ = c.Close()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String()), reached
}

// hostSpellings are ways to write the loopback addresses as a host (a URL's,
// or a CONNECT target's once net.SplitHostPort has taken its brackets off):
// the forms browsers read as addresses, IPv4-mapped and -compatible forms,
// and IPv6 with zone identifiers, plain and percent-encoded.
func hostSpellings() []string {
	v4 := []string{"127.0.0.1", "127.1", "0x7f.1", "0177.0.0.1", "2130706433", "0x7f000001", "127.0.0.1.", "0x7F.0.0.1", "127.0.1"}
	v6 := []string{"::1", "0::1", "0:0:0:0:0:0:0:1", "::0001", "::ffff:127.0.0.1", "::ffff:7f00:1", "0:0:0:0:0:ffff:127.0.0.1", "::FFFF:7F00:0001"}
	zones := []string{"%lo", "%1", "%25lo", "%25", "%eth0", "%0"}
	out := make([]string, 0, len(v4)+2*len(v6)*(1+len(zones)))
	out = append(out, v4...)
	for _, a := range v6 {
		out = append(out, a, "["+a+"]")
		for _, zone := range zones {
			out = append(out, a+zone, "["+a+zone+"]")
		}
	}
	return out
}

// TestClassifierAgreesWithTheDialer is the differential test of the one
// address classifier: for every spelling of the loopback addresses, what
// Destination allows is dialed the way the egress proxy and the
// notification sender dial it (netdial.FirstOf), and the address the
// connection actually reached is compared with what was classified. With
// the default policy nothing may reach loopback; with loopback opened
// (AllowCIDRs), every allowed spelling must reach exactly the address it
// was classified as.
func TestClassifierAgreesWithTheDialer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v4, reached4 := loopbackListener(t, "127.0.0.1:0")
	v6, reached6 := loopbackListener(t, "[::1]:0")
	open := New(Config{Resolver: resolver, AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	policies := []struct {
		name string
		p    *Policy
	}{{"default", New(Config{Resolver: resolver})}, {"loopback opened", open}}
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	unzoned := 0
	for _, h := range hostSpellings() {
		if !strings.Contains(h, "%") {
			unzoned++
		}
	}
	for _, pol := range policies {
		allowed := 0
		for _, host := range hostSpellings() {
			addrs, d := pol.p.Destination(ctx, host)
			if d != nil {
				if strings.Contains(host, "%") && d.Rule != RuleHost {
					t.Errorf("%s: %q refused by %s, want %s (a zone)", pol.name, host, d.Rule, RuleHost)
				}
				continue
			}
			allowed++
			if pol.p != open {
				t.Errorf("%s: %q allowed as %v", pol.name, host, addrs)
			}
			for _, a := range addrs {
				if a.Zone() != "" || a.Is4In6() {
					t.Errorf("%s: %q classified as %s: not the plain address a dialer reaches", pol.name, host, a)
				}
				port, reached := v4.Port(), reached4
				if a.Is6() {
					port, reached = v6.Port(), reached6
				}
				c, err := netdial.FirstOf(ctx, dialer, "tcp", []netip.AddrPort{netip.AddrPortFrom(a, port)})
				if err != nil {
					t.Errorf("%s: %q classified as %s, which does not connect: %v", pol.name, host, a, err)
					continue
				}
				_ = c.Close()
				got := (<-reached).Unmap()
				if got != a {
					t.Errorf("%s: %q classified as %s but the connection reached %s", pol.name, host, a, got)
				}
				if rule, _ := pol.p.CheckIP(got); rule != "" {
					t.Errorf("%s: %q reached %s, which the classifier refuses (%s)", pol.name, host, got, rule)
				}
			}
		}
		if pol.p == open && allowed != unzoned {
			t.Errorf("%s: %d spellings allowed, want every one without a zone (%d)", pol.name, allowed, unzoned)
		}
	}
}

// TestZonedAddressesReachLoopback shows why zones are refused rather than
// classified without them: a zoned loopback address does connect (the
// kernel ignores the zone for a global scope address), so a classifier that
// saw it as "not in any range" would let it through to the host itself.
func TestZonedAddressesReachLoopback(t *testing.T) {
	v6, reached := loopbackListener(t, "[::1]:0")
	c, err := (&net.Dialer{Timeout: 2 * time.Second}).Dial("tcp", netip.AddrPortFrom(netip.MustParseAddr("::1").WithZone("lo"), v6.Port()).String())
	if err != nil {
		t.Skipf("a zoned loopback address does not connect here: %v", err)
	}
	_ = c.Close()
	<-reached
	for _, a := range []string{"::1%lo", "fe80::1%lo", "fd00:ec2::254%lo", "2001:4860::1%lo", "::ffff:8.8.8.8%lo"} {
		if rule, _ := New(Config{}).CheckIP(netip.MustParseAddr(a)); rule != RuleHost {
			t.Errorf("CheckIP(%s) = %q, want %s", a, rule, RuleHost)
		}
	}
	if rule, _ := New(Config{}).CheckIP(netip.Addr{}); rule != RuleHost {
		t.Errorf("CheckIP(no address) = %q, want %s", rule, RuleHost)
	}
}

// FuzzDestination: whatever host the egress proxy or the notification
// sender is asked for, what Destination allows is a plain address (no zone,
// not IPv4-mapped) that the classifier itself allows, and, when the host is
// an address netip reads, it is that address.
func FuzzDestination(f *testing.F) {
	for _, s := range hostSpellings() {
		f.Add(s)
	}
	for _, s := range []string{"8.8.8.8", "2001:4860::1", "[2001:4860::1%25x]", "fe80::1%lo", "www.example.govt.nz", "::ffff:8.8.8.8%0"} {
		f.Add(s)
	}
	p := New(Config{Resolver: resolver})
	f.Fuzz(func(t *testing.T, host string) {
		addrs, d := p.Destination(context.Background(), host)
		if d != nil {
			return
		}
		for _, a := range addrs {
			if !a.IsValid() || a.Zone() != "" || a.Is4In6() {
				t.Fatalf("%q allowed as %s: not a plain address", host, a)
			}
			if rule, _ := p.CheckIP(a); rule != "" {
				t.Fatalf("%q allowed as %s, which is refused (%s)", host, a, rule)
			}
		}
		if want, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
			if want.Zone() != "" {
				t.Fatalf("%q has a zone but was allowed as %v", host, addrs)
			}
			if len(addrs) != 1 || addrs[0] != want.Unmap() {
				t.Fatalf("%q allowed as %v, want %s", host, addrs, want.Unmap())
			}
		}
	})
}
