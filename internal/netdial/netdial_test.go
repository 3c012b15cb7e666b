package netdial

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// fakeDialer answers from a table: an address listed in ok connects (one
// end of a pipe), any other fails; it records the order it was asked in.
type fakeDialer struct {
	ok     map[string]bool
	cancel context.CancelFunc // when set, called after the first failure
	asked  []string
}

func (f *fakeDialer) DialContext(_ context.Context, network, address string) (net.Conn, error) {
	f.asked = append(f.asked, network+" "+address)
	if f.ok[address] {
		c, _ := net.Pipe()
		return c, nil
	}
	if f.cancel != nil {
		f.cancel()
	}
	return nil, errors.New("refused " + address)
}

func TestFirstOf(t *testing.T) {
	a := netip.MustParseAddrPort("192.0.2.1:443")
	b := netip.MustParseAddrPort("[2001:db8::1]:443")
	c := netip.MustParseAddrPort("192.0.2.3:443")
	tests := []struct {
		name      string
		addrs     []netip.AddrPort
		ok        []netip.AddrPort
		cancel    bool
		wantAsked []string
		wantErr   []string // each must be in the error; nil: a connection
	}{
		{name: "first answers", addrs: []netip.AddrPort{a, b}, ok: []netip.AddrPort{a}, wantAsked: []string{"tcp 192.0.2.1:443"}},
		{name: "second answers", addrs: []netip.AddrPort{a, b, c}, ok: []netip.AddrPort{b},
			wantAsked: []string{"tcp 192.0.2.1:443", "tcp [2001:db8::1]:443"}},
		{name: "none answers: every error", addrs: []netip.AddrPort{a, c}, wantAsked: []string{"tcp 192.0.2.1:443", "tcp 192.0.2.3:443"},
			wantErr: []string{"refused 192.0.2.1:443", "refused 192.0.2.3:443"}},
		{name: "the deadline ends the attempts", addrs: []netip.AddrPort{a, c}, ok: []netip.AddrPort{c}, cancel: true,
			wantAsked: []string{"tcp 192.0.2.1:443"}, wantErr: []string{"refused 192.0.2.1:443"}},
		{name: "no address", wantErr: []string{"no address"}},
		{name: "a zone: nothing dialed", addrs: []netip.AddrPort{a, netip.MustParseAddrPort("[::1%lo]:443")}, ok: []netip.AddrPort{a},
			wantErr: []string{"[::1%lo]:443 is not an address the target policy returns"}},
		{name: "a mapped form: nothing dialed", addrs: []netip.AddrPort{netip.MustParseAddrPort("[::ffff:127.0.0.1]:443"), a}, ok: []netip.AddrPort{a},
			wantErr: []string{"[::ffff:127.0.0.1]:443 is not"}},
		{name: "no valid address: nothing dialed", addrs: []netip.AddrPort{{}}, wantErr: []string{"is not an address"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			d := &fakeDialer{ok: map[string]bool{}}
			for _, o := range tt.ok {
				d.ok[o.String()] = true
			}
			if tt.cancel {
				d.cancel = cancel
			}
			conn, err := FirstOf(ctx, d, "tcp", tt.addrs)
			if conn != nil {
				_ = conn.Close()
			}
			if strings.Join(d.asked, ",") != strings.Join(tt.wantAsked, ",") {
				t.Errorf("asked %q, want %q", d.asked, tt.wantAsked)
			}
			if tt.wantErr == nil {
				if err != nil || conn == nil {
					t.Fatalf("FirstOf = %v, %v; want a connection", conn, err)
				}
				return
			}
			if err == nil || conn != nil {
				t.Fatalf("FirstOf = %v, %v; want an error", conn, err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
