// Package urlpolicy decides which URLs a scan may target. A scanner that
// fetches whatever it is given, from inside a cluster, at an AI agent's
// request, must not become a way into the cluster's own network: by default
// loopback, link-local (cloud metadata), private, shared, multicast and
// reserved addresses are refused, as are cluster-internal names (*.svc,
// *.cluster.local, localhost) and any name that resolves to such an address
// or redirects to such a URL. Operators can allow domain suffixes only, deny
// more, and — for tests on one machine — explicitly allow address ranges.
package urlpolicy

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Rules name why a URL was refused (they appear in errors and conditions).
const (
	RuleScheme       = "scheme"
	RuleUserInfo     = "userinfo"
	RuleHost         = "host"
	RuleLength       = "length"
	RuleForm         = "form"
	RuleLoopback     = "loopback"
	RuleUnspecified  = "unspecified"
	RuleLinkLocal    = "link-local"
	RulePrivate      = "private"
	RuleShared       = "shared-address-space"
	RuleMulticast    = "multicast"
	RuleReserved     = "reserved"
	RuleClusterName  = "cluster-internal-name"
	RuleClusterCIDR  = "cluster-cidr"
	RuleDenyDomain   = "denied-domain"
	RuleDenyCIDR     = "denied-cidr"
	RuleNotAllowed   = "not-in-allowlist"
	RuleUnresolvable = "unresolvable"
	RuleRedirect     = "redirect"
)

// Denial is a refused URL: which URL, which rule, and why.
type Denial struct {
	URL    string
	Rule   string
	Detail string
}

func (d *Denial) Error() string {
	return fmt.Sprintf("URL %s is not allowed (%s): %s", textcap.Head(d.URL, 200), d.Rule, d.Detail)
}

// Resolver looks names up; net.DefaultResolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Redirector reports where a URL redirects to ("" when it does not); it is
// only ever asked about URLs the policy already allowed.
type Redirector interface {
	Redirect(ctx context.Context, rawURL string) (string, error)
}

// Config is the policy.
type Config struct {
	// AllowDomains, when set, are the only domain suffixes scans may target
	// ("govt.nz" allows govt.nz and *.govt.nz). IP literals are then refused.
	AllowDomains []string
	// DenyDomains are refused suffixes, on top of the built-in cluster names.
	DenyDomains []string
	// DenyCIDRs are refused ranges on top of the built-in ones; put the
	// cluster's service and pod CIDRs here.
	DenyCIDRs []netip.Prefix
	// AllowCIDRs are explicitly opened ranges that the built-in rules would
	// refuse — for example 127.0.0.0/8 for tests on one machine. Never the default.
	AllowCIDRs []netip.Prefix
	// Resolver resolves names (nil: names are not resolved, only matched).
	Resolver Resolver
	// Redirector follows one redirect at a time (nil: redirects not checked).
	Redirector Redirector
	// MaxRedirects bounds the redirect chain followed at admission (default 5).
	MaxRedirects int
	// Timeout bounds name resolution and redirect checks per URL (default 5s).
	Timeout time.Duration
}

// Policy checks URLs.
type Policy struct{ cfg Config }

// New builds a policy.
func New(cfg Config) *Policy {
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = 5
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	for i, d := range cfg.AllowDomains {
		cfg.AllowDomains[i] = normalizeDomain(d)
	}
	for i, d := range cfg.DenyDomains {
		cfg.DenyDomains[i] = normalizeDomain(d)
	}
	return &Policy{cfg: cfg}
}

// builtin ranges refused by default, with their rule.
var builtin = []struct {
	prefix netip.Prefix
	rule   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), RuleUnspecified},
	{netip.MustParsePrefix("127.0.0.0/8"), RuleLoopback},
	{netip.MustParsePrefix("10.0.0.0/8"), RulePrivate},
	{netip.MustParsePrefix("172.16.0.0/12"), RulePrivate},
	{netip.MustParsePrefix("192.168.0.0/16"), RulePrivate},
	{netip.MustParsePrefix("169.254.0.0/16"), RuleLinkLocal}, // 169.254.169.254: cloud metadata
	{netip.MustParsePrefix("100.64.0.0/10"), RuleShared},     // carrier-grade NAT; 100.100.100.200: Alibaba metadata
	{netip.MustParsePrefix("192.0.0.0/24"), RuleReserved},
	{netip.MustParsePrefix("198.18.0.0/15"), RuleReserved},
	{netip.MustParsePrefix("224.0.0.0/4"), RuleMulticast},
	{netip.MustParsePrefix("240.0.0.0/4"), RuleReserved}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/128"), RuleUnspecified},
	{netip.MustParsePrefix("::1/128"), RuleLoopback},
	{netip.MustParsePrefix("fe80::/10"), RuleLinkLocal},
	{netip.MustParsePrefix("fc00::/7"), RulePrivate}, // unique local; fd00:ec2::254: AWS metadata
	{netip.MustParsePrefix("fec0::/10"), RulePrivate},
	{netip.MustParsePrefix("ff00::/8"), RuleMulticast},
	{netip.MustParsePrefix("100::/64"), RuleReserved},
	{netip.MustParsePrefix("2001:db8::/32"), RuleReserved},
	// Special-purpose ranges no public site uses: documentation (TEST-NET-1,
	// -2, -3), the retired 6to4 relay anycast, Teredo (which hides an IPv4
	// address inside), NAT64's local-use prefix and ORCHIDv2. A cluster that
	// really serves sites there opts in with the allow-list (--url-allow-cidrs).
	{netip.MustParsePrefix("192.0.2.0/24"), RuleReserved},
	{netip.MustParsePrefix("198.51.100.0/24"), RuleReserved},
	{netip.MustParsePrefix("203.0.113.0/24"), RuleReserved},
	{netip.MustParsePrefix("192.88.99.0/24"), RuleReserved},
	{netip.MustParsePrefix("2001::/32"), RuleReserved},
	{netip.MustParsePrefix("64:ff9b:1::/48"), RuleReserved},
	{netip.MustParsePrefix("2001:10::/28"), RuleReserved},
	{netip.MustParsePrefix("2001:20::/28"), RuleReserved},
}

// clusterSuffixes are names that only mean something inside a cluster or host.
var clusterSuffixes = []string{"localhost", "svc", "cluster.local", "internal", "local", "localdomain", "home.arpa", "in-addr.arpa", "ip6.arpa"}

// CheckIP is the product's one address classifier: every address a scan
// target, the egress proxy or a notification leads to is allowed or refused
// here, as the address that is dialed. It refuses what it cannot classify:
// no address, or one with an IPv6 zone (which no prefix contains, so it
// would otherwise pass every range rule), whatever the address. An
// IPv4-mapped address is the IPv4 address it dials.
func (p *Policy) CheckIP(ip netip.Addr) (rule, detail string) {
	if !ip.IsValid() {
		return RuleHost, "not an IP address"
	}
	if ip.Zone() != "" {
		return RuleHost, errZone.Error() + " (" + textcap.Head(ip.String(), 100) + ")"
	}
	ip = ip.Unmap()
	if embedded, ok := embeddedIPv4(ip); ok {
		if rule, detail := p.CheckIP(embedded); rule != "" {
			return rule, detail + " (embedded in " + ip.String() + ")"
		}
	}
	// A denied range wins over an opened one: an administrator who opens a
	// private range and denies one address in it (a metadata or database
	// service) means that address stays refused.
	for _, d := range p.cfg.DenyCIDRs {
		if d.Contains(ip) {
			return RuleDenyCIDR, fmt.Sprintf("%s is in the denied range %s", ip, d)
		}
	}
	for _, a := range p.cfg.AllowCIDRs {
		if a.Contains(ip) {
			return "", ""
		}
	}
	for _, b := range builtin {
		if b.prefix.Contains(ip) {
			return b.rule, fmt.Sprintf("%s is a %s address (%s)", ip, b.rule, b.prefix)
		}
	}
	return "", ""
}

// IPv6 ranges that carry an IPv4 address, parsed once.
var (
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	ipv4Compatible = netip.MustParsePrefix("::/96")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // SIIT: ::ffff:0:a.b.c.d
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 finds an IPv4 address carried in NAT64 (64:ff9b::/96),
// IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96) and 6to4
// (2002::/16) IPv6 addresses.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip), nat64Local.Contains(ip):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case ipv4Compatible.Contains(ip) && !ip.IsUnspecified() && ip != netip.IPv6Loopback(), ipv4Translated.Contains(ip):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// CheckURL applies the policy to one URL a scan names: its form
// (CheckForm), its host (as an address or a name), the addresses the name
// resolves to, and where it redirects.
func (p *Policy) CheckURL(ctx context.Context, raw string) *Denial {
	if _, d := CheckForm(raw); d != nil {
		return d
	}
	return p.check(ctx, raw, 0)
}

func (p *Policy) check(ctx context.Context, raw string, hops int) *Denial {
	deny := func(rule, detail string) *Denial { return &Denial{URL: raw, Rule: rule, Detail: detail} }
	u, host, d := parseURL(raw)
	if d != nil {
		return d
	}
	if _, d := p.checkHost(ctx, raw, host, p.cfg.Resolver != nil); d != nil {
		return d
	}
	if p.cfg.Redirector != nil {
		rctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		next, err := p.cfg.Redirector.Redirect(rctx, raw)
		cancel()
		if err == nil && next != "" {
			// Counted when a redirect is seen: a chain of exactly
			// MaxRedirects is followed to its end, one more is refused.
			if hops >= p.cfg.MaxRedirects {
				return deny(RuleRedirect, fmt.Sprintf("more than %d redirects", p.cfg.MaxRedirects))
			}
			// Resolved as the browser will resolve it; what cannot be
			// resolved is refused, never waved through.
			target, err := ResolveLocation(u, next)
			if err != nil {
				return deny(RuleRedirect, err.Error()+": "+textcap.Head(next, 200))
			}
			if d := p.check(ctx, target.String(), hops+1); d != nil {
				detail := "redirects to " + textcap.Head(target.String(), 200) + ", which is not allowed (" + d.Rule + "): " + d.Detail
				return &Denial{URL: raw, Rule: RuleRedirect, Detail: detail}
			}
		}
		// An unreachable site is not a policy matter: CWAC reports it.
	}
	return nil
}

func (p *Policy) allowedByCIDR(ip netip.Addr) bool {
	for _, a := range p.cfg.AllowCIDRs {
		if a.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

func (p *Policy) checkName(name string) (rule, detail string) {
	if !validHostname(name) {
		return RuleHost, "not a valid host name"
	}
	for _, s := range clusterSuffixes {
		if name == s || strings.HasSuffix(name, "."+s) {
			return RuleClusterName, fmt.Sprintf("%s is a cluster-internal or local name (*.%s)", name, s)
		}
	}
	if !strings.Contains(name, ".") {
		return RuleClusterName, fmt.Sprintf("%s is a single-label name, which resolves inside the cluster", name)
	}
	for _, d := range p.cfg.DenyDomains {
		if matchesDomain(name, d) {
			return RuleDenyDomain, fmt.Sprintf("%s is in the denied domain %s", name, d)
		}
	}
	if len(p.cfg.AllowDomains) > 0 {
		for _, d := range p.cfg.AllowDomains {
			if matchesDomain(name, d) {
				return "", ""
			}
		}
		return RuleNotAllowed, fmt.Sprintf("%s is not in the allowed domains: %s", name, strings.Join(p.cfg.AllowDomains, ", "))
	}
	return "", ""
}

func matchesDomain(name, suffix string) bool {
	return name == suffix || strings.HasSuffix(name, "."+suffix)
}

func normalizeDomain(d string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(d)), "*."), ".")
}

// validHostname accepts LDH labels (and underscores, seen in the wild), 1-63
// characters each, 253 in all; punycode is fine, raw Unicode is not (url.Parse
// keeps it, so IDNs must come encoded).
func validHostname(name string) bool {
	if len(name) == 0 || len(name) > 253 {
		return false
	}
	for _, l := range strings.Split(name, ".") {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

func parsePort(p string) (int, error) {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, errors.New("not a number")
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, errors.New("out of range")
		}
	}
	return n, nil
}

// ParseCIDRs parses a comma-separated list ("" is empty).
func ParseCIDRs(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("invalid CIDR %q: %w", s, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// SplitList splits a comma-separated list, dropping blanks.
func SplitList(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// CheckAll checks URLs eight at a time and returns the denial of the earliest
// refused URL in list order (nil when all are allowed).
func (p *Policy) CheckAll(ctx context.Context, urls []string) *Denial {
	denials := make([]*Denial, len(urls))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			denials[i] = p.CheckURL(ctx, u)
		}()
	}
	wg.Wait()
	for _, d := range denials {
		if d != nil {
			return d
		}
	}
	return nil
}
