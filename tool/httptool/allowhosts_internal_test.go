package httptool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

func allowSpec() tool.Spec {
	return tool.Spec{Name: "get_item", Description: "Get an item"}
}

// "*example.com" (the dot forgotten) let every host that ends in
// example.com through, evilexample.com included: the allow list must
// match only what a pattern can mean, and New must refuse the pattern.
func TestAllowPatternWithoutDotIsRefused(t *testing.T) {
	c := NewClient(WithAllowedHosts("*example.com"))
	defer c.CloseIdleConnections()
	assert.False(t, c.g.hostAllowed("evilexample.com"), "*example.com let evilexample.com through")
	_, err := c.New(allowSpec(), Config{URL: "https://api.example.com/items"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"*example.com"`)
	assert.Contains(t, err.Error(), `"*.example.com"`)
}

// A host pattern that can never match (a URL, a port, a wildcard inside the
// name) failed every call at call time; New refuses it and says how to
// write it.
func TestAllowPatternThatCannotMatchIsRefused(t *testing.T) {
	for _, p := range []string{"https://api.example.com", "api.example.com:443", "api.*.com", "api.example.com/v1", "a..example.com"} {
		t.Run(p, func(t *testing.T) {
			c := NewClient(WithAllowedHosts(p))
			defer c.CloseIdleConnections()
			_, err := c.New(allowSpec(), Config{URL: "https://api.example.com/items"})
			require.Error(t, err, "pattern %q accepted", p)
			assert.Contains(t, err.Error(), "WithAllowedHosts")
		})
	}
}

// A tool whose URL names a host the client's allow list refuses could never
// succeed; New says so instead of every call failing with network_policy.
func TestToolHostOutsideTheAllowListIsRefusedByNew(t *testing.T) {
	c := NewClient(WithAllowedHosts("api.example.com", "*.example.org"))
	defer c.CloseIdleConnections()
	_, err := c.New(allowSpec(), Config{URL: "https://api.exmaple.com/items"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"api.exmaple.com"`)
	assert.Contains(t, err.Error(), "allow list")

	for _, u := range []string{"https://api.example.com/items", "https://API.example.com./items", "https://a.b.example.org/x"} {
		_, err = c.New(allowSpec(), Config{URL: u})
		require.NoError(t, err, u)
	}
	_, err = c.New(allowSpec(), Config{URL: "https://example.org/x"})
	require.Error(t, err, "*.example.org matches subdomains only")
}

// A WithPrivateHosts entry that is not a host name (a URL, a port, a
// wildcard: the exemption is by exact name) exempted nothing, so every
// call to the internal service failed at call time; New refuses it.
func TestPrivateHostThatCannotMatchIsRefused(t *testing.T) {
	for _, p := range []string{"http://localhost", "localhost:8080", "*.internal"} {
		t.Run(p, func(t *testing.T) {
			c := NewClient(WithPrivateHosts(p))
			defer c.CloseIdleConnections()
			_, err := c.New(allowSpec(), Config{URL: "http://localhost:8080/items"})
			require.Error(t, err, "private host %q accepted", p)
			assert.Contains(t, err.Error(), "WithPrivateHosts")
		})
	}
	c := NewClient(WithPrivateHosts("localhost", "127.0.0.1", "[::1]", "billing.internal"))
	defer c.CloseIdleConnections()
	_, err := c.New(allowSpec(), Config{URL: "http://localhost:8080/items"})
	require.NoError(t, err)
}
