package urlpolicy

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
)

// Destination applies the policy to the host of a connection about to be
// made. The scan pod's egress proxy asks it about every connection the
// browser and CWAC open, whatever led there (a base URL, a redirect, a meta
// refresh, a script, an image), so what the admission check can never see
// is checked too. It returns the addresses the connection may go to: the
// host itself when it is an address (in any form a browser reads as one),
// else every address the name resolves to now, each allowed; one refused
// address refuses them all. The caller connects only to these and never
// resolves the name again, so an answer that changes between the check and
// the connection (DNS rebinding) cannot lead anywhere else.
func (p *Policy) Destination(ctx context.Context, host string) ([]netip.Addr, *Denial) {
	host = strings.ToLower(host)
	if p.cfg.Resolver == nil {
		return nil, &Denial{URL: host, Rule: RuleUnresolvable, Detail: "no resolver: where " + host + " leads cannot be checked"}
	}
	return p.checkHost(ctx, host, host, true)
}

// checkHost applies the policy to a host (from raw, which denials name): an
// address is checked as it is; a name by its own rules, then, when resolve
// is set, by every address it resolves to. It returns the allowed
// addresses (none for a name not resolved).
func (p *Policy) checkHost(ctx context.Context, raw, host string, resolve bool) ([]netip.Addr, *Denial) {
	deny := func(rule, detail string) ([]netip.Addr, *Denial) {
		return nil, &Denial{URL: raw, Rule: rule, Detail: detail}
	}
	ip, isIP, err := parseHostIP(host)
	if err != nil {
		return deny(RuleHost, err.Error())
	}
	if isIP {
		if len(p.cfg.AllowDomains) > 0 && !p.allowedByCIDR(ip) {
			return deny(RuleNotAllowed, "only these domains may be scanned: "+strings.Join(p.cfg.AllowDomains, ", "))
		}
		if rule, detail := p.CheckIP(ip); rule != "" {
			return deny(rule, detail)
		}
		return []netip.Addr{ip.Unmap()}, nil
	}
	name := strings.TrimSuffix(host, ".")
	if rule, detail := p.checkName(name); rule != "" {
		return deny(rule, detail)
	}
	if !resolve {
		return nil, nil
	}
	rctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	addrs, err := p.cfg.Resolver.LookupNetIP(rctx, "ip", name)
	cancel()
	if err != nil || len(addrs) == 0 {
		return deny(RuleUnresolvable, fmt.Sprintf("%s could not be resolved, so where it leads cannot be checked", name))
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if rule, detail := p.CheckIP(a); rule != "" {
			return deny(rule, fmt.Sprintf("%s resolves to %s", name, detail))
		}
		out = append(out, a.Unmap())
	}
	return out, nil
}
