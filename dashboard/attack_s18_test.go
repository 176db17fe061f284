package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// streamTool emits each of its chunks on stdout, waiting on hold (when
// given) after the first len(chunks)-1.
func streamTool(chunks []string, reached chan<- struct{}, hold <-chan struct{}) tool.Tool {
	return tool.Func("build", "Build the project", func(ctx context.Context, _ struct{}) (string, error) {
		for i, c := range chunks {
			if hold != nil && i == len(chunks)-1 {
				reached <- struct{}{}
				<-hold
			}
			tool.EmitOutput(ctx, "stdout", []byte(c))
		}
		return "built", nil
	})
}

// openEvents opens the page's event stream as the token's holder.
func openEvents(t *testing.T, srv *httptest.Server) *bufio.Reader {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/events", nil)
	require.NoError(t, err)
	req.Header = bearer()
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	require.Equal(t, http.StatusOK, res.StatusCode)
	r := bufio.NewReader(res.Body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "retry: 2000\n", line)
	return r
}

// outputUntil reads events until one of kind, and returns the output the
// page was sent meanwhile.
func outputUntil(t *testing.T, r *bufio.Reader, kind string) string {
	t.Helper()
	var out strings.Builder
	for {
		ev := readEvents(t, r, 1)[0]
		if ev.Kind == "output" {
			out.WriteString(ev.Data)
		}
		if ev.Kind == kind {
			return out.String()
		}
	}
}

// A tool's streamed output went to every open page as it came: a command
// that printed a token, a password or a private key showed it to every
// reviewer, while the call's recorded error text is masked by the one
// rule (redact.String). Output is now masked by that rule too, and a
// secret a chunk boundary splits is masked whole: the page is sent a
// call's output a little behind, where the text after a cut shows that
// no secret straddles it, and the rest when the call ends.
func TestAttackS18LiveOutputIsMasked(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98LwRyJdGhmKqVhJ2vbnQ5pK3XyZ\nqL0aW1sT4uV6xY8zB2cD4eF6gH8iJ0kL2mN4oP6qR8sT0u\n-----END RSA PRIVATE KEY-----\n"
	filler := strings.Repeat("compiling a package of the project, nothing secret here\n", 50) // 2.8 KiB: cuts are made mid-stream
	chunks := []string{
		filler, "step 1: export GITHUB_TOKEN=ghp_0123456789abcdef", "ghijABCDEFGHIJ012345\nbuild ok\n",
		filler, "db password=hun", "ter2-very-secret\n",
		filler, pem[:60], pem[60:],
		filler, "config:\n  password: |\n", "    yaml-s3cret-line\n",
		filler, "aws AKIAIOSFODNN7EXAMPLE done\n", filler,
	}
	ex := executor.MustNew(registryOf(t, streamTool(chunks, nil, nil)))
	h, err := dashboard.New(ex, dashboard.WithToken(token))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	events := openEvents(t, srv)

	_, err = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "build", Args: []byte(`{}`)})
	require.NoError(t, err)
	out := outputUntil(t, events, "completed")
	for _, secret := range []string{"ghp_0123456789abcdef", "ghijABCDEFGHIJ012345", "hun", "ter2-very-secret", "MIIEowIBAAKCAQEA", "qL0aW1sT4uV6", "yaml-s3cret-line", "AKIAIOSFODNN7EXAMPLE"} {
		assert.NotContains(t, out, secret, "the page was sent a secret the tool printed")
	}
	for _, kept := range []string{"step 1: export GITHUB_TOKEN=", "build ok\n", "db password=", "aws ", " done\n"} {
		assert.Contains(t, out, kept, "the rest of the output is kept")
	}
	assert.Contains(t, out, "[REDACTED]")
}

// Masking holds back no more than it must: output longer than what the
// masking rule needs to see around a secret reaches the page while the
// call still runs, and every byte of it arrives once, in order.
func TestLiveOutputStillStreams(t *testing.T) {
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("compiling package %03d of 200\n", i))
	}
	reached, hold := make(chan struct{}), make(chan struct{})
	chunks := append(lines, "done\n")
	ex := executor.MustNew(registryOf(t, streamTool(chunks, reached, hold)))
	h, err := dashboard.New(ex, dashboard.WithToken(token))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	events := openEvents(t, srv)

	done := make(chan error, 1)
	go func() {
		_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "build", Args: []byte(`{}`)})
		done <- err
	}()
	<-reached
	first := outputUntil(t, events, "output")
	assert.True(t, strings.HasPrefix(first, "compiling package 000 of 200\n"), "%.60q", first)
	close(hold)
	require.NoError(t, <-done)
	rest := outputUntil(t, events, "completed")
	assert.Equal(t, strings.Join(chunks, ""), first+rest)
}

// reviewerOrNone is WithTenant's function: erin works for no tenant.
func reviewerOrNone(r *http.Request) (string, bool) {
	if u, _ := r.Context().Value(userKey{}).(string); u == "erin" {
		return "", true
	}
	return tenantOfReviewer(r)
}

// gatedWriter is a page's connection that stops taking bytes at its
// second write (the first event) until gate is closed: a browser that
// reads slowly.
type gatedWriter struct {
	hdr     http.Header
	blocked chan struct{}
	gate    chan struct{}

	mu     sync.Mutex
	writes int
	buf    strings.Builder
}

func (w *gatedWriter) Header() http.Header { return w.hdr }
func (w *gatedWriter) WriteHeader(int)     {}
func (w *gatedWriter) Flush()              {}
func (w *gatedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	n := w.writes
	w.mu.Unlock()
	if n == 2 {
		close(w.blocked)
		<-w.gate
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *gatedWriter) events(t *testing.T) []dashboard.Event {
	w.mu.Lock()
	text := w.buf.String()
	w.mu.Unlock()
	return readEvents(t, bufio.NewReader(strings.NewReader(text)), strings.Count(text, "\ndata: "))
}

// Under WithTenant, the page of a person of no tenant ("") subscribed to
// every tenant's events (an empty Tenant selects them all) and skipped
// the others': a page that read slowly was told, in "missed", how many
// events of other tenants the executor dropped for it, which counts what
// they do (and their events crowded its own out of its buffer). It now
// subscribes to the events of no tenant alone.
func TestAttackS18PageOfNoTenantIsToldNoOtherTenantsMissedEvents(t *testing.T) {
	ex := executor.MustNew(registryOf(t, tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "", nil })))
	h, err := dashboard.New(ex, dashboard.WithAuth(tenantAuth), dashboard.WithTenant(reviewerOrNone), dashboard.WithEventBuffer(8))
	require.NoError(t, err)
	run := func(tenant string) {
		_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "noop", Args: []byte(`{}`), Principal: tool.Principal{ID: "p", Tenant: tenant}})
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodGet, "/api/events", nil).WithContext(ctx)
	req.Header.Set("X-Ops-User", "erin")
	w := &gatedWriter{hdr: http.Header{}, blocked: make(chan struct{}), gate: make(chan struct{})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.ServeHTTP(w, req)
	}()
	defer func() { cancel(); <-served }()
	require.Eventually(t, func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.writes > 0 }, 10*time.Second, time.Millisecond)

	run("") // the page takes its first event and stops reading; the two others wait in its buffer
	<-w.blocked
	for range 5 {
		run("acme") // 15 events: 6 more fit in the buffer of 8
	}
	close(w.gate)
	require.Eventually(t, func() bool { return len(w.events(t)) == 3 }, 10*time.Second, time.Millisecond)
	run("")
	require.Eventually(t, func() bool { return len(w.events(t)) == 6 }, 10*time.Second, time.Millisecond)
	var missed uint64
	for _, ev := range w.events(t) {
		assert.Empty(t, ev.Tenant)
		missed += ev.Missed
	}
	assert.Zero(t, missed, "erin's page was told of acme's events it missed")
}

// Under WithTenant, a page showed its tenant's events and history rows
// with the executor's sequence numbers, which count every tenant's: the
// gap between two of acme's calls told carol how many events and calls
// globex had meanwhile. A page limited to one tenant numbers its events
// itself and shows no history sequence number.
func TestAttackS18ScopedPageCountsNoOtherTenantsCalls(t *testing.T) {
	ex := executor.MustNew(registryOf(t, tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "", nil })),
		executor.WithHistory(100))
	h, err := dashboard.New(ex, dashboard.WithAuth(tenantAuth), dashboard.WithTenant(tenantOfReviewer))
	require.NoError(t, err)
	f := &fixture{ex: ex}
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/events", nil)
	require.NoError(t, err)
	req.Header.Set("X-Ops-User", "carol")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	events := bufio.NewReader(res.Body)
	_, err = events.ReadString('\n')
	require.NoError(t, err)

	run := func(tenant string) {
		_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "noop", Args: []byte(`{}`), Principal: tool.Principal{ID: "p", Tenant: tenant}})
		require.NoError(t, err)
	}
	run("acme")
	for range 5 {
		run("globex")
	}
	run("acme")
	evs := readEvents(t, events, 6) // acme's two calls: submitted, started, completed each
	for i := 1; i < len(evs); i++ {
		assert.Equal(t, evs[i-1].Seq+1, evs[i].Seq, "carol's page counted globex's events between acme's")
	}
	_, body := f.get(t, "/api/history", http.Header{"X-Ops-User": {"carol"}})
	var calls []dashboard.Call
	require.NoError(t, json.Unmarshal([]byte(body), &calls))
	require.Len(t, calls, 2)
	for _, c := range calls {
		assert.Zero(t, c.Seq, "carol's history counts every tenant's calls (%d, %d)", calls[0].Seq, calls[1].Seq)
	}
}

func registryOf(t *testing.T, tools ...tool.Tool) *registry.Registry {
	t.Helper()
	reg := registry.New()
	for _, tl := range tools {
		require.NoError(t, reg.Register(tl))
	}
	return reg
}
