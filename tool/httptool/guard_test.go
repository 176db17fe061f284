package httptool

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestForbiddenAddresses(t *testing.T) {
	for _, tc := range []struct{ ip, reason string }{
		{"127.0.0.1", "loopback"},
		{"127.9.9.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"64:ff9b::7f00:1", "loopback"},
		// IPv4 carried in IPv6: IPv4-compatible (::a.b.c.d), local-use
		// NAT64 (RFC 8215) and 6to4 (2002:aabb:ccdd::) reach the IPv4
		// address where the host routes them.
		{"::7f00:1", "loopback"},
		{"::a9fe:a9fe", "metadata"},
		{"64:ff9b:1::a9fe:a9fe", "NAT64"},
		{"2002:7f00:1::", "loopback"},
		{"2002:a9fe:a9fe::1", "metadata"},
		{"2002:c0a8:101::1", "private"},
		{"2002:5db8:d822::1", ""},
		{"10.1.2.3", "private"},
		{"172.31.0.1", "private"},
		{"192.168.1.1", "private"},
		{"fd12::1", "private"},
		{"169.254.169.254", "metadata"},
		{"fd00:ec2::254", "metadata"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"93.184.216.34", ""},
		{"172.32.0.1", ""},
		{"2606:4700::1111", ""},
	} {
		got := forbidden(netip.MustParseAddr(tc.ip))
		if tc.reason == "" {
			assert.Empty(t, got, tc.ip)
		} else {
			assert.Contains(t, got, tc.reason, tc.ip)
		}
	}
}

func TestHostAllowList(t *testing.T) {
	g := &guard{allow: []string{"api.example.com", "*.github.com"}}
	assert.True(t, g.hostAllowed("API.example.com."))
	assert.True(t, g.hostAllowed("raw.github.com"))
	assert.False(t, g.hostAllowed("github.com"))
	assert.False(t, g.hostAllowed("evilgithub.com"))
	assert.False(t, g.hostAllowed("api.example.com.evil.io"))
}

func TestRedactorAcrossChunks(t *testing.T) {
	const secret = "abcSECRETxyz"
	body := "pre " + secret + " mid " + secret + secret + " end ab"
	for size := 1; size <= len(body); size++ {
		r := newRedactor(secret)
		var out []byte
		for i := 0; i < len(body); i += size {
			out = append(out, r.write([]byte(body[i:min(i+size, len(body))]))...)
		}
		out = append(out, r.flush()...)
		assert.Equal(t, strings.ReplaceAll(body, secret, Redacted), string(out), "chunk size %d", size)
	}
	r := newRedactor(`a"b/c`)
	assert.Equal(t, "x [REDACTED] [REDACTED] [REDACTED]", r.string(`x a"b/c a\"b/c a\"b\/c`), "JSON-escaped forms too")
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	d, ok := retryAfter("120", now)
	assert.True(t, ok)
	assert.Equal(t, 2*time.Minute, d)
	d, ok = retryAfter(now.Add(30*time.Second).Format(http.TimeFormat), now)
	assert.True(t, ok)
	assert.Equal(t, 30*time.Second, d)
	d, ok = retryAfter(now.Add(-time.Hour).Format(http.TimeFormat), now)
	assert.True(t, ok)
	assert.Zero(t, d)
	_, ok = retryAfter("soon", now)
	assert.False(t, ok)
	_, ok = retryAfter("-5", now)
	assert.False(t, ok)
}

// netip.Prefix.Contains is false for any address with an IPv6 zone, and
// the dialer's Control hook receives the zone the URL gave
// ("http://[::1%25lo]:8080/" dials "[::1%lo]:8080"): a zone must not take
// an address out of the ranges it belongs to.
func TestForbiddenAddressesWithAZone(t *testing.T) {
	for _, tc := range []struct{ addr, reason string }{
		{"[::1%lo]:80", "loopback"},
		{"[fe80::1%eth0]:80", "link-local"},
		{"[fe80::a9fe:a9fe%2]:80", "link-local"},
		{"[fd00:ec2::254%eth0]:80", "metadata"},
		{"[fd12::1%1]:80", "private"},
		{"[ff02::1%lo]:80", "multicast"},
		{"[::%lo]:80", "unspecified"},
		{"[64:ff9b::a9fe:a9fe%eth0]:80", "metadata"},
	} {
		ap, err := netip.ParseAddrPort(tc.addr)
		if assert.NoError(t, err, tc.addr) {
			assert.Contains(t, forbidden(ap.Addr()), tc.reason, tc.addr)
		}
	}
}
