// Package netdial connects to addresses a target policy has already
// checked. The egress proxy (scan pods) and the notification sender (the
// operator) both resolve a name once, ask the policy about every address,
// and must then connect only to those addresses, never to the name again
// (a second lookup could answer differently: DNS rebinding).
package netdial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// Dialer is what FirstOf dials with (*net.Dialer, or a test's own).
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// FirstOf connects to the first of addrs that answers, in order, and
// returns every attempt's error joined when none does. It dials nothing
// when any address is not plain (a zone, an IPv4-mapped form): the policy
// only returns plain addresses, so such a list did not come from it. It stops early when
// ctx ends: the caller's deadline covers all the attempts together.
func FirstOf(ctx context.Context, d Dialer, network string, addrs []netip.AddrPort) (net.Conn, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no address to connect to")
	}
	for _, a := range addrs {
		if ip := a.Addr(); !ip.IsValid() || ip.Zone() != "" || ip.Is4In6() {
			// The policy classifies plain addresses (urlpolicy.Policy.CheckIP);
			// a zone or a mapped form would be dialed as something else.
			return nil, fmt.Errorf("%s is not an address the target policy returns", a)
		}
	}
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, a.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}
