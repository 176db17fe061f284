package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
)

// What is no page of another site is served as before: a client that
// sends no Origin (the SDKs' clients, MCP Inspector's proxy, curl), a
// page the server itself serves (same-origin), a browser client whose
// origin the host trusts (WithAllowedOrigins, normalised as browsers
// write it), and a request a verified bearer token authenticates (a page
// of another site has no token).
func TestS28OriginsServed(t *testing.T) {
	t.Run("no Origin, same origin", func(t *testing.T) {
		s, runs := countServer(t)
		hs := httptest.NewServer(s.HTTPHandler())
		defer hs.Close()
		require.NoError(t, connectAs(t, hs.URL, strings.TrimPrefix(hs.URL, "http://"), nil), "the SDK's client sends no Origin")
		assert.Equal(t, int32(1), runs.Load())
		status, _, body := browserRequest(t, http.MethodPost, hs.URL, "", http.Header{"Origin": {hs.URL}, "Sec-Fetch-Site": {"same-origin"}}, callCountBody)
		assert.Equal(t, http.StatusOK, status, "a page of the server's own origin: %.300s", body)
		status, _, body = browserRequest(t, http.MethodPost, hs.URL, "", http.Header{"Origin": {hs.URL}}, callCountBody)
		assert.Equal(t, http.StatusOK, status, "the same, from a browser without Sec-Fetch-Site: %.300s", body)
		assert.Equal(t, int32(3), runs.Load())
	})

	t.Run("allowed origin", func(t *testing.T) {
		s, runs := countServer(t, WithAllowedOrigins("HTTP://LocalHost:6274/", "https://app.example:443"))
		hs := httptest.NewServer(permissiveCORS(s.HTTPHandler(Stateful())))
		defer hs.Close()
		defer hs.CloseClientConnections()
		for _, o := range []string{"http://localhost:6274", "https://app.example"} {
			h := http.Header{"Origin": {o}, "Sec-Fetch-Site": {"cross-site"}}
			status, sid, body := browserRequest(t, http.MethodPost, hs.URL, "", h, initializeBody)
			require.Equal(t, http.StatusOK, status, "%s: %.300s", o, body)
			require.NotEmpty(t, sid)
			status, _, _ = browserRequest(t, http.MethodPost, hs.URL, sid, h, initializedBody)
			require.Less(t, status, 300)
			status, _, body = browserRequest(t, http.MethodPost, hs.URL, sid, h, callCountBody)
			assert.Equal(t, http.StatusOK, status, "%s: %.300s", o, body)
			status, _, _ = browserRequest(t, http.MethodDelete, hs.URL, sid, h, "")
			assert.Less(t, status, 300, "%s ends its session", o)
		}
		assert.Equal(t, int32(2), runs.Load())
		status, _, _ := browserRequest(t, http.MethodPost, hs.URL, "", crossSite, callCountBody)
		assert.Equal(t, http.StatusForbidden, status, "an origin not listed is refused")
	})

	t.Run("any origin", func(t *testing.T) {
		s, runs := countServer(t, WithAllowedOrigins("*"))
		hs := httptest.NewServer(s.HTTPHandler())
		defer hs.Close()
		status, _, body := browserRequest(t, http.MethodPost, hs.URL, "", crossSite, callCountBody)
		assert.Equal(t, http.StatusOK, status, "%.300s", body)
		assert.Equal(t, int32(1), runs.Load())
	})

	t.Run("verified bearer token", func(t *testing.T) {
		verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			if token != "good" {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
		}
		s, runs := countServer(t, WithPrincipal(PrincipalFromToken()))
		hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(s.HTTPHandler()))
		defer hs.Close()
		h := crossSite.Clone()
		h.Set("Authorization", "Bearer good")
		status, _, body := browserRequest(t, http.MethodPost, hs.URL, "", h, callCountBody)
		assert.Equal(t, http.StatusOK, status, "a browser client with a verified token: %.300s", body)
		assert.Equal(t, int32(1), runs.Load())
	})
}

// The stream a stateful session's GET opens carries the server's
// requests and notifications to the client, and a DELETE ends the
// session: a page of another site is refused both as it is refused a
// POST (the transports' rule is for all connections;
// net/http.CrossOriginProtection alone lets GET through).
func TestS28CrossSiteGetAndDeleteRefused(t *testing.T) {
	s, _ := countServer(t)
	hs := httptest.NewServer(s.HTTPHandler(Stateful()))
	defer hs.Close()
	defer hs.CloseClientConnections()
	status, sid, _ := browserRequest(t, http.MethodPost, hs.URL, "", nil, initializeBody)
	require.Equal(t, http.StatusOK, status)
	require.NotEmpty(t, sid)
	defer browserRequest(t, http.MethodDelete, hs.URL, sid, nil, "")
	for _, h := range []http.Header{crossSite, {"Origin": {evilOrigin}}, {"Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"navigate"}}} {
		h = h.Clone()
		h.Set("Accept", "text/event-stream")
		status, _, body := browserRequest(t, http.MethodGet, hs.URL, sid, h, "")
		if assert.Equal(t, http.StatusForbidden, status, "%v: %.300s", h, body) {
			assert.Contains(t, body, "WithAllowedOrigins")
		}
	}
	status, _, body := browserRequest(t, http.MethodDelete, hs.URL, sid, crossSite, "")
	assert.Equal(t, http.StatusForbidden, status, "a page of another site ended the session: %.300s", body)
	status, _, body = browserRequest(t, http.MethodPost, hs.URL, sid, nil, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, http.StatusOK, status, "the session lives on: %.300s", body)
}

// A sandboxed page (an iframe with sandbox, a data: URL) or a local file
// sends Origin "null", which names no one and cannot be allowed: it is
// refused, with or without Sec-Fetch-Site, and told so.
func TestS28NullOriginRefused(t *testing.T) {
	s, runs := countServer(t, WithAllowedOrigins("http://localhost:6274"))
	hs := httptest.NewServer(s.HTTPHandler())
	defer hs.Close()
	for _, h := range []http.Header{{"Origin": {"null"}, "Sec-Fetch-Site": {"cross-site"}}, {"Origin": {"null"}}} {
		status, _, body := browserRequest(t, http.MethodPost, hs.URL, "", h, callCountBody)
		if assert.Equal(t, http.StatusForbidden, status, "%v: %.300s", h, body) {
			assert.Contains(t, body, "cannot be allowed")
		}
	}
	assert.Zero(t, runs.Load())
}

// WithAllowedOrigins takes origins alone, and says what is wrong with
// others.
func TestS28AllowedOriginsRefusesWhatIsNotAnOrigin(t *testing.T) {
	ex := executor.MustNew(registry.New())
	for _, tc := range []struct{ origin, want string }{
		{"localhost:6274", "scheme://host"},
		{"app.example", "scheme://host"},
		{"", "scheme://host"},
		{"null", "sandboxed"},
		{"http://localhost:*", "scheme://host"},
		{"http://app.example/mcp", "path"},
		{"http://user@app.example", "user"},
		{"https://\u212Aey.example", "ASCII"},
	} {
		_, err := New(ex, WithAllowedOrigins(tc.origin))
		if assert.Error(t, err, "%q", tc.origin) {
			assert.ErrorContains(t, err, tc.want, "%q", tc.origin)
			assert.ErrorContains(t, err, "WithAllowedOrigins", "%q", tc.origin)
		}
	}
	_, err := New(ex, WithAllowedOrigins("http://localhost:6274", "https://[::1]:8443", "https://xn--bcher-kva.example", "*"))
	assert.NoError(t, err)
}

// normalOrigin writes an origin as browsers send it.
func TestS28NormalOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"HTTP://LocalHost:6274/":  "http://localhost:6274",
		"https://app.example:443": "https://app.example",
		"http://app.example:80":   "http://app.example",
		"http://app.example:443":  "http://app.example:443",
		"https://[::1]:8443":      "https://[::1]:8443",
		"https://[::1]:443":       "https://[::1]",
	} {
		got, err := normalOrigin(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
}
