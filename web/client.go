package web

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ParseTrustedProxies reads a comma-separated list of address ranges (CIDR, or single
// addresses) of the proxies in front of the site: the load balancers whose X-Forwarded-For
// and X-Forwarded-Proto are believed.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("web: trusted proxy %q is not an address or a CIDR range", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// peer is where a request came from, as the client address and whether it came over HTTPS.
type peer struct {
	addr  netip.Addr // invalid when the connection's address could not be read
	https bool
}

// peerOf is the client behind a request: the connection's address and TLS, unless that
// address is a trusted proxy, whose X-Forwarded-For (the right-most address not itself
// trusted: a client can put anything to the left) and X-Forwarded-Proto (the value the
// nearest proxy set) are believed instead.
func peerOf(r *http.Request, trusted []netip.Prefix) peer {
	p := peer{https: r.TLS != nil}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return p
	}
	p.addr = ap.Addr().Unmap()
	if !isTrusted(p.addr, trusted) {
		return p
	}
	hops := forwarded(r.Header.Values("X-Forwarded-For"))
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break // the trusted proxy nearest it wrote what it saw: keep the last trusted hop
		}
		p.addr = a.Unmap()
		if !isTrusted(p.addr, trusted) {
			break
		}
	}
	if protos := forwarded(r.Header.Values("X-Forwarded-Proto")); len(protos) > 0 {
		p.https = p.https || strings.EqualFold(protos[len(protos)-1], "https")
	}
	return p
}

// forwarded splits the comma-separated values of a list header, all its lines in order.
func forwarded(lines []string) []string {
	var out []string
	for _, l := range lines {
		for _, v := range strings.Split(l, ",") {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// key is the client as a rate-limit subject: an IPv4 address, or an IPv6 address's /64
// (one household or host usually holds a whole /64).
func (p peer) key() string {
	switch {
	case !p.addr.IsValid():
		return "unknown"
	case p.addr.Is6():
		pre, _ := p.addr.Prefix(64)
		return pre.String()
	}
	return p.addr.String()
}

// peerOf is the request's client as the outermost middleware found it (observe), or as
// found now for a request that did not pass it.
func (s *Server) peerOf(r *http.Request) peer {
	if ri := infoOf(r.Context()); ri != nil {
		return ri.peer
	}
	return peerOf(r, s.trusted)
}

// clientKey is the request's client as a rate-limit subject.
func (s *Server) clientKey(r *http.Request) string { return s.peerOf(r).key() }

// isHTTPS says whether the client reached the site over HTTPS (directly or through a
// trusted proxy).
func (s *Server) isHTTPS(r *http.Request) bool { return s.peerOf(r).https }
