package mcpserver

import (
	"net"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Host naming this machine with a trailing dot (localhost.,
// 127.0.0.1.) stays refused, on a loopback address (where the SDK
// refused it with "invalid Host header") and on any other, and the
// refusal now says to write it without the dot: a resolver may ask DNS
// about localhost., and browsers write an address without the dot, so
// only the dotless forms are taken for this machine. A name listed with
// its dot in WithAllowedHosts is served as listed.
func TestS28TrailingDotHost(t *testing.T) {
	s, _ := countServer(t)
	hs := httptest.NewServer(s.HTTPHandler())
	defer hs.Close()
	_, port, err := net.SplitHostPort(hs.Listener.Addr().String())
	require.NoError(t, err)
	lan, lanPort := lanServer(t, s.HTTPHandler())
	for _, tc := range []struct{ url, port string }{{hs.URL, port}, {lan, lanPort}} {
		for _, host := range []string{"localhost.", "LOCALHOST.", "127.0.0.1.", "127.0.0.2."} {
			err := connectAs(t, tc.url, host+":"+tc.port, nil)
			if assert.Error(t, err, "%s on %s", host, tc.url) {
				assert.ErrorContains(t, err, "ends with a dot", host)
			}
		}
		assert.NoError(t, connectAs(t, tc.url, "localhost:"+tc.port, nil))
	}

	s, _ = countServer(t, WithAllowedHosts("tools.lan."))
	lan, lanPort = lanServer(t, s.HTTPHandler())
	assert.NoError(t, connectAs(t, lan, "tools.lan.:"+lanPort, nil), "a dotted name listed is served")
	assert.Error(t, connectAs(t, lan, "tools.lan:"+lanPort, nil), "the name without the dot is another")
}
