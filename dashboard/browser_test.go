package dashboard_test

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/tool"
)

var screenshot = flag.String("screenshot", "", "write a screenshot of the page with a pending approval to this file (docs/dashboard.png)")

// browser starts Debian's headless Chromium for one test. Under CI=true a
// missing browser fails the test; elsewhere it is skipped with the reason.
// extra adds to the options it is started with (a flag, say).
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed: apt-get install chromium (CI=true: a missing browser fails the run)")
		}
		t.Skip("chromium is not installed: apt-get install chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // the tests run as root in CI
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	return ctx
}

func (f *fixture) open(t *testing.T, ctx context.Context) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(f.srv.URL+"/#token="+url.QueryEscape(token)),
		chromedp.WaitVisible(chromedp.CSS(`#live-panel`)),
		// The event stream is open (the server subscribed before the
		// browser saw it open): calls from now on reach the live view.
		chromedp.WaitVisible(chromedp.CSS(`#conn.on`)),
	))
}

// text reads the text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return s
}

func TestBrowserApprovesACallWithAClick(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	// A call that succeeded earlier fills the history and the charts.
	res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "warmup", Name: "echo", Args: []byte(`{"text":"hello"}`), Agent: "coder", Provider: "anthropic"})
	require.True(t, res.OK())

	done := f.startCall(t, `{"path":"docs/notes.md","content":"# Notes"}`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.card button.approve`))))
	assert.Contains(t, text(t, ctx, `.card pre.args`), `"path": "docs/notes.md"`)
	assert.NotContains(t, text(t, ctx, `.card`), "null", "absent fields leave no trace")
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.querySelectorAll('#live h3')].some(h => h.textContent === 'agent: coder · provider: anthropic')`))
	require.NoError(t, err, "live calls are grouped by agent and provider")
	if *screenshot != "" {
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.stat`)), chromedp.WaitVisible(chromedp.CSS(`#live td.status`)),
			chromedp.WaitEnabled(chromedp.CSS(`.card button.approve`))))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(*screenshot, png, 0o644))
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitEnabled(chromedp.CSS(`.card button.approve`)), chromedp.Click(chromedp.CSS(`.card button.approve`))))
	select {
	case res := <-done:
		require.True(t, res.OK(), "%v", res.Error)
		assert.Equal(t, "dashboard", res.Metadata["approval"].(map[string]any)["decided_by"])
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not complete after the click")
	}
	assert.Equal(t, "docs/notes.md", (<-f.written).Path)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.WaitNotPresent(chromedp.CSS(`.card`)),
		chromedp.WaitVisible(chromedp.CSS(`#live tr.call td.status-succeeded`)),
	))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('#history tbody tr td.status') !== null && `+
		`document.querySelector('#history tbody tr td.status').textContent === 'succeeded' && `+
		`document.querySelectorAll('#history tbody tr').length === 2`))
	require.NoError(t, err, "the history shows both calls, newest first")
}

func TestBrowserShowsAModificationsValidationError(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	done := f.startCall(t, `{"path":"src/app.go","content":"x"}`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`.card button.modify`)),
		chromedp.Click(chromedp.CSS(`.card button.modify`)),
		chromedp.SetValue(chromedp.CSS(`.card textarea.editor`), `{"path": "", "mode": 4096}`),
		chromedp.WaitEnabled(chromedp.CSS(`.card button.submit-modify`)), chromedp.Click(chromedp.CSS(`.card button.submit-modify`)),
	))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.card .error').textContent.length > 0`))
	require.NoError(t, err)
	msg := text(t, ctx, `.card .error`)
	assert.Contains(t, msg, "mode: must be <= 511")
	assert.Contains(t, msg, "path")

	// The call still waits; a good modification runs it.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`.card textarea.editor`), `{"path": "docs/app.go", "content": "x"}`),
		chromedp.WaitEnabled(chromedp.CSS(`.card button.submit-modify`)), chromedp.Click(chromedp.CSS(`.card button.submit-modify`)),
	))
	select {
	case res := <-done:
		require.True(t, res.OK(), "%v", res.Error)
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not complete after the modification")
	}
	assert.Equal(t, "docs/app.go", (<-f.written).Path)
}

// Opened without the token (a bookmark, a new tab, a link without its
// fragment), the page says how to open it and shows nothing: no approval,
// no CSRF token. A wrong token, or one from before the program restarted,
// is forgotten, and the page says so.
func TestBrowserWithoutTheTokenGetsNothing(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"docs/secret-plans.md","content":"x"}`)
	id := f.waitPending(t, 1)[0].ID
	ctx := browser(t)
	// Each link loads the page anew (a query, not only a fragment, differs).
	for link, says := range map[string]string{
		"/?from=bookmark":                      "#token=",
		"/?from=old#token=wrong-token-0123456": "did not take the token",
	} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(f.srv.URL+link), chromedp.WaitVisible(chromedp.CSS(`#signin`))), link)
		assert.Contains(t, text(t, ctx, `#signin`), says, link)
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText + "|" + csrf + "|" + document.querySelectorAll('.card').length + "|" + document.getElementById("main").hidden`))
		require.NoError(t, err)
		assert.NotContains(t, shown, "secret-plans", link)
		assert.True(t, strings.HasSuffix(shown, "||0|true"), "%s: no CSRF token, no card, nothing shown: %q", link, shown)
		kept, err := chromedp.Run(ctx, chromedp.Evaluate[int](`sessionStorage.length`))
		require.NoError(t, err)
		assert.Zero(t, kept, "%s: a token the dashboard refused is not kept", link)
	}
	require.NoError(t, f.queue.Resolve(id, approval.Denied("test", "done")))
	<-done
}

// The link's token stays in the tab: a reload shows the dashboard again
// without it in the address bar. Over plain HTTP to a network name the
// page does not send it (it would cross the network in the clear), and
// says to serve the dashboard over HTTPS.
func TestBrowserKeepsTheTokenInTheTabAndOffPlainHTTP(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
	id := f.waitPending(t, 1)[0].ID
	var sent atomic.Int64 // requests to the network name that carried the token
	dash := f.srv.Config.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "dash.example") && strings.Contains(r.Header.Get("Authorization"), token) {
			sent.Add(1)
		}
		dash.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the browser (its event stream) is gone
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)

	ctx := browser(t, chromedp.Flag("host-resolver-rules", "MAP dash.example 127.0.0.1"))
	f.srv = srv
	f.open(t, ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`.card button.approve`))))
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/", href, "the token is not in the address bar")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("http://dash.example:"+u.Port()+"/#token="+url.QueryEscape(token)),
		chromedp.WaitVisible(chromedp.CSS(`#signin`))))
	assert.Contains(t, text(t, ctx, `#signin`), "HTTPS")
	assert.Zero(t, sent.Load(), "the token went over plain HTTP to a network name")
	require.NoError(t, f.queue.Resolve(id, approval.Denied("test", "done")))
	<-done
}

// What a model wrote is shown as text: markup does not become elements,
// and terminal escapes and carriage returns are shown, not obeyed.
func TestBrowserRendersHostileArgumentsAsText(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	done := f.startCall(t, `{"path":"<img src=x onerror=\"document.title='pwned'\">.md","content":"ok\u001b[2K\rSubject: harmless\u001b[8m hidden\u202eexe.txt"}`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.card pre.args`))))
	args := text(t, ctx, `.card pre.args`)
	imgs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('img').length`))
	require.NoError(t, err)
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	assert.Contains(t, args, `<img src=x onerror=`)
	assert.Zero(t, imgs)
	assert.NotEqual(t, "pwned", title)
	assert.Contains(t, args, `\u001b[2K\rSubject: harmless\u001b[8m hidden\u202eexe.txt`, "escapes are shown as they are sent")
	assert.False(t, strings.ContainsAny(args, "\x1b\r\u202e"), "no raw control or bidi character reaches the page")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`.card input.deny-reason`), "no"),
		chromedp.WaitEnabled(chromedp.CSS(`.card button.deny`)), chromedp.Click(chromedp.CSS(`.card button.deny`)),
	))
	res := <-done
	assert.ErrorIs(t, res.Error, tool.ErrApprovalDenied)
}

// Call ids come from models and repeat across conversations: the live view
// kept its calls by id alone, so acme's alice's "call_1" and globex's
// alice's "call_1" were one row, showing whichever event came last, with
// nobody named. Each is a row of its own, saying whom it acts for, and the
// history says so too.
func TestBrowserTellsApartOnePrincipalsCallFromAnothersOfTheSameID(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	for _, p := range []tool.Principal{{ID: "alice", Tenant: "acme"}, {ID: "alice", Tenant: "globex"}} {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "call_1", Name: "echo", Args: []byte(`{"text":"hello"}`), Agent: "coder", Principal: p})
		require.True(t, res.OK())
	}
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('#live tr.call').length === 2`))
	require.NoError(t, err, "two calls of one id by two principals are two rows")
	// The principal and its tenant in columns of their own: an id "alice
	// of acme" of no tenant does not read as alice of acme.
	rows := `[...document.querySelectorAll(SEL)].map(tr => tr.querySelector('td.who').textContent + '|' + tr.querySelector('td.tenant').textContent)`
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`JSON.stringify(`+strings.ReplaceAll(rows, "SEL", "'#live tr.call'")+`.sort()) === `+
		`JSON.stringify(["alice|acme", "alice|globex"])`))
	require.NoError(t, err, "each row says whom the call acts for")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`JSON.stringify(`+strings.ReplaceAll(rows, "SEL", "'#history tbody tr'")+`) === `+
		`JSON.stringify(["alice|globex", "alice|acme"])`))
	require.NoError(t, err, "the history says whom each call acted for, newest first")
}
