package linkcard

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"code.dny.dev/ssrf"
)

func TestAllowAddr(t *testing.T) {
	cases := []struct {
		addr  string
		nat64 bool // with AllowNAT64
		allow bool
	}{
		// Public addresses are fetched.
		{"8.8.8.8", false, true},
		{"151.101.1.140", false, true},
		{"2606:4700:4700::1111", false, true},
		{"2a00:1450:4001:80b::200e", false, true},
		// Unspecified.
		{"0.0.0.0", false, false},
		{"0.1.2.3", false, false},
		{"::", false, false},
		// Loopback.
		{"127.0.0.1", false, false},
		{"127.255.255.254", false, false},
		{"::1", false, false},
		// Private (RFC 1918) and unique-local.
		{"10.0.0.1", false, false},
		{"172.16.0.1", false, false},
		{"172.31.255.255", false, false},
		{"192.168.1.1", false, false},
		{"fc00::1", false, false},
		{"fd12:3456:789a::1", false, false},
		// Link-local, including the cloud metadata address.
		{"169.254.169.254", false, false},
		{"fe80::1", false, false},
		{"fe80::1%eth0", false, false},
		// CGNAT (shared address space).
		{"100.64.0.1", false, false},
		{"100.127.255.254", false, false},
		// Multicast and broadcast.
		{"224.0.0.1", false, false},
		{"239.255.255.250", false, false},
		{"255.255.255.255", false, false},
		{"ff02::1", false, false},
		{"ff05::1:3", false, false},
		// IPv4-mapped and IPv4-compatible forms.
		{"::ffff:127.0.0.1", false, false},
		{"::ffff:10.0.0.1", false, false},
		{"::ffff:0.0.0.0", false, false},
		{"::ffff:169.254.169.254", false, false},
		{"::127.0.0.1", false, false},
		// NAT64: refused by default, judged by the embedded IPv4 when allowed.
		{"64:ff9b::7f00:1", false, false},
		{"64:ff9b::808:808", false, false},
		{"64:ff9b::7f00:1", true, false},
		{"64:ff9b::a00:1", true, false},
		{"64:ff9b::a9fe:a9fe", true, false},
		{"64:ff9b::808:808", true, true},
		{"64:ff9b:1::a00:1", true, false}, // local-use NAT64 prefix
		// Other IANA special-purpose ranges.
		{"192.0.0.8", false, false},       // IETF protocol assignments
		{"192.0.2.1", false, false},       // TEST-NET-1
		{"198.51.100.1", false, false},    // TEST-NET-2
		{"203.0.113.1", false, false},     // TEST-NET-3
		{"198.18.0.1", false, false},      // benchmarking
		{"192.88.99.1", false, false},     // 6to4 relay anycast
		{"240.0.0.1", false, false},       // reserved
		{"2001:db8::1", false, false},     // documentation
		{"3fff::1", false, false},         // documentation
		{"2001::1", false, false},         // Teredo
		{"2002:7f00:1::1", false, false},  // 6to4 (here of 127.0.0.1)
		{"100::1", false, false},          // discard-only
		{"2001:20::1", false, false},      // ORCHIDv2
		{"5f00::1", false, false},         // SRv6 SIDs, outside 2000::/3
		{"2620:4f:8000::1", false, false}, // AS112
	}
	for _, tc := range cases {
		a := netip.MustParseAddr(tc.addr)
		err := AllowAddr(a, tc.nat64)
		if got := err == nil; got != tc.allow {
			t.Errorf("AllowAddr(%s, nat64=%v) = %v, want allowed=%v", tc.addr, tc.nat64, err, tc.allow)
		}
		if err != nil && !errors.Is(err, ssrf.ErrProhibitedIP) {
			t.Errorf("AllowAddr(%s) = %v, want an ssrf.ErrProhibitedIP", tc.addr, err)
		}
	}
}

// The dialer's hook refuses ports outside the policy and networks other than TCP.
func TestPolicyControl(t *testing.T) {
	p := newAddressPolicy([]uint16{80, 443}, false)
	cases := []struct {
		network, address string
		allow            bool
	}{
		{"tcp4", "8.8.8.8:443", true},
		{"tcp6", "[2606:4700:4700::1111]:80", true},
		{"tcp4", "8.8.8.8:22", false},
		{"udp4", "8.8.8.8:443", false},
		{"tcp4", "127.0.0.1:443", false},
		{"tcp6", "[::1]:80", false},
		{"tcp4", "not an address", false},
	}
	for _, tc := range cases {
		err := p.control(tc.network, tc.address, nil)
		if got := err == nil; got != tc.allow {
			t.Errorf("control(%s, %s) = %v, want allowed=%v", tc.network, tc.address, err, tc.allow)
		}
	}
}

// Only a connection made through a ConnectTo rule reaches loopback: the same
// fixture is refused by address when the rule does not cover the port.
func TestConnectToAloneReachesLoopback(t *testing.T) {
	fx := sitesFixture(t)
	f := fx.fetcher(t, Config{})
	if _, err := f.Fetch(context.Background(), "http://blog.example/nohead"); err != nil {
		t.Fatalf("through the rule: %v", err)
	}
	// The fixture's own address, as a redirect target or a link, is refused.
	_, err := f.Fetch(context.Background(), fx.HTTP.URL+"/")
	if got := ReasonOf(err); got != ReasonRefused {
		t.Errorf("fixture address %s: reason %q (%v), want %q", fx.HTTP.URL, got, err, ReasonRefused)
	}
	// Allowing the port is not enough: the address is still refused.
	p, _ := netip.ParseAddrPort(fx.HTTP.Listener.Addr().String())
	g := fx.fetcher(t, Config{Ports: []uint16{80, 443, p.Port()}})
	_, err = g.Fetch(context.Background(), fx.HTTP.URL+"/")
	if got := ReasonOf(err); got != ReasonRefused || !errors.Is(err, ssrf.ErrProhibitedIP) {
		t.Errorf("fixture address with its port allowed: reason %q (%v), want a refused address", got, err)
	}
}

// A rule with an empty port maps any port of its host, yet the URL's port
// stays the policy's: the rule does not open loopback's other services.
func TestConnectToKeepsThePortPolicy(t *testing.T) {
	f, err := New(Config{ConnectTo: []ConnectTo{{Host: "blog.example", Addr: "127.0.0.1"}}, Politeness: noWait{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://blog.example:5432/", "http://blog.example:22/"} {
		_, err := f.Fetch(context.Background(), u)
		if got := ReasonOf(err); got != ReasonRefused || !errors.Is(err, ssrf.ErrProhibitedPort) {
			t.Errorf("Fetch(%s): reason %q (%v), want a refused port", u, got, err)
		}
	}
}
