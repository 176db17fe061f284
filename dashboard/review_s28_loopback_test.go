package dashboard_test

import (
	"net"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The page sends its token over plain HTTP to a loopback address only;
// it tells one from the address bar's host. A dashboard opened at
// localhost or at [::1] (brackets and all in location.hostname) is shown,
// as at 127.0.0.1: a page that took them for network names would sign
// the person out with a message to serve it over HTTPS.
func TestS28ReviewThePageSendsItsTokenToEveryLoopbackName(t *testing.T) {
	f := newFixture(t)
	_, port, err := net.SplitHostPort(f.srv.Listener.Addr().String())
	require.NoError(t, err)
	bases := []string{"http://localhost:" + port}
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Logf("no IPv6 loopback here (%v): [::1] not tried", err)
	} else {
		srv := httptest.NewUnstartedServer(f.srv.Config.Handler)
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close) // after the browser (its event stream) is gone
		bases = append(bases, srv.URL)
	}
	ctx := browser(t)
	for _, base := range bases {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/#token="+url.QueryEscape(token)),
			chromedp.WaitVisible(chromedp.CSS(`#live-panel`)),
			chromedp.WaitVisible(chromedp.CSS(`#conn.on`))), "the dashboard at %s", base)
	}
}
