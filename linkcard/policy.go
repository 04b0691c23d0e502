package linkcard

import (
	"fmt"
	"net/netip"
	"slices"
	"syscall"

	"code.dny.dev/ssrf"
)

// addressPolicy decides which addresses the fetcher may connect to. Its
// deny lists are code.dny.dev/ssrf's, generated from IANA's special-purpose
// registries: every IPv4 special range and all IPv6 outside 2000::/3
// (loopback, link-local, unique-local, multicast, IPv4-mapped, NAT64) plus the
// special ranges inside it.
type addressPolicy struct {
	guard *ssrf.Guardian
	ports []uint16
	nat64 bool
}

func newAddressPolicy(ports []uint16, nat64 bool) *addressPolicy {
	return &addressPolicy{guard: defaultGuard, ports: ports, nat64: nat64}
}

// AllowAddr reports whether the fetcher may connect to a: nil if it may, an
// error wrapping ssrf.ErrProhibitedIP if not. nat64 allows 64:ff9b::/96 for
// installs behind DNS64+NAT64, judging the IPv4 address embedded in it.
func AllowAddr(a netip.Addr, nat64 bool) error {
	return (&addressPolicy{guard: defaultGuard, nat64: nat64}).allowAddr(a)
}

var defaultGuard = ssrf.New()

func (p *addressPolicy) allowAddr(a netip.Addr) error {
	a = a.WithZone("")
	if p.nat64 && ssrf.IPv6NAT64Prefix.Contains(a) {
		b := a.As16()
		v4 := netip.AddrFrom4([4]byte(b[12:]))
		if err := p.guard.SafeAddr(v4); err != nil {
			return fmt.Errorf("%w (NAT64 of %s)", err, v4)
		}
		return nil
	}
	return p.guard.SafeAddr(a)
}

// control is the net.Dialer Control hook: it runs on the address actually
// dialed, after DNS, for every connection attempt, so redirects and DNS
// rebinding meet the same check.
func (p *addressPolicy) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: %s", ssrf.ErrProhibitedNetwork, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ssrf.ErrInvalidHostPort, address)
	}
	if err := p.allowPort(ap.Port()); err != nil {
		return err
	}
	return p.allowAddr(ap.Addr())
}

func (p *addressPolicy) allowPort(port uint16) error {
	if !slices.Contains(p.ports, port) {
		return fmt.Errorf("%w: %d", ssrf.ErrProhibitedPort, port)
	}
	return nil
}
