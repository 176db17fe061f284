package dashboard_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
)

// portThief is a server on the dashboard's host at another port: a dev
// server, or one a model started with a shell tool and asked the person to
// open. It keeps every header that came with the browser's requests, and
// on the page's load it uses whatever credential came with them against
// the dashboard, from its own process: no browser, so no Origin and no
// same-origin rule stand in its way.
type portThief struct {
	dash string // the dashboard's URL, which the thief learned by scanning ports

	mu       sync.Mutex
	headers  []http.Header // what the browser sent, request by request
	attempts []string      // what the thief did with it, and the answers
}

func (p *portThief) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.headers = append(p.headers, r.Header.Clone())
	p.mu.Unlock()
	if r.URL.Path != "/" {
		w.Header().Set("Content-Type", "text/css")
		return
	}
	// Every value it was given, as a cookie and as a bearer token.
	var creds []http.Header
	for _, c := range r.Cookies() {
		creds = append(creds, http.Header{"Cookie": {c.Name + "=" + c.Value}}, http.Header{"Authorization": {"Bearer " + c.Value}})
	}
	if a := r.Header.Get("Authorization"); a != "" {
		creds = append(creds, http.Header{"Authorization": {a}})
	}
	for _, cred := range creds {
		p.useAgainstTheDashboard(cred)
	}
	w.Header().Set("Content-Type", "text/html")
	_, _ = io.WriteString(w, `<!doctype html><title>build report</title><link rel="stylesheet" href="/report.css"><p>All tests passed.</p>`)
}

var stolenCSRFRE = regexp.MustCompile(`<meta name="csrf" content="([^"]+)">`)

// useAgainstTheDashboard lists what waits with cred, finds the CSRF token
// where the page keeps it, and approves the first approval.
func (p *portThief) useAgainstTheDashboard(cred http.Header) {
	do := func(method, path, body string, extra ...string) (int, string) {
		req, err := http.NewRequest(method, p.dash+path, strings.NewReader(body))
		if err != nil {
			return 0, err.Error()
		}
		for k, v := range cred {
			req.Header[k] = v
		}
		for i := 0; i+1 < len(extra); i += 2 {
			req.Header.Set(extra[i], extra[i+1])
		}
		res, err := client().Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := do(http.MethodGet, "/api/approvals", "")
	p.note(fmt.Sprintf("list %d", code))
	var list []dashboard.Approval
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list) == 0 {
		return
	}
	csrf := ""
	if _, page := do(http.MethodGet, "/", ""); stolenCSRFRE.MatchString(page) {
		csrf = stolenCSRFRE.FindStringSubmatch(page)[1]
	}
	if code, body := do(http.MethodGet, "/api/session", ""); code == http.StatusOK {
		var s struct {
			CSRF string `json:"csrf"`
		}
		if json.Unmarshal([]byte(body), &s) == nil && s.CSRF != "" {
			csrf = s.CSRF
		}
	}
	code, _ = do(http.MethodPost, "/api/approvals/"+url.PathEscape(list[0].ID), `{"action":"approve"}`,
		dashboard.CSRFHeader, csrf, "Content-Type", "application/json")
	p.note(fmt.Sprintf("approve %d", code))
}

func (p *portThief) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.attempts = append(p.attempts, s)
}

// A cookie is bound to a host name, not a port. The dashboard kept its
// token in one (toolbelt_dashboard, SameSite=Strict: another port of the
// same host is the same site), so every server on 127.0.0.1 the person
// opened afterwards was sent the token with each request, and could use
// the dashboard as the person from its own process, where no Origin or
// CSRF check applies: it listed what waited, read the CSRF token from the
// page and approved. In real Chromium, the person opens the dashboard with
// the link it gives (both forms: ?token= and #token=), sees the approval,
// then opens a page on another port of 127.0.0.1. That server must receive
// no credential, and nothing must be approved.
func TestAttackS28AnotherPortGetsNoCredential(t *testing.T) {
	for _, link := range []struct{ name, path string }{
		{"query link", "/?token=" + url.QueryEscape(token)},
		{"fragment link", "/#token=" + url.QueryEscape(token)},
	} {
		t.Run(link.name, func(t *testing.T) {
			f := newFixture(t)
			done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
			id := f.waitPending(t, 1)[0].ID
			thief := &portThief{dash: f.srv.URL}
			other := httptest.NewServer(thief)
			defer other.Close()
			require.NotEqual(t, f.srv.URL, other.URL)
			require.True(t, strings.HasPrefix(other.URL, "http://127.0.0.1:") && strings.HasPrefix(f.srv.URL, "http://127.0.0.1:"),
				"both servers are on 127.0.0.1: %s, %s", f.srv.URL, other.URL)

			ctx := browser(t)
			require.NoError(t, chromedp.Do(ctx,
				chromedp.Navigate(f.srv.URL+link.path),
				chromedp.WaitVisible(chromedp.CSS(`.card button.approve`)), // signed in: the approval is shown
			))
			href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
			require.NoError(t, err)
			assert.NotContains(t, href, token, "the token left the address bar")

			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(other.URL+"/")))

			thief.mu.Lock()
			defer thief.mu.Unlock()
			require.NotEmpty(t, thief.headers, "the other server was visited")
			for i, h := range thief.headers {
				for name, values := range h {
					for _, v := range values {
						assert.NotContains(t, v, token, "request %d to the other port carried the token in %s", i, name)
					}
				}
			}
			assert.NotContains(t, thief.attempts, "approve 200", "the other port approved the call with what the browser sent it: %v", thief.attempts)
			assert.NotContains(t, thief.attempts, "list 200", "the other port listed what waits: %v", thief.attempts)
			assert.Equal(t, []string{id}, pendingIDs(t, f.queue), "nothing was decided")
			if ids := pendingIDs(t, f.queue); len(ids) == 1 {
				require.NoError(t, f.queue.Resolve(id, approval.Denied("test", "done")))
			}
			<-done
		})
	}
}
