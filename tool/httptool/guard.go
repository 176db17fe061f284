package httptool

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// PolicyError is returned (wrapped) when the outbound guard refuses a
// request: a host outside the allow list, or a name that resolves to an
// address the guard forbids. Results carry it as tool.CodeNetworkPolicy.
type PolicyError struct {
	// Host is the host name the request named.
	Host string
	// Addr is the resolved address that was refused, when the refusal was
	// about an address.
	Addr string
	// Reason says what rule refused it.
	Reason string
}

// Error implements error.
func (e *PolicyError) Error() string {
	if e.Addr != "" {
		return fmt.Sprintf("request to %s refused: it resolves to %s, %s", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("request to %s refused: %s", e.Host, e.Reason)
}

// blocked lists the address ranges the guard refuses by default, with the
// reason shown in errors. Order matters: the first match names the reason,
// so the metadata addresses come before the ranges that contain them.
var blocked = func() []struct {
	p      netip.Prefix
	reason string
} {
	rows := []struct{ cidr, reason string }{
		{"169.254.169.254/32", "a cloud metadata address"},
		{"fd00:ec2::254/128", "a cloud metadata address"},
		{"0.0.0.0/8", "an unspecified (\"this network\") address"},
		{"::/128", "an unspecified address"},
		{"127.0.0.0/8", "a loopback address"},
		{"::1/128", "a loopback address"},
		{"10.0.0.0/8", "a private address"},
		{"172.16.0.0/12", "a private address"},
		{"192.168.0.0/16", "a private address"},
		{"fc00::/7", "a private (unique local) address"},
		{"100.64.0.0/10", "a carrier-grade NAT address"},
		{"169.254.0.0/16", "a link-local address"},
		{"fe80::/10", "a link-local address"},
		{"224.0.0.0/4", "a multicast address"},
		{"ff00::/8", "a multicast address"},
		{"240.0.0.0/4", "a reserved address"},
		{"192.0.0.0/24", "an IETF protocol address"},
		{"198.18.0.0/15", "a benchmarking address"},
		{"2001:2::/48", "a benchmarking address"},
		{"fec0::/10", "a site-local address (deprecated, still an internal network's)"},
		{"100::/64", "a discard-only address"},
	}
	out := make([]struct {
		p      netip.Prefix
		reason string
	}, len(rows))
	for i, r := range rows {
		out[i].p = netip.MustParsePrefix(r.cidr)
		out[i].reason = r.reason
	}
	return out
}()

// IPv6 ranges that carry an IPv4 address, which a host with the route
// reaches: NAT64 (the last 32 bits), IPv4-compatible addresses (::a.b.c.d,
// deprecated, the last 32 bits), IPv4-translated addresses
// (::ffff:0:a.b.c.d, RFC 2765, the last 32 bits, which a stateless
// translator reaches), 6to4 (2002:aabb:ccdd::, bits 16-48) and Teredo
// (2001:0:aabb:ccdd::, its server in bits 32-64 and its client, each bit
// flipped, in the last 32 bits; a host running a Teredo client sends to
// the client address directly).
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	compat     = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
	// Local-use NAT64 (RFC 8215) puts the IPv4 address where the network
	// chooses: the whole range is refused.
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
)

// forbidden returns why ip may not be reached, or "" when it may. IPv4
// addresses mapped into IPv6 are judged as IPv4, and an IPv6 address that
// carries an IPv4 one (NAT64, IPv4-compatible, 6to4) is judged by both; an
// IPv6 zone ("fe80::1%eth0") is ignored, as netip.Prefix.Contains never
// matches a zoned address.
func forbidden(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	if nat64Local.Contains(ip) {
		return "a local-use NAT64 address (RFC 8215), which may carry any IPv4 address"
	}
	if r := blockedReason(ip); r != "" || !ip.Is6() {
		return r
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip), compat.Contains(ip), translated.Contains(ip):
		return blockedReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	case sixToFour.Contains(ip):
		return blockedReason(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	case teredo.Contains(ip):
		if r := blockedReason(netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]})); r != "" {
			return r + " (a Teredo address's server)"
		}
		if r := blockedReason(netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})); r != "" {
			return r + " (a Teredo address's client)"
		}
	}
	return ""
}

// blockedReason is the reason of the first blocked range holding ip.
func blockedReason(ip netip.Addr) string {
	for _, b := range blocked {
		if b.p.Contains(ip) {
			return b.reason
		}
	}
	return ""
}

// guard is the outbound policy shared by a client's requests.
type guard struct {
	allow   []string // host patterns; empty allows every public host
	private map[string]bool
}

// normHost is the name h dials, as the guard compares names: net/http
// dials a name that is not ASCII by its IDNA form (idna.Lookup), which
// maps full-width letters, "。" and soft hyphens ("ｌｏｃａｌｈｏｓｔ" is
// localhost), so such a name is judged by that form; then lower-cased,
// without brackets or a trailing dot.
func normHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if !isASCII(h) {
		if a, err := idna.Lookup.ToASCII(h); err == nil {
			h = a
		}
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hostAllowed reports whether host passes the allow list. "*.example.com"
// matches subdomains of example.com, not example.com itself.
func (g *guard) hostAllowed(host string) bool {
	if len(g.allow) == 0 {
		return true
	}
	host = normHost(host)
	for _, p := range g.allow {
		if p == "*" {
			return true
		}
		if suffix, ok := strings.CutPrefix(p, "*"); ok {
			// Only "*.name" is a pattern (checkAllowPattern): "*example.com"
			// must not let evilexample.com through.
			if strings.HasPrefix(suffix, ".") && strings.HasSuffix(host, suffix) && len(host) > len(suffix) {
				return true
			}
		} else if host == p {
			return true
		}
	}
	return false
}

// checkAllowPattern reports why p (as WithAllowedHosts stored it) can
// never match as meant: a host name, an IP address, "*.name" for the
// subdomains of name, or "*" for every host.
func checkAllowPattern(p string) error {
	if p == "*" {
		return nil
	}
	if _, err := netip.ParseAddr(p); err == nil {
		return nil
	}
	name, wild := strings.CutPrefix(p, "*.")
	if !wild && strings.HasPrefix(p, "*") {
		return fmt.Errorf("httptool.WithAllowedHosts: %q would match any host that ends in %q (evil%s too): write %q for the subdomains, or %q for the host itself",
			p, p[1:], p[1:], "*."+strings.TrimPrefix(p[1:], "."), strings.TrimPrefix(p[1:], "."))
	}
	ok := name != ""
	for _, label := range strings.Split(name, ".") {
		if label == "" || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("httptool.WithAllowedHosts: %q is not a host name: write the host alone (api.example.com, no scheme, port or path), or *.example.com for its subdomains", p)
	}
	return nil
}

// checkPrivateHost reports why h (as WithPrivateHosts stored it) can never
// be exempted: the exemption is by exact host name or IP address.
func checkPrivateHost(h string) error {
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	if strings.Contains(h, "*") || checkAllowPattern(h) != nil {
		return fmt.Errorf("httptool.WithPrivateHosts: %q is not a host name: write the host alone, exactly as URLs name it (localhost, 127.0.0.1, billing.internal; no scheme, port, path or wildcard)", h)
	}
	return nil
}

func (g *guard) checkHost(host string) error {
	if g.hostAllowed(host) {
		return nil
	}
	return &PolicyError{Host: host, Reason: "the host is not in the allow list (" + strings.Join(g.allow, ", ") + ")"}
}

// dialContext dials addr after the allow list check; the resolved address
// of every connection attempt is then checked in the dialer's Control hook,
// after DNS, so a name that resolves (or rebinds) to a forbidden address is
// refused, whichever way the request got there (redirects included).
func (g *guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if err := g.checkHost(host); err != nil {
		return nil, err
	}
	exempt := g.private[normHost(host)]
	d := net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			if exempt {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &PolicyError{Host: host, Addr: address, Reason: "an address the guard cannot parse"}
			}
			if reason := forbidden(ap.Addr()); reason != "" {
				return &PolicyError{Host: host, Addr: ap.Addr().String(), Reason: reason + ", which the network policy forbids"}
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}
