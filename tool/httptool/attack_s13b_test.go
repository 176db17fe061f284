package httptool

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A server that sends its body a byte at a time (a TCP segment each)
// made emit mask the text it holds (a dozen times the longest secret)
// three times over for every byte once it held more than that: 35 µs of
// CPU per byte here, 37 s for a body at the 1 MiB cap, per call. Each
// masking pass that streams text must now stream a hold's worth of bytes
// or more: the number of events a drip makes is bounded by the body's
// length over the hold, not by its bytes.
func TestAttackS13bDrippedBodyIsNotMaskedOncePerByte(t *testing.T) {
	const secret = "sk-live-0123456789abcdef0123456789abcdef"
	r := newRedactor(secret)
	events := 0
	var got strings.Builder
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) {
		if ev.Kind == tool.EventOutput {
			events++
			got.Write(ev.Data)
		}
	})
	body := strings.Repeat("abcdefghijklmnopqrstuvwxyz ", 800) + secret + " end"
	// As readBody streams: each chunk as write releases it, then what it
	// held back, then what emit held back.
	for i := 0; i < len(body); i++ {
		if safe := r.write([]byte{body[i]}); len(safe) > 0 {
			r.emit(ctx, safe)
		}
	}
	if rest := r.flush(); len(rest) > 0 {
		r.emit(ctx, rest)
	}
	r.drain(ctx)
	require.Positive(t, r.streamHold)
	assert.LessOrEqual(t, events, len(body)/r.streamHold+2, "events for a %d-byte body dripped a byte at a time (hold %d)", len(body), r.streamHold)
	assert.Equal(t, strings.ReplaceAll(body, secret, Redacted), got.String())
}

// IPv6 forms the guard judged as public although they carry, or belong
// to, an address it refuses: Teredo (2001::/32) carries its server's IPv4
// address in bits 32-63 and its client's, each bit flipped, in the last
// 32 (a host running a Teredo client sends to that client address
// directly); an IPv4-translated address (::ffff:0:a.b.c.d, RFC 2765)
// reaches a.b.c.d through a stateless translator, as NAT64 does;
// site-local addresses (fec0::/10) are an internal network's, as fc00::/7
// is; 2001:2::/48 is the IPv6 benchmarking range, as 198.18.0.0/15 is for
// IPv4; 100::/64 is discard-only.
func TestAttackS13bIPv6FormsThatCarryAForbiddenAddress(t *testing.T) {
	for _, tc := range []struct{ ip, reason string }{
		// Teredo, client 127.0.0.1 (obfuscated 80ff:fffe), server public.
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"},
		// Teredo, client 169.254.169.254 (obfuscated 5601:5601).
		{"2001:0:4136:e378:8000:63bf:5601:5601", "metadata"},
		// Teredo, server 10.0.0.1, client 93.184.216.34.
		{"2001:0:a00:1:8000:63bf:a247:27dd", "private"},
		{"::ffff:0:7f00:1", "loopback"},
		{"::ffff:0:a9fe:a9fe", "metadata"},
		{"::ffff:0:c0a8:101", "private"},
		{"fec0::1", "site-local"},
		{"2001:2::1", "benchmarking"},
		{"100::1", "discard"},
		// Public ones stay reachable: a Teredo address of public server
		// and client, and an ordinary global address.
		{"2001:0:4136:e378:8000:63bf:a247:27dd", ""},
		{"::ffff:0:5db8:d822", ""},
		{"2001:4860:4860::8888", ""},
	} {
		got := forbidden(netip.MustParseAddr(tc.ip))
		if tc.reason == "" {
			assert.Empty(t, got, tc.ip)
		} else {
			assert.Contains(t, got, tc.reason, tc.ip)
		}
	}
}
