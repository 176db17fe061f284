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

// Earlier versions kept the token in a cookie (dashboard.CookieName),
// which the browser sends to every port of the host. Opening the page
// clears it, at the path it was set for, Secure where it was Secure (a
// browser lets only a secure page replace a Secure cookie): unless the
// request is plain HTTP to a loopback address.
func TestOldCookieIsCleared(t *testing.T) {
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
	}
	for _, c := range cases {
		for _, target := range []string{"/", "/?token=" + url.QueryEscape(token)} {
			t.Run(c.name+" "+target, func(t *testing.T) {
				r := httptest.NewRequest(http.MethodGet, target, nil)
				r.Host = c.host
				r.TLS = nil
				if c.tls {
					r.TLS = &tls.ConnectionState{}
				}
				for k, v := range c.header {
					r.Header[k] = v
				}
				r.Header.Set("Cookie", dashboard.CookieName+"="+token)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				res := w.Result()
				var cookie *http.Cookie
				for _, ck := range res.Cookies() {
					if ck.Name == dashboard.CookieName {
						cookie = ck
					}
				}
				require.NotNil(t, cookie, "the old cookie is cleared")
				assert.Empty(t, cookie.Value)
				assert.Less(t, cookie.MaxAge, 0, "expired")
				assert.Equal(t, "/", cookie.Path)
				assert.Equal(t, c.secure, cookie.Secure)
			})
		}
	}
	// No cookie, none set.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/?token="+url.QueryEscape(token), nil))
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.Empty(t, w.Result().Cookies())
}

// Over plain HTTP to a network address the page does not send its token
// (it would cross the network in the clear); the 401 says why.
func TestPlainHTTPOnTheNetworkSaysUseHTTPS(t *testing.T) {
	h, err := dashboard.New(executor.MustNew(registry.New()), dashboard.WithToken(token))
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodGet, "/api/session", nil)
	r.Host = "10.0.0.5:8080"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Contains(t, w.Body.String(), "HTTPS")
	r.Host = "127.0.0.1:8080"
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.NotContains(t, w.Body.String(), "HTTPS")
}
