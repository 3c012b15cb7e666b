package urlpolicy

import (
	"errors"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// errInvalidIPv4 is a host that ends in a number but is no valid IPv4 address;
// browsers refuse such URLs, and so do we.
var errInvalidIPv4 = errors.New("host looks like an IPv4 address but is not a valid one")

// errZone is an IPv6 address with a zone identifier ("fe80::1%eth0"): it
// names a network interface of the machine that dials, so the same address
// leads somewhere else on every host, and an address with a zone is in no
// prefix (netip), so no range rule could ever match it.
var errZone = errors.New("IPv6 zone identifiers are not allowed: they name a network interface of the machine that connects")

// parseHostIP reads a URL host the way browsers (the WHATWG URL standard that
// Chrome follows) do: "[::1]" is IPv6; a host whose last label is a number is
// an IPv4 address in any of the legacy forms — 2130706433, 0x7f000001,
// 0177.0.0.1, 127.1 — all meaning 127.0.0.1. ok is false for names.
func parseHostIP(host string) (ip netip.Addr, ok bool, err error) {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		inner := host[1 : len(host)-1]
		if strings.IndexByte(inner, '%') >= 0 { // a zone, percent-encoded or not: browsers refuse it too
			return netip.Addr{}, false, errZone
		}
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() {
			return netip.Addr{}, false, errors.New("invalid IPv6 address")
		}
		return a, true, nil
	}
	if strings.IndexByte(host, ':') >= 0 {
		// Bare IPv6, as net.SplitHostPort leaves a CONNECT target or a
		// dialed address (never valid in a URL, never a name): read as the
		// address it dials, and refused with a zone.
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return netip.Addr{}, false, errors.New("invalid IPv6 address")
		}
		if a.Zone() != "" {
			return netip.Addr{}, false, errZone
		}
		return a, true, nil
	}
	labels := strings.Split(host, ".")
	if labels[len(labels)-1] == "" && len(labels) > 1 {
		labels = labels[:len(labels)-1] // one trailing dot is allowed
	}
	if !isNumberLabel(labels[len(labels)-1]) {
		return netip.Addr{}, false, nil // a name
	}
	if len(labels) > 4 {
		return netip.Addr{}, false, errInvalidIPv4
	}
	nums := make([]uint64, len(labels))
	for i, l := range labels {
		n, err := parseIPv4Number(l)
		if err != nil {
			return netip.Addr{}, false, errInvalidIPv4
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false, errInvalidIPv4
		}
	}
	last := nums[len(nums)-1]
	if last >= uint64(math.Pow(256, float64(5-len(nums)))) {
		return netip.Addr{}, false, errInvalidIPv4
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, nil
}

// isNumberLabel: WHATWG's "ends in a number" check for one label: all
// decimal digits, or 0x followed by hex digits (whatever their value).
func isNumberLabel(l string) bool {
	if l == "" {
		return false
	}
	digits, base := l, 10
	if len(l) >= 2 && (l[:2] == "0x" || l[:2] == "0X") {
		digits, base = l[2:], 16
	}
	for _, r := range digits {
		isDec := r >= '0' && r <= '9'
		isHex := isDec || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
		if base == 10 && !isDec || base == 16 && !isHex {
			return false
		}
	}
	return true
}

// parseIPv4Number parses one label: 0x… hex, 0… octal, else decimal.
func parseIPv4Number(l string) (uint64, error) {
	if l == "" {
		return 0, errInvalidIPv4
	}
	base := 10
	switch {
	case len(l) >= 2 && (l[:2] == "0x" || l[:2] == "0X"):
		l, base = l[2:], 16
		if l == "" {
			return 0, nil
		}
	case len(l) >= 2 && l[0] == '0':
		l, base = l[1:], 8
	}
	n, err := strconv.ParseUint(l, base, 64)
	if err != nil || n > math.MaxUint32 {
		return 0, errInvalidIPv4
	}
	return n, nil
}
