// Package origin names a URL's web origin the one way the SDK compares
// them: the HTTP tools and the MCP client follow a redirect with its
// credentials only within one origin. Loopback says, the one way the SDK
// does, whether a host is this machine.
package origin

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Loopback reports whether host names this machine: "localhost" (any
// case), an address in 127.0.0.0/8, or ::1 (an IPv4-mapped loopback
// address too). host is a URL's Hostname or a Host header, with or without
// a port and brackets. A name with a trailing dot ("localhost.") is not
// taken for it: a resolver may ask DNS about it.
func Loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// Of returns u's scheme, host and port, with ASCII letters lower-cased and
// the port made explicit ("https://example.com:443"), so that two URLs of
// one origin give the same string. Only ASCII is folded: net/http dials a
// host as written (its IDNA form), and strings.ToLower would make
// apİ.example.com (U+0130) api.example.com.
func Of(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[asciiLower(u.Scheme)]
	}
	return asciiLower(u.Scheme) + "://" + asciiLower(u.Hostname()) + ":" + port
}

// asciiLower is s with its ASCII capitals lower-cased, every other byte
// kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
