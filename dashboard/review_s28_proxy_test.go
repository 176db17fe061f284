package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A dashboard behind a proxy that passes its own address as the Host
// (nginx's default, proxy_set_header Host $proxy_host) refuses the page's
// decisions as cross-site, with a message that names the fix
// (WithAllowedOrigins); the page showed "403 Forbidden" alone, since it
// read the message only from a JSON answer. It shows the server's text
// now.
func TestS28ReviewBehindAProxyTheCardSaysWhyADecisionIsRefused(t *testing.T) {
	f := newFixture(t)
	inner := f.srv.Config.Handler
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = "127.0.0.1:1" // the proxy's upstream, not the name the browser used
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	ctx := browser(t)
	f.open(t, ctx)
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "call_1", Name: "write_file",
			Args: json.RawMessage(`{"path":"docs/plan.md","content":"x"}`), Principal: tool.Principal{ID: "alice"}})
		done <- res
	}()
	cards := f.waitPending(t, 1)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitEnabled(chromedp.CSS(`.card button.approve`)), chromedp.Click(chromedp.CSS(`.card button.approve`))))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.card .error').textContent.length > 0`))
	require.NoError(t, err)
	msg := text(t, ctx, `.card .error`)
	assert.Contains(t, msg, "WithAllowedOrigins", "the card says how to fix the refusal")
	require.NoError(t, f.queue.Resolve(cards[0].ID, approval.Denied("test", "done")))
	<-done
}

// WithAllowedOrigins takes an origin with its scheme's default port
// written out; browsers leave it out of Origin, and the decisions of the
// page at that origin were refused as cross-site.
func TestS28ReviewAllowedOriginWithDefaultPort(t *testing.T) {
	f := newFixture(t, dashboard.WithAllowedOrigins("HTTPS://Ops.Example.com:443", "http://[::1]:80"))
	for _, o := range []string{"https://ops.example.com", "http://[::1]"} {
		req, err := http.NewRequest(http.MethodPost, f.srv.URL+"/api/approvals/nothing", strings.NewReader(`{"action":"deny"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Origin", o)
		req.Header.Set(dashboard.CSRFHeader, f.csrf(t))
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.NotEqual(t, http.StatusForbidden, res.StatusCode, "Origin %s, listed with its default port, was refused", o)
	}
	// Another origin is still refused.
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+"/api/approvals/nothing", strings.NewReader(`{"action":"deny"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Origin", "https://ops.example.com:8443")
	req.Header.Set(dashboard.CSRFHeader, f.csrf(t))
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
}
