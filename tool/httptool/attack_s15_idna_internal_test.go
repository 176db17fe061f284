package httptool

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A redirect into a host exempted by WithPrivateHosts is followed only
// from an exempted host, and the check compared the redirect's host name
// as written (lower-cased, without a trailing dot) with the exempted
// names. net/http dials a non-ASCII name by its IDNA form, mapping
// full-width letters and digits, ideographic full stops and soft hyphens
// to the ASCII name: "ｌｏｃａｌｈｏｓｔ" and "billing。internal" are
// dialled as localhost and billing.internal, and the dialer exempts them
// from the address checks by that name. A public endpoint's redirect to
// such a spelling passed the redirect check and reached the exempted
// internal service. End to end this needs a public first host, which a
// test cannot serve: the redirect check is called directly, and the
// client shown to dial the spelling as the exempted name.
func TestAttackS15RedirectIntoAPrivateHostSpelledInUnicode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "internal admin")
	}))
	defer srv.Close()
	port := srv.URL[len("http://127.0.0.1:"):]

	c := NewClient(WithPrivateHosts("localhost", "billing.internal"))
	defer c.CloseIdleConnections()

	// The client dials the full-width spelling as localhost, which it
	// exempts: the internal service answers.
	res, err := c.httpc.Get("http://ｌｏｃａｌｈｏｓｔ:" + port + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	require.Equal(t, "internal admin", string(body), "the spelling is dialled as the exempted localhost")

	first, err := http.NewRequest(http.MethodGet, "https://api.example.com/a", nil)
	require.NoError(t, err)
	for _, to := range []string{
		"http://ｌｏｃａｌｈｏｓｔ:" + port + "/admin",
		"http://LOCAL\u00adHOST:" + port + "/admin",
		"http://billing。internal/admin",
		"http://ｂｉｌｌｉｎｇ．ｉｎｔｅｒｎａｌ/admin",
	} {
		u, err := url.Parse(to)
		require.NoError(t, err, to)
		next := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		err = c.checkRedirect(next, []*http.Request{first})
		var pe *PolicyError
		if assert.ErrorAs(t, err, &pe, "%s: a public host's redirect reaches an exempted one", to) {
			assert.Contains(t, pe.Error(), "a redirect from a public host into a private one")
		}
	}

	// Spellings of other hosts, and redirects between exempted hosts, are
	// followed as before.
	for _, tc := range []struct{ from, to string }{
		{"https://api.example.com/a", "https://ｏｔｈｅｒ.example.com/b"},
		{"http://localhost:" + port + "/a", "http://billing。internal/b"},
	} {
		from, err := url.Parse(tc.from)
		require.NoError(t, err)
		u, err := url.Parse(tc.to)
		require.NoError(t, err)
		next := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		assert.NoError(t, c.checkRedirect(next, []*http.Request{{URL: from}}), tc.to)
	}
}
