package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A dashboard mounted under a prefix redirects its ?token= link to the
// prefix's page (the fragment form), and clears the cookie earlier
// versions set at the path it set it for: the prefix. With Path "/" the
// clearing cookie would be another cookie, and the old one would stay.
func TestTheLinkAndTheOldCookieUnderAMountPrefix(t *testing.T) {
	ex := executor.MustNew(registry.New())
	h, err := dashboard.New(ex, dashboard.WithToken(token))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/ops/dash/", http.StripPrefix("/ops/dash", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/ops/dash/?token="+url.QueryEscape(token), nil)
	require.NoError(t, err)
	req.Header.Set("Cookie", dashboard.CookieName+"="+token)
	res, err := client().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == dashboard.CookieName {
			cookie = c
		}
	}
	require.NotNil(t, cookie, "the old cookie is cleared")
	assert.Equal(t, "/ops/dash/", cookie.Path, "at the path it was set for")
	assert.Less(t, cookie.MaxAge, 0)
	loc, err := res.Location()
	require.NoError(t, err)
	assert.Equal(t, "/ops/dash/", loc.Path)
	assert.Equal(t, "token="+url.QueryEscape(token), loc.Fragment)
}

// DeployArgs has a field the tool declares secret: the page shows it as
// [REDACTED].
type DeployArgs struct {
	Target string `json:"target"`
	Pin    string `json:"pin" toolbelt:"secret"`
}

// The editor starts from the arguments as shown, secrets masked. A person
// who edits another field and submits would run the call with the literal
// "[REDACTED]" in place of the secret; the dashboard refuses that and says
// how to proceed.
func TestModifyThatKeepsAMaskedSecretIsRefused(t *testing.T) {
	queue := approval.NewQueue()
	ran := make(chan DeployArgs, 1)
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(_ context.Context, in DeployArgs) (string, error) {
		ran <- in
		return "ok", nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(queue)
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	h, err := dashboard.New(ex, dashboard.WithToken(token), dashboard.WithQueue(queue))
	require.NoError(t, err)
	f := &fixture{ex: ex, queue: queue, srv: httptest.NewServer(h)}
	defer f.srv.Close()

	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c-secret", Name: "deploy",
			Args: json.RawMessage(`{"target":"staging","pin":"9931"}`), Session: "s"})
		done <- res
	}()
	a := f.waitPending(t, 1)[0]
	require.Contains(t, a.Args, `"[REDACTED]"`)
	require.NotContains(t, a.Args, "9931")

	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	code, body := f.post(t, "/api/approvals/"+a.ID, `{"action":"modify","args":{"target":"prod","pin":"[REDACTED]"}}`, hdr)
	assert.Equal(t, http.StatusUnprocessableEntity, code, "%v", body)
	assert.Contains(t, body["error"], "pin")
	assert.Len(t, f.waitPending(t, 1), 1, "nothing was decided")

	code, body = f.post(t, "/api/approvals/"+a.ID, `{"action":"modify","args":{"target":"prod","pin":"1234"}}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", body)
	require.True(t, (<-done).OK())
	assert.Equal(t, DeployArgs{Target: "prod", Pin: "1234"}, <-ran)
}

// Invisible characters the first version let through: Unicode tag
// characters (U+E0000..E007F, "ASCII smuggling") and variation selectors
// draw nothing, so a path shown as "notes.md" could be another file; and the
// editor got the arguments raw, so a bidi override reordered what a person
// edits. Both are shown escaped now, and the editor's text still parses to
// exactly the arguments that were asked for.
func TestBrowserShowsInvisibleCharactersEscaped(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	path := "notes.md\U000E0072\U000E006D\uFE0F"
	content := "abc\u202Edef\u2066x"
	args, err := json.Marshal(WriteArgs{Path: path, Content: content})
	require.NoError(t, err)
	done := f.startCall(t, string(args))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.card pre.args`))))
	shown := text(t, ctx, `.card pre.args`)
	assert.Contains(t, shown, `notes.md\udb40\udc72\udb40\udc6d\ufe0f`, "tag characters and variation selectors are shown")
	assert.False(t, strings.ContainsAny(shown, "\U000E0072\U000E006D\uFE0F\u202E\u2066"), "nothing invisible reaches the page: %q", shown)

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.card button.modify`))))
	edit, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.card textarea.editor').value`))
	require.NoError(t, err)
	assert.False(t, strings.ContainsAny(edit, "\U000E0072\U000E006D\uFE0F\u202E\u2066"), "nor the editor: %q", edit)

	// Submitting the editor as it is runs the call with the very arguments
	// the model sent.
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitEnabled(chromedp.CSS(`.card button.submit-modify`)), chromedp.Click(chromedp.CSS(`.card button.submit-modify`))))
	select {
	case res := <-done:
		require.True(t, res.OK(), "%v", res.Error)
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not complete after the modification")
	}
	assert.Equal(t, WriteArgs{Path: path, Content: content}, <-f.written)
}

// Twenty people click at once: one decision is made, the others are told
// it is no longer pending, and the call runs once.
func TestConcurrentDecisionsDecideOnce(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"docs/race.md","content":"x"}`)
	a := f.waitPending(t, 1)[0]
	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	codes := make(chan int, 20)
	for i := range 20 {
		go func() {
			action := `{"action":"approve"}`
			if i%2 == 1 {
				action = `{"action":"deny","message":"no"}`
			}
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/api/approvals/"+a.ID, strings.NewReader(action))
			req.Header = hdr.Clone()
			res, err := client().Do(req)
			if err != nil {
				codes <- 0
				return
			}
			res.Body.Close()
			codes <- res.StatusCode
		}()
	}
	ok := 0
	for range 20 {
		switch c := <-codes; c {
		case http.StatusOK:
			ok++
		case http.StatusNotFound, http.StatusConflict:
		default:
			t.Errorf("status %d", c)
		}
	}
	assert.Equal(t, 1, ok, "one decision")
	<-done
	assert.LessOrEqual(t, len(f.written), 1, "the call ran at most once")
}

// Every open page is one subscriber the executor serves on each event:
// streams beyond the bound are refused with 503 and a Retry-After, and a
// closed stream frees its place.
func TestEventStreamsAreBounded(t *testing.T) {
	f := newFixture(t, dashboard.WithMaxStreams(2))
	open := func() *http.Response {
		req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/events", nil)
		require.NoError(t, err)
		req.Header = bearer()
		res, err := client().Do(req)
		require.NoError(t, err)
		return res
	}
	a, b := open(), open()
	require.Equal(t, http.StatusOK, a.StatusCode)
	require.Equal(t, http.StatusOK, b.StatusCode)
	c := open()
	c.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, c.StatusCode)
	assert.NotEmpty(t, c.Header.Get("Retry-After"))
	a.Body.Close()
	require.Eventually(t, func() bool {
		d := open()
		d.Body.Close()
		return d.StatusCode == http.StatusOK
	}, 10*time.Second, 10*time.Millisecond, "a closed stream frees its place")
	b.Body.Close()
}

// Characters that draw nothing and were not in the page's list: format
// characters (Egyptian hieroglyph format controls U+13430.., shorthand
// format controls U+1BCA0.., musical beams U+1D173..), the reserved
// default-ignorable code points a browser also draws as nothing (U+2065,
// U+FFF0.., U+E0080..), and spaces other than U+0020, which look like
// the space that separates a shell's words and are not one. A path shown
// as "notes.md" was another name.
func TestBrowserShowsEveryInvisibleCharacterEscaped(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	hidden := "\U00013430\U0001BCA0\U0001D173\u2065\uFFF0\U000E0080\U000E0FFF\u00A0\u2007\u3000"
	path := "notes.md" + hidden
	args, err := json.Marshal(WriteArgs{Path: path, Content: "x"})
	require.NoError(t, err)
	done := f.startCall(t, string(args))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.card pre.args`))))
	shown := text(t, ctx, `.card pre.args`)
	for _, r := range hidden {
		assert.NotContains(t, shown, string(r), "U+%04X is shown escaped", r)
	}
	assert.Contains(t, shown, `notes.md\ud80d\udc30\ud82f\udca0\ud834\udd73\u2065\ufff0\udb40\udc80\udb43\udfff\u00a0\u2007\u3000`)

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.card button.modify`)),
		chromedp.WaitEnabled(chromedp.CSS(`.card button.submit-modify`)), chromedp.Click(chromedp.CSS(`.card button.submit-modify`))))
	select {
	case res := <-done:
		require.True(t, res.OK(), "%v", res.Error)
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not complete after the modification")
	}
	assert.Equal(t, WriteArgs{Path: path, Content: "x"}, <-f.written, "the editor's escapes parse back to the model's arguments")
}
