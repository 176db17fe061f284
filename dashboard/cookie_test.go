package dashboard_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
)

// The session cookie is Secure unless the page was asked for over plain
// HTTP at a loopback address. Behind a reverse proxy that ends TLS (the
// usual deployment) the request reaches the dashboard as plain HTTP: with
// Secure set only when r.TLS != nil, the cookie carrying the token went
// out without it, and a browser sends it on any http:// request to the
// name, in the clear.
func TestCookieIsSecureUnlessPlainHTTPToLoopback(t *testing.T) {
	h, err := dashboard.New(executor.MustNew(registry.New()), dashboard.WithToken(token))
	require.NoError(t, err)
	cases := []struct {
		name   string
		host   string
		tls    bool
		header http.Header
		secure bool
	}{
		{"behind a TLS proxy that keeps the public name", "dash.example.com", false, nil, true},
		{"X-Forwarded-Proto https, loopback Host", "127.0.0.1:8080", false, http.Header{"X-Forwarded-Proto": {"https"}}, true},
		{"Forwarded proto=https, loopback Host", "localhost:8080", false, http.Header{"Forwarded": {`for=192.0.2.1;proto=https;host="dash.example.com"`}}, true},
		{"TLS at the dashboard's own server", "localhost:8443", true, nil, true},
		{"plain HTTP on a network address", "10.0.0.5:8080", false, nil, true},
		{"plain HTTP to 127.0.0.1", "127.0.0.1:8080", false, nil, false},
		{"plain HTTP to localhost", "localhost:8080", false, nil, false},
		{"plain HTTP to [::1]", "[::1]:8080", false, nil, false},
		{"plain HTTP to 127.0.0.1, X-Forwarded-Proto http", "127.0.0.1", false, http.Header{"X-Forwarded-Proto": {"http"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/?token="+url.QueryEscape(token), nil)
			r.Host = c.host
			if !c.tls {
				r.TLS = nil
			} else {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range c.header {
				r.Header[k] = v
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			res := w.Result()
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
			var cookie *http.Cookie
			for _, ck := range res.Cookies() {
				if ck.Name == dashboard.CookieName {
					cookie = ck
				}
			}
			require.NotNil(t, cookie)
			assert.Equal(t, c.secure, cookie.Secure)
			assert.True(t, cookie.HttpOnly)
		})
	}
}

// Over plain HTTP to a network address the browser drops the Secure
// cookie; the 401 the page's load gets next says why.
func TestPlainHTTPOnTheNetworkSaysUseHTTPS(t *testing.T) {
	h, err := dashboard.New(executor.MustNew(registry.New()), dashboard.WithToken(token))
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept", "text/html,application/xhtml+xml")
	r.Host = "10.0.0.5:8080"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Contains(t, w.Body.String(), "HTTPS")
	r.Host = "127.0.0.1:8080"
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.NotContains(t, w.Body.String(), "HTTPS")
}
