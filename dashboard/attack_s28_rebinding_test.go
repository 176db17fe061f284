package dashboard_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
)

// requestAs sends a request to f's server naming host in its Host header,
// as a browser does for the page whose origin it believes it talks to.
func (f *fixture) requestAs(t *testing.T, host, method, path, body string, hdr http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Host = host
	for k, v := range hdr {
		req.Header[k] = v
	}
	c := client()
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// A program that puts its own sign-in in front of the dashboard (WithAuth,
// no WithToken) and serves it on a loopback address trusts what reaches
// that address: here the X-Ops-User header its front proxy sets (opsAuth),
// as a program behind oauth2-proxy trusts X-Forwarded-User. A site the
// person visits points its own name at 127.0.0.1 (DNS rebinding); its
// page's requests then reach the dashboard as the page's own origin, with
// any header it likes (same-origin: no preflight). It read the page and
// its CSRF token, listed what waits, and approved it: the Origin it sent
// names its own host, which is the Host it sent, so the origin check let it
// through. Without WithToken the dashboard now serves only a request that
// names a loopback host, the address the connection came to, or a host of
// WithAllowedOrigins.
func TestAttackS28RebindingPageReadsAndDecidesNothing(t *testing.T) {
	var refused atomic.Int64
	f := newAuthFixture(t, dashboard.WithAuth(opsAuth(&refused)), dashboard.WithIdentity(identityFromAuth))
	done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
	id := waitQueue(t, f.queue)
	u, err := url.Parse(f.srv.URL)
	require.NoError(t, err)
	rebound := "rebound.example:" + u.Port()

	// What the rebound page's fetch sends: its own name, the header the
	// proxy would set, and what a browser adds to a same-origin request.
	page := func(kv ...string) http.Header {
		return hdrs(append([]string{"X-Ops-User", "carol", "Sec-Fetch-Site", "same-origin"}, kv...)...)
	}
	code, body := f.requestAs(t, rebound, http.MethodGet, "/", "", page())
	assert.Equal(t, http.StatusForbidden, code, "the rebound page was served the dashboard")
	assert.False(t, csrfRE.MatchString(body), "the rebound page read the CSRF token")
	for _, path := range []string{"/api/session", "/api/approvals", "/api/history", "/api/stats", "/static/app.js"} {
		code, body = f.requestAs(t, rebound, http.MethodGet, path, "", page())
		assert.Equal(t, http.StatusForbidden, code, "%s: %s", path, body)
		assert.NotContains(t, body, id, path)
	}
	// Even with the CSRF token (which it could no longer read) and its
	// own origin, nothing is decided.
	csrf := csrfOf(t, f, hdrs("X-Ops-User", "carol"))
	code, body = f.requestAs(t, rebound, http.MethodPost, "/api/approvals/"+id, `{"action":"approve"}`,
		page(dashboard.CSRFHeader, csrf, "Origin", "http://"+rebound, "Content-Type", "application/json"))
	assert.Equal(t, http.StatusForbidden, code, "the rebound page approved the call: %s", body)
	assert.Equal(t, []string{id}, pendingIDs(t, f.queue), "nothing was decided")
	assert.Contains(t, body, "WithAllowedOrigins", "the refusal names the way to serve a name")

	// The names the person's own browser uses are served.
	for _, host := range []string{"localhost:" + u.Port(), "LocalHost:" + u.Port(), "127.0.0.1:" + u.Port(), u.Host} {
		code, body = f.requestAs(t, host, http.MethodGet, "/api/approvals", "", hdrs("X-Ops-User", "carol"))
		assert.Equal(t, http.StatusOK, code, "%s: %s", host, body)
		assert.Contains(t, body, id, host)
	}
	require.NoError(t, f.queue.Resolve(id, approval.Denied("test", "done")))
	<-done
}

// tailnetAuth lets in whoever connects from the tailnet's addresses
// (100.64.0.0/10), as a program that asks its VPN who a peer is does.
func tailnetAuth(next http.Handler) http.Handler {
	_, tailnet, _ := net.ParseCIDR("100.64.0.0/10")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !tailnet.Contains(ip) {
			http.Error(w, "tailnet: who are you?", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// The same page on a dashboard served on a VPN address (100.100.1.7) to
// the peers the VPN names: a site rebinds its name to that address, and
// the person's browser, a peer, is let in. It is refused unless the name
// is the address itself or one given to WithAllowedOrigins.
func TestAttackS28RebindingToANetworkAddress(t *testing.T) {
	ex := executor.MustNew(registry.New())
	serve := func(host string, opts ...dashboard.Option) *httptest.ResponseRecorder {
		h, err := dashboard.New(ex, append([]dashboard.Option{dashboard.WithAuth(tailnetAuth)}, opts...)...)
		require.NoError(t, err)
		local := &net.TCPAddr{IP: net.ParseIP("100.100.1.7"), Port: 8080}
		req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, local))
		req.Host, req.RemoteAddr = host, "100.100.1.9:53211"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := serve("rebound.example:8080")
	assert.Equal(t, http.StatusForbidden, w.Code, "the rebound page was served")
	assert.False(t, csrfRE.MatchString(w.Body.String()), "the rebound page read the CSRF token")

	for _, host := range []string{"100.100.1.7:8080", "100.100.1.7", "localhost:8080"} {
		w = serve(host)
		assert.Equal(t, http.StatusOK, w.Code, "%s: %s", host, w.Body)
	}
	w = serve("dash.tailnet-1234.ts.net", dashboard.WithAllowedOrigins("https://DASH.tailnet-1234.ts.net"))
	assert.Equal(t, http.StatusOK, w.Code, "a name given to WithAllowedOrigins: %s", w.Body)
	w = serve("other.tailnet-1234.ts.net", dashboard.WithAllowedOrigins("https://dash.tailnet-1234.ts.net"))
	assert.Equal(t, http.StatusForbidden, w.Code, "another name")
}

// With WithToken every request carries the token, which a rebound page
// does not have (the page keeps it in the real name's origin's storage):
// any name is served, as
// behind a proxy that passes the name the person used.
func TestS28TokenDashboardServesAnyName(t *testing.T) {
	f := newFixture(t)
	code, body := f.requestAs(t, "ops.example.com", http.MethodGet, "/api/session", "", bearer())
	assert.Equal(t, http.StatusOK, code, body)
	code, _ = f.requestAs(t, "ops.example.com", http.MethodGet, "/api/session", "", nil)
	assert.Equal(t, http.StatusUnauthorized, code)
}

// The rebinding in real Chromium: its resolver maps the site's name to
// 127.0.0.1, where the site's page was served (the site's server, before
// its name was pointed at the dashboard's address, is played by a handler
// in front of the dashboard). The page fetches the dashboard as its own
// origin, adds the header the program's front proxy would set, reads the
// CSRF token and approves what waits.
func TestAttackS28BrowserRebindingPageApprovesNothing(t *testing.T) {
	var refused atomic.Int64
	f := newAuthFixture(t, dashboard.WithAuth(opsAuth(&refused)), dashboard.WithIdentity(identityFromAuth))
	done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
	id := waitQueue(t, f.queue)
	page := `<!doctype html><title>start</title><script>
(async () => {
  const out = [];
  const h = {"X-Ops-User": "carol"};
  try {
    const page = await fetch("/", {headers: h});
    out.push("page " + page.status);
    const session = await fetch("/api/session", {headers: h});
    const csrf = session.ok ? (await session.json()).csrf : "";
    out.push("session " + session.status + (csrf ? " csrf" : ""));
    const list = await fetch("/api/approvals", {headers: h});
    out.push("list " + list.status);
    if (list.ok && csrf) {
      const [a] = await list.json();
      const r = await fetch("/api/approvals/" + a.id, {method: "POST", body: '{"action":"approve"}',
        headers: {...h, "Content-Type": "application/json", "X-Toolbelt-CSRF": csrf}});
      out.push("decide " + r.status);
    }
  } catch (e) { out.push("error " + e); }
  document.title = "done:" + out.join(",");
})();
</script>`
	dash := f.srv.Config.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rebind.html" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, page)
			return
		}
		dash.ServeHTTP(w, r)
	}))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)

	ctx := browser(t, chromedp.Flag("host-resolver-rules", "MAP rebound.example 127.0.0.1"))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("http://rebound.example:"+u.Port()+"/rebind.html")))
	title, err := chromedp.Run(ctx, chromedp.Poll[string](`document.title.startsWith("done:") && document.title`))
	require.NoError(t, err)
	assert.Equal(t, "done:page 403,session 403,list 403", title, "what the rebound page did")
	assert.Equal(t, []string{id}, pendingIDs(t, f.queue), "nothing was decided")
	require.NoError(t, f.queue.Resolve(id, approval.Denied("test", "done")))
	<-done
}
