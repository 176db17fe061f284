package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "test-token-0123456789abcdef"

// WriteArgs are the arguments of the write_file tool the tests approve.
type WriteArgs struct {
	Path    string `json:"path" jsonschema:"minLength=1"`
	Content string `json:"content"`
	Mode    int    `json:"mode,omitempty" jsonschema:"minimum=0,maximum=511"`
}

type fixture struct {
	ex      *executor.Executor
	queue   *approval.Queue
	mem     *metrics.Memory
	srv     *httptest.Server
	written chan WriteArgs
}

func newFixture(t testing.TB, opts ...dashboard.Option) *fixture {
	t.Helper()
	f := &fixture{queue: approval.NewQueue(), mem: metrics.NewMemory(), written: make(chan WriteArgs, 16)}
	reg := registry.New()
	reg.MustRegister(
		tool.Func("write_file", "Write a file in the project", func(_ context.Context, in WriteArgs) (string, error) {
			f.written <- in
			return "wrote " + in.Path, nil
		}, tool.WithRisk(tool.RiskHigh)),
		tool.Func("echo", "Echo a text", func(_ context.Context, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		}, tool.WithRisk(tool.RiskLow)),
	)
	gate := approvalgate.New(f.queue)
	f.ex = executor.MustNew(reg, executor.WithExtensions(metrics.New(metrics.WithMemory(f.mem)), gate, gate.Guard()))
	h, err := dashboard.New(f.ex, append([]dashboard.Option{dashboard.WithToken(token), dashboard.WithQueue(f.queue), dashboard.WithMetrics(f.mem)}, opts...)...)
	require.NoError(t, err)
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// client returns an HTTP client that does not follow redirects.
func client() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (f *fixture) get(t *testing.T, path string, hdr http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header[k] = v
	}
	res, err := client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

func bearer() http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// csrfRE finds a CSRF token where earlier versions put it, in the page.
var csrfRE = regexp.MustCompile(`<meta name="csrf" content="([^"]+)">`)

func (f *fixture) csrf(t *testing.T) string {
	t.Helper()
	return csrfOf(t, f, bearer())
}

// csrfOf reads the CSRF token from api/session as the reviewer signed in
// with hdr.
func csrfOf(t *testing.T, f *fixture, hdr http.Header) string {
	t.Helper()
	res, body := f.get(t, "/api/session", hdr)
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	var s dashboard.Session
	require.NoError(t, json.Unmarshal([]byte(body), &s))
	require.NotEmpty(t, s.CSRF, "api/session gives the CSRF token")
	return s.CSRF
}

func (f *fixture) post(t *testing.T, path, body string, hdr http.Header) (int, map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header = hdr
	res, err := client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]string
	b, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = map[string]string{"body": string(b)}
	}
	return res.StatusCode, out
}

func TestNewRefusesAnOpenDashboard(t *testing.T) {
	ex := executor.MustNew(registry.New())
	_, err := dashboard.New(ex)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dashboard.WithToken")
	_, err = dashboard.New(ex, dashboard.WithToken("short"))
	assert.ErrorContains(t, err, "at least 16")
	_, err = dashboard.New(nil, dashboard.WithToken(token))
	assert.ErrorContains(t, err, "executor is nil")
	_, err = dashboard.New(ex, dashboard.WithToken(token), dashboard.WithAllowedOrigins("ops.example.com"))
	assert.ErrorContains(t, err, "scheme://host")
}

// Every path of the API answers 401 without the token. The page, its
// script and its style sheet are served to anyone (a browser cannot send
// the token when it opens a page): they are the same bytes with and
// without the token, and hold nothing of this dashboard: no CSRF token,
// no approval, not even whether it has an approvals panel.
func TestEveryRequestNeedsTheToken(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"docs/secret-plans.md","content":"x"}`)
	id := f.waitPending(t, 1)[0].ID
	csrf := f.csrf(t)
	for _, path := range []string{"/api/session", "/api/approvals", "/api/history", "/api/stats", "/api/events", "/api/approvals/" + id} {
		res, body := f.get(t, path, nil)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
		assert.NotContains(t, body, "<html", path)
		assert.NotContains(t, body, csrf, path)
		assert.NotContains(t, body, "secret-plans", path)
		assert.Contains(t, body, "#token=", "%s: the 401 says how to open the dashboard", path)
		res, _ = f.get(t, path, http.Header{"Authorization": {"Bearer wrong-token-0123456789"}})
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
		res, _ = f.get(t, path, http.Header{"Cookie": {dashboard.CookieName + "=" + token}})
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s: the token in the old cookie is not taken", path)
	}
	noQueue, err := dashboard.New(f.ex, dashboard.WithToken(token))
	require.NoError(t, err)
	other := httptest.NewServer(noQueue)
	defer other.Close()
	for _, path := range []string{"/", "/static/app.js", "/static/app.css"} {
		res, anon := f.get(t, path, nil)
		assert.Equal(t, http.StatusOK, res.StatusCode, path)
		_, signed := f.get(t, path, bearer())
		assert.Equal(t, anon, signed, "%s: the same bytes with the token and without", path)
		res, err := client().Get(other.URL + path)
		require.NoError(t, err)
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, anon, string(b), "%s: the same bytes from a dashboard without approvals", path)
		assert.NotContains(t, anon, csrf, path)
		assert.NotContains(t, anon, "secret-plans", path)
	}
	_, page := f.get(t, "/", nil)
	assert.Contains(t, page, "Toolbelt dashboard")
	assert.Contains(t, page, "A token is required", "the page says what to do when it has none")
	require.NoError(t, f.queue.Resolve(id, approval.Denied("test", "done")))
	<-done
}

// The link in the form earlier versions printed, ?token=, is redirected
// to the fragment form: the page takes the token from there, and no cookie
// is set.
func TestTokenInURLGoesToTheFragment(t *testing.T) {
	f := newFixture(t)
	res, _ := f.get(t, "/?token="+url.QueryEscape(token)+"&x=1", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	loc, err := res.Location()
	require.NoError(t, err)
	assert.Equal(t, "/", loc.Path)
	assert.Equal(t, "x=1", loc.RawQuery, "the token leaves the query")
	frag, err := url.ParseQuery(loc.Fragment)
	require.NoError(t, err)
	assert.Equal(t, token, frag.Get("token"), "the token goes to the fragment, which the browser never sends")
	assert.Empty(t, res.Cookies(), "no cookie: it would go to every port of the host")

	res, _ = f.get(t, "/?token=wrong-token-0123456789", nil)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Empty(t, res.Header.Get("Location"))
}

func TestSecurityHeaders(t *testing.T) {
	f := newFixture(t)
	for _, hdr := range []http.Header{nil, bearer()} {
		res, _ := f.get(t, "/", hdr)
		csp := res.Header.Get("Content-Security-Policy")
		assert.Contains(t, csp, "default-src 'none'")
		assert.Contains(t, csp, "script-src 'self'")
		assert.NotContains(t, csp, "unsafe-inline")
		assert.Contains(t, csp, "frame-ancestors 'none'")
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	f := newFixture(t)
	csrf := f.csrf(t)
	hdr := func(kv ...string) http.Header {
		h := bearer()
		h.Set("Content-Type", "application/json")
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	code, body := f.post(t, "/api/approvals/apr-1", `{"action":"approve"}`, hdr())
	assert.Equal(t, http.StatusForbidden, code, "no CSRF token")
	assert.Contains(t, body["body"], dashboard.CSRFHeader)
	code, _ = f.post(t, "/api/approvals/apr-1", `{"action":"approve"}`, hdr(dashboard.CSRFHeader, "forged"))
	assert.Equal(t, http.StatusForbidden, code, "wrong CSRF token")
	code, body = f.post(t, "/api/approvals/apr-1", `{"action":"approve"}`, hdr(dashboard.CSRFHeader, csrf, "Origin", "https://evil.example"))
	assert.Equal(t, http.StatusForbidden, code, "foreign origin")
	assert.Contains(t, body["body"], "cross-site")
	code, _ = f.post(t, "/api/approvals/apr-1", `{"action":"approve"}`, hdr(dashboard.CSRFHeader, csrf, "Sec-Fetch-Site", "cross-site"))
	assert.Equal(t, http.StatusForbidden, code)
	// Same origin, right token: it reaches the handler (and there is no such approval).
	code, body = f.post(t, "/api/approvals/apr-1", `{"action":"approve"}`, hdr(dashboard.CSRFHeader, csrf, "Origin", f.srv.URL))
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, body["error"], "no longer pending")
}

// waitPending waits until n approvals are pending and returns them.
func (f *fixture) waitPending(t *testing.T, n int) []dashboard.Approval {
	t.Helper()
	var list []dashboard.Approval
	require.Eventually(t, func() bool {
		_, body := f.get(t, "/api/approvals", bearer())
		list = nil
		_ = json.Unmarshal([]byte(body), &list)
		return len(list) == n
	}, 10*time.Second, 5*time.Millisecond)
	return list
}

var callSeq atomic.Int64

func (f *fixture) startCall(t *testing.T, args string) <-chan *tool.Result {
	done := make(chan *tool.Result, 1)
	id := fmt.Sprintf("call-%d", callSeq.Add(1))
	go func() {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: id, Name: "write_file", Args: json.RawMessage(args),
			Agent: "coder", Session: "s1", Principal: tool.Principal{ID: "alice", Tenant: "acme"}})
		done <- res
	}()
	return done
}

func TestApproveOverHTTPRecordsWhoDecided(t *testing.T) {
	f := newFixture(t, dashboard.WithIdentity(func(*http.Request) string { return "ops:carol" }))
	done := f.startCall(t, `{"path":"docs/notes.md","content":"hi"}`)
	list := f.waitPending(t, 1)
	a := list[0]
	assert.Equal(t, "write_file", a.Tool)
	assert.Equal(t, "Write a file in the project", a.Description)
	assert.Equal(t, "dangerous", a.Level)
	assert.Contains(t, a.Args, `"path": "docs/notes.md"`)
	assert.Equal(t, "coder", a.Agent)
	assert.Equal(t, "alice", a.Principal)
	assert.Equal(t, "acme", a.Tenant, "alice of acme is not alice of globex: the page says which")

	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	code, body := f.post(t, "/api/approvals/"+a.ID, `{"action":"approve"}`, hdr)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "ops:carol", body["decided_by"])
	res := <-done
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "ops:carol", res.Metadata["approval"].(map[string]any)["decided_by"])
	assert.Equal(t, "docs/notes.md", (<-f.written).Path)

	code, body = f.post(t, "/api/approvals/"+a.ID, `{"action":"approve"}`, hdr)
	assert.Equal(t, http.StatusNotFound, code, "a decision is made once: %v", body)
}

func TestModifiedArgumentsAreValidated(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"src/main.go","content":"x"}`)
	a := f.waitPending(t, 1)[0]
	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	code, body := f.post(t, "/api/approvals/"+a.ID, `{"action":"modify","args":{"path":"","mode":1000}}`, hdr)
	assert.Equal(t, http.StatusUnprocessableEntity, code)
	assert.Contains(t, body["error"], "path")
	assert.Contains(t, body["error"], "mode: must be <= 511")
	assert.Len(t, f.waitPending(t, 1), 1, "a bad modification decides nothing")

	code, body = f.post(t, "/api/approvals/"+a.ID, `{"action":"modify","args":{"path":"docs/main.go","content":"x"}}`, hdr)
	require.Equal(t, http.StatusOK, code, body)
	res := <-done
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "docs/main.go", (<-f.written).Path, "the call ran with the modified arguments")
}

func TestDenyTellsTheModelWhy(t *testing.T) {
	f := newFixture(t)
	done := f.startCall(t, `{"path":"/etc/passwd","content":"x"}`)
	a := f.waitPending(t, 1)[0]
	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	code, _ := f.post(t, "/api/approvals/"+a.ID, `{"action":"deny","message":"not outside the project"}`, hdr)
	require.Equal(t, http.StatusOK, code)
	res := <-done
	require.ErrorIs(t, res.Error, tool.ErrApprovalDenied)
	assert.Contains(t, res.Error.Message, "not outside the project")
}

// The history filters by principal: principal with tenant selects that
// principal of that tenant only, tenant alone every principal of it.
func TestHistoryFiltersByPrincipal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, p := range []tool.Principal{{ID: "alice", Tenant: "acme"}, {ID: "alice", Tenant: "globex"}, {ID: "bob", Tenant: "acme"}} {
		_, _ = f.ex.Execute(ctx, tool.Call{ID: "p", Name: "echo", Args: json.RawMessage(`{"text":"hi"}`), Principal: p})
	}
	who := func(query string) []string {
		t.Helper()
		var rows []dashboard.Call
		_, body := f.get(t, "/api/history?"+query, bearer())
		require.NoError(t, json.Unmarshal([]byte(body), &rows))
		var out []string
		for _, r := range rows {
			out = append(out, r.Tenant+"/"+r.Principal)
		}
		return out
	}
	assert.Equal(t, []string{"acme/alice"}, who("principal=alice&tenant=acme"), "a principal in its tenant only")
	assert.Empty(t, who("principal=alice"), "alice of no tenant: none")
	assert.Equal(t, []string{"acme/bob", "acme/alice"}, who("tenant=acme"), "every principal of a tenant, newest first")
}

func TestHistoryFiltersAndStats(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i := range 3 {
		_, _ = f.ex.Execute(ctx, tool.Call{ID: "e" + string(rune('0'+i)), Name: "echo", Args: json.RawMessage(`{"text":"hi"}`), Agent: "a1"})
	}
	_, _ = f.ex.Execute(ctx, tool.Call{ID: "bad", Name: "echo", Args: json.RawMessage(`{"text":3}`), Agent: "a2"})
	var rows []dashboard.Call
	_, body := f.get(t, "/api/history?tool=echo&status=succeeded", bearer())
	require.NoError(t, json.Unmarshal([]byte(body), &rows))
	assert.Len(t, rows, 3)
	_, body = f.get(t, "/api/history?agent=a2", bearer())
	require.NoError(t, json.Unmarshal([]byte(body), &rows))
	require.Len(t, rows, 1)
	assert.Equal(t, "invalid_arguments", rows[0].Code)
	res, body := f.get(t, "/api/history?since=yesterday", bearer())
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, body, "since")

	var stats []dashboard.ToolStats
	_, body = f.get(t, "/api/stats", bearer())
	require.NoError(t, json.Unmarshal([]byte(body), &stats))
	require.Len(t, stats, 1)
	assert.Equal(t, "echo", stats[0].Tool)
	assert.Equal(t, uint64(4), stats[0].Calls)
	assert.Equal(t, uint64(1), stats[0].Failed)
	assert.InDelta(t, 0.25, stats[0].ErrorRate, 1e-9)
	assert.Equal(t, "metrics", stats[0].Source)
}

// readEvents reads SSE "call" events from r until n have arrived.
func readEvents(t *testing.T, r *bufio.Reader, n int) []dashboard.Event {
	t.Helper()
	var out []dashboard.Event
	for len(out) < n {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			var ev dashboard.Event
			require.NoError(t, json.Unmarshal([]byte(data), &ev))
			out = append(out, ev)
		}
	}
	return out
}

func TestEventsStream(t *testing.T) {
	f := newFixture(t)
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/events", nil)
	require.NoError(t, err)
	req.Header = bearer()
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	r := bufio.NewReader(res.Body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "retry: 2000\n", line, "the stream is open before any call")

	_, _ = f.ex.Execute(context.Background(), tool.Call{ID: "e1", Name: "echo", Args: json.RawMessage(`{"text":"hello"}`), Agent: "a1"})
	evs := readEvents(t, r, 3)
	kinds := []string{evs[0].Kind, evs[1].Kind, evs[2].Kind}
	assert.Equal(t, []string{"submitted", "started", "completed"}, kinds)
	assert.Equal(t, "e1", evs[2].CallID)
	assert.Equal(t, "succeeded", evs[2].Status)
	assert.Equal(t, "a1", evs[2].Agent)
}

// blockedWriter is a ResponseWriter whose writes wait until released: a
// browser that stopped reading.
type blockedWriter struct {
	hdr     http.Header
	release chan struct{}
	mu      sync.Mutex
	buf     strings.Builder
	wrote   chan struct{}
	once    sync.Once
}

func (w *blockedWriter) Header() http.Header { return w.hdr }
func (w *blockedWriter) WriteHeader(int)     {}
func (w *blockedWriter) Flush()              {}
func (w *blockedWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.wrote) })
	if strings.Contains(string(p), "event: call") {
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// A browser that stops reading never blocks a call, and when it reads again
// it is told how many events it missed.
func TestSlowBrowserNeverBlocksTheExecutorAndIsToldWhatItMissed(t *testing.T) {
	f := newFixture(t, dashboard.WithEventBuffer(4))
	h, err := dashboard.New(f.ex, dashboard.WithToken(token), dashboard.WithEventBuffer(4))
	require.NoError(t, err)
	w := &blockedWriter{hdr: http.Header{}, release: make(chan struct{}), wrote: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/events", nil)
	req.Header = bearer()
	served := make(chan struct{})
	go func() { h.ServeHTTP(w, req); close(served) }()
	<-w.wrote // subscribed and connected

	for i := range 200 {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "n" + strings.Repeat("x", i%7), Name: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		require.True(t, res.OK())
	}
	close(w.release)
	// The next event delivered after the loss carries the count: calls go
	// on until one gets through.
	require.Eventually(t, func() bool {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "after", Name: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		require.True(t, res.OK())
		w.mu.Lock()
		defer w.mu.Unlock()
		return regexp.MustCompile(`"missed":[1-9]`).MatchString(w.buf.String())
	}, 10*time.Second, 5*time.Millisecond, "the page is told it missed events")
	cancel()
	<-served
}
