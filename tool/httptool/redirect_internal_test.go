package httptool

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Credentials follow a redirect only to the same scheme, host and port
// (the port made explicit): a change of scheme alone (http to https on the
// same host and port, or back) is another origin too. The end-to-end test
// (TestRedirectToAnotherPortDropsTheCredential) cannot serve both schemes
// on one port with a certificate the client trusts, so this one calls the
// client's redirect check directly.
func TestRedirectCheckKeepsCredentialsOnlyForTheSameOrigin(t *testing.T) {
	c := NewClient(WithPrivateHosts("127.0.0.1", "127.0.0.2"))
	defer c.CloseIdleConnections()
	for _, tc := range []struct {
		from, to string
		keep     bool
	}{
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b", true},
		{"http://127.0.0.1/a", "http://127.0.0.1:80/b", true},
		{"https://127.0.0.1/a", "https://127.0.0.1:443/b", true},
		{"HTTP://127.0.0.1:8080/a", "http://127.0.0.1:8080/b", true},
		{"http://127.0.0.1:8080/a", "https://127.0.0.1:8080/b", false},
		{"https://127.0.0.1:8443/a", "http://127.0.0.1:8443/b", false},
		{"http://127.0.0.1/a", "https://127.0.0.1/b", false},
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8081/b", false},
		{"http://127.0.0.1:8080/a", "http://127.0.0.2:8080/b", false},
	} {
		t.Run(tc.from+" -> "+tc.to, func(t *testing.T) {
			ctx := context.WithValue(context.Background(), redirectKey{}, &redirectState{authHeader: "X-Api-Key"})
			first, err := http.NewRequestWithContext(ctx, http.MethodGet, tc.from, nil)
			require.NoError(t, err)
			next, err := http.NewRequestWithContext(ctx, http.MethodGet, tc.to, nil)
			require.NoError(t, err)
			for _, h := range []string{"X-Api-Key", "Authorization", "Proxy-Authorization", "Cookie"} {
				next.Header.Set(h, "s3cr3t")
			}
			require.NoError(t, c.checkRedirect(next, []*http.Request{first}))
			for _, h := range []string{"X-Api-Key", "Authorization", "Proxy-Authorization", "Cookie"} {
				if tc.keep {
					assert.Equal(t, "s3cr3t", next.Header.Get(h), "%s kept on the same origin", h)
				} else {
					assert.Empty(t, next.Header.Get(h), "%s dropped for another origin", h)
				}
			}
		})
	}
}

// WithPrivateHosts exempts a host by name for the tools that call it, but
// the client is shared: a public endpoint (or an open redirect on one,
// reached through a model-chosen path) must not be able to send the call
// on to the exempted internal service. A redirect into an exempted host is
// followed only from an exempted host. End to end this needs a public
// address, which a test cannot serve, so the redirect check is called
// directly.
func TestRedirectIntoAPrivateHostOnlyFromAPrivateHost(t *testing.T) {
	c := NewClient(WithPrivateHosts("127.0.0.1", "billing.internal"))
	defer c.CloseIdleConnections()
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"https://api.example.com/a", "http://127.0.0.1:8080/admin", false},
		{"https://api.example.com/a", "http://billing.internal/admin", false},
		{"https://api.example.com/a", "http://BILLING.internal./admin", false},
		{"https://api.example.com/a", "https://other.example.com/b", true},
		{"http://127.0.0.1:8080/a", "http://billing.internal/b", true},
		{"http://billing.internal/a", "http://billing.internal/b", true},
	} {
		t.Run(tc.from+" -> "+tc.to, func(t *testing.T) {
			first, err := http.NewRequest(http.MethodGet, tc.from, nil)
			require.NoError(t, err)
			next, err := http.NewRequest(http.MethodGet, tc.to, nil)
			require.NoError(t, err)
			err = c.checkRedirect(next, []*http.Request{first})
			if tc.ok {
				assert.NoError(t, err)
				return
			}
			var pe *PolicyError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Error(), "a redirect from a public host into a private one")
		})
	}
}
