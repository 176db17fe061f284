package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Every call that finished made every open page fetch the history (up to
// 200 rows, each with up to 8 KiB of error text) and the charts again,
// at once: a model, or a tenant's client, that finishes calls by the
// hundred a second had each reviewer's page ask the server for them a
// hundred times a second, every answer read from the whole history. A
// page now fetches them once at a time, and once more after, however
// many calls finished meanwhile.
func TestAttackS28FinishedCallsDoNotFloodTheServerWithHistoryFetches(t *testing.T) {
	f := newFixture(t)
	dash := f.srv.Config.Handler
	var gated atomic.Bool
	var served atomic.Int64
	blocked, release := make(chan struct{}, 64), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/history" && gated.Load() {
			blocked <- struct{}{}
			<-release
		}
		dash.ServeHTTP(w, r)
		if r.URL.Path == "/api/history" {
			served.Add(1)
		}
	}))
	// Cleanups run last first: the browser (whose event stream keeps the
	// server busy) goes, then the held fetches, then the server.
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	ctx := browser(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/?token="+url.QueryEscape(token)),
		chromedp.WaitVisible(chromedp.CSS(`#conn.on`)),
	))
	require.Eventually(t, func() bool { return served.Load() >= 1 }, 10*time.Second, 5*time.Millisecond, "the page's first history fetch")
	// Count the page's history fetches from now on.
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		window.historyFetches = 0;
		const real = window.fetch;
		window.fetch = (path, opts) => {
			if (String(path).startsWith("api/history")) window.historyFetches++;
			return real(path, opts);
		};
		return true;
	})()`))
	require.NoError(t, err)
	gated.Store(true)

	const calls = 50
	run := func(i int) {
		res, err := f.ex.Execute(context.Background(), tool.Call{ID: fmt.Sprintf("c%d", i), Name: "echo", Agent: "coder",
			Args: json.RawMessage(`{"text":"x"}`)})
		require.NoError(t, err)
		require.True(t, res.OK(), "%v", res.Error)
	}
	run(0)
	select {
	case <-blocked: // the page's fetch for the first call waits at the server
	case <-time.After(20 * time.Second):
		t.Fatal("the page did not fetch the history after a call finished")
	}
	for i := 1; i < calls; i++ {
		run(i)
	}
	// The page has had every call's end (its row says so).
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('#live tr.call td.status-succeeded').length === %d`, calls)))
	require.NoError(t, err)
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.historyFetches`))
	require.NoError(t, err)
	assert.LessOrEqual(t, n, 1, "the page fetched the history once for each of %d finished calls while one fetch was under way", calls)

	// Let the fetch through: the page ends up showing every call.
	gated.Store(false)
	close(release)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('#history tbody tr').length === %d`, calls)))
	require.NoError(t, err, "the history shows the last call")
}
