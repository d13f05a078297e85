package httpjson

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// ErrBlockedAddress is wrapped by the error of a call whose host resolves
// to an address outbound calls may not reach (loopback, private,
// link-local, …) and that Options.AllowHosts does not allow.
var ErrBlockedAddress = errors.New("address not allowed for outbound calls")

// guard decides which addresses calls may reach. It is immutable.
type guard struct {
	names    []string       // exact host names, lower case
	suffixes []string       // "*.example.com" as ".example.com"
	prefixes []netip.Prefix // addresses and networks
	testDial func(addr string) string
}

// newGuard parses the allow patterns: a host name (api.internal), a
// wildcard (*.internal: every name below it), an address (127.0.0.1, ::1)
// or a network (10.0.0.0/8).
func newGuard(patterns []string) (*guard, error) {
	g := &guard{}
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case p == "":
		case strings.Contains(p, "/"):
			pre, err := netip.ParsePrefix(p)
			if err != nil {
				return nil, fmt.Errorf("allowed host %q: %w", p, err)
			}
			g.prefixes = append(g.prefixes, pre.Masked())
		case strings.HasPrefix(p, "*."):
			g.suffixes = append(g.suffixes, p[1:])
		default:
			if a, err := netip.ParseAddr(strings.Trim(p, "[]")); err == nil {
				g.prefixes = append(g.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				continue
			}
			if strings.ContainsAny(p, "*:/ ") {
				return nil, fmt.Errorf("allowed host %q: want a host name, *.domain, an address or a network", p)
			}
			g.names = append(g.names, strings.TrimSuffix(p, "."))
		}
	}
	return g, nil
}

// nameAllowed reports whether the operator allowed host by name.
func (g *guard) nameAllowed(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, n := range g.names {
		if host == n {
			return true
		}
	}
	for _, s := range g.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// addrAllowed reports whether a call may connect to a.
func (g *guard) addrAllowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range g.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return public(a)
}

// nonPublic are ranges beyond netip's predicates that are not the public
// internet: "this network", shared address space (carrier-grade NAT),
// benchmarking, reserved, and IPv6 discard, documentation and 6to4/NAT64
// forms that can embed private addresses.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// public reports whether a is an address on the public internet.
func public(a netip.Addr) bool {
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// connectTimeoutKey carries a call's connection timeout to dial.
type connectTimeoutKey struct{}

// dial resolves addr's host, keeps the addresses the call may reach and
// connects to one of them by address, so what is checked is what is
// dialled: a second lookup (DNS rebinding) cannot swap it.
func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if g.testDial != nil {
		addr = g.testDial(addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	d := net.Dialer{Timeout: 20 * time.Second}
	if t, ok := ctx.Value(connectTimeoutKey{}).(time.Duration); ok && t > 0 {
		d.Timeout = t
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lctx, cancel := context.WithTimeout(ctx, d.Timeout)
		addrs, err = net.DefaultResolver.LookupNetIP(lctx, "ip", host)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	byName := g.nameAllowed(host)
	var errs []error
	for _, a := range addrs {
		if !byName && !g.addrAllowed(a) {
			errs = append(errs, fmt.Errorf("%w: %s is %s (allow it with --connector-allow-hosts)", ErrBlockedAddress, host, a))
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	return nil, errors.Join(errs...)
}
