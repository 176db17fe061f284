package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// holder serves "hold", a slow tool: each call blocks until the test
// releases it (one call per value sent on release, every call once release
// is closed), and "noop".
type holder struct {
	ex      *executor.Executor
	entered chan string // the principal of each call of hold that started running
	release chan struct{}
	once    sync.Once
}

func newHolder(buf int, opts ...executor.Option) *holder {
	h := &holder{entered: make(chan string, buf), release: make(chan struct{})}
	reg := registry.New()
	reg.MustRegister(
		tool.New("hold", "Blocks until released", func(ctx context.Context, call tool.Call) (*tool.Result, error) {
			h.entered <- call.Principal.ID
			select {
			case <-h.release:
				return &tool.Result{Content: []tool.Content{tool.TextContent("released")}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))),
		tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()),
	)
	// Far longer than any test here runs: no held call times out.
	h.ex = executor.MustNew(reg, append([]executor.Option{executor.WithTimeout(10 * time.Minute)}, opts...)...)
	return h
}

// refusals is an observer extension (as an audit log is) that records the
// calls refused before they ran.
type refusals struct {
	mu    sync.Mutex
	calls []tool.Call
	codes []tool.Code
}

func (r *refusals) Name() string                                  { return "refusals" }
func (r *refusals) Priority() int                                 { return 0 }
func (r *refusals) Wrap(next extension.Handler) extension.Handler { return next }
func (r *refusals) Refused(_ context.Context, call *tool.Call, _ *tool.Spec, res *tool.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, *call)
	r.codes = append(r.codes, res.Error.Code)
}

// releaseAll lets every held call, and any later one, finish.
func (h *holder) releaseAll() { h.once.Do(func() { close(h.release) }) }

// flood starts n calls of hold on cs at once and returns the channel their
// results arrive on (nil for a call that failed at the protocol level);
// cleanup releases them and waits for all n to end.
func (h *holder) flood(t *testing.T, cs *mcp.ClientSession, n int) <-chan *mcp.CallToolResult {
	t.Helper()
	results := make(chan *mcp.CallToolResult, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
			if err != nil {
				res = nil
			}
			results <- res
		})
	}
	t.Cleanup(func() { h.releaseAll(); wg.Wait() })
	return results
}

// settle waits until each of n calls started either ran (entered hold) or
// was answered, and returns how many ran and the answers.
func (h *holder) settle(t *testing.T, results <-chan *mcp.CallToolResult, n int) (ran int, answered []*mcp.CallToolResult) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for ran+len(answered) < n {
		select {
		case <-h.entered:
			ran++
		case res := <-results:
			answered = append(answered, res)
		case <-deadline:
			t.Fatalf("after 60 s, of %d calls %d run and %d were answered", n, ran, len(answered))
		}
	}
	return ran, answered
}

// requireRefusedForTheBound checks a call answered for being over the
// bound: a retryable concurrency_limit error naming the bound and the
// option.
func requireRefusedForTheBound(t *testing.T, res *mcp.CallToolResult, bound string) {
	t.Helper()
	require.NotNil(t, res, "a call over the bound gets a result, not a protocol error")
	require.True(t, res.IsError)
	text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
	assert.True(t, strings.HasPrefix(text, "concurrency_limit: "), text)
	assert.Contains(t, text, bound+" requests in progress", text)
	assert.Contains(t, text, "WithMaxCallsInProgress", text)
	assert.Contains(t, text, "(retryable)", text)
	te, ok := res.Meta[MetaError].(map[string]any)
	require.True(t, ok, "%v", res.Meta)
	assert.Equal(t, true, te["retryable"])
}

// What one client gets without a bound: the SDK dispatches every request
// of a session on a goroutine of its own as it arrives (jsonrpc2.Async in
// ServerSession.handle, go-sdk v1.8.0), over stdio, in-memory and HTTP
// alike, and queues nothing; so every call of a slow tool that one client
// starts runs at once, each holding goroutines and memory and a share of
// the executor. Measured here, with the bound lifted.
func TestOneClientRunsEveryCallItStartsWithoutABound(t *testing.T) {
	const n = 1000
	h := newHolder(n)
	s, err := New(h.ex, WithMaxCallsInProgress(-1))
	require.NoError(t, err)
	cs := sdkClient(t, serve(t, s), nil, nil)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	results := h.flood(t, cs, n)
	ran, answered := h.settle(t, results, n)
	require.Equal(t, n, ran, "every call started runs at once: %d answered", len(answered))
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d calls of one client running at once: %.1f goroutines and %d bytes of heap a call (client side included)",
		n, float64(runtime.NumGoroutine()-g0)/n, (int64(after.HeapInuse)-int64(before.HeapInuse))/n)
}

// A hostile client starts many calls of a slow tool at once, on one
// session or over many requests: without a bound each runs (above), taking
// goroutines, memory and the executor's capacity from every other client.
// One principal has at most WithMaxCallsInProgress calls in progress; a
// call over it is answered at once with a retryable error; another
// principal is still served, and a finished call frees a place.
func TestAttackCallFloodIsBoundedPerPrincipal(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []HTTPOption
	}{
		{"stateless requests", nil},
		{"one stateful session", []HTTPOption{Stateful()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const bound, n = 4, 10
			obs := &refusals{}
			h := newHolder(n+2, executor.WithExtensions(obs))
			s, err := New(h.ex, WithMaxCallsInProgress(bound))
			require.NoError(t, err)
			hs := httptest.NewServer(cookieAuth(s.HTTPHandler(tc.opts...)))
			t.Cleanup(hs.Close)
			connect := func(user string) *mcp.ClientSession {
				return sdkClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1, DisableStandaloneSSE: true,
					HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {"session=" + user}}}}}, nil, nil)
			}

			mallory := connect("mallory")
			results := h.flood(t, mallory, n)
			ran, answered := h.settle(t, results, n)
			require.Equal(t, bound, ran, "mallory runs at most %d calls at once", bound)
			require.Len(t, answered, n-bound)
			for _, res := range answered {
				requireRefusedForTheBound(t, res, "4")
			}
			obs.mu.Lock()
			require.Len(t, obs.calls, n-bound, "each refusal reaches the executor's observers (the audit trail)")
			for i, c := range obs.calls {
				assert.Equal(t, "mallory", c.Principal.ID)
				assert.Equal(t, "hold", c.Name)
				assert.Equal(t, tool.CodeConcurrencyLimit, obs.codes[i])
			}
			obs.mu.Unlock()

			alice := connect("alice")
			res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.False(t, res.IsError, "another principal is served while mallory is at her bound: %v", res.Content)

			h.release <- struct{}{}
			select {
			case res := <-results:
				require.NotNil(t, res)
				require.False(t, res.IsError, "%v", res.Content)
			case <-time.After(60 * time.Second):
				t.Fatal("the released call never answered")
			}
			again := h.flood(t, mallory, 1)
			select {
			case who := <-h.entered:
				require.Equal(t, "mallory", who)
			case res := <-again:
				t.Fatalf("a finished call frees a place, yet: %v", res)
			case <-time.After(60 * time.Second):
				t.Fatal("the call after one finished never ran")
			}
		})
	}
}

// The bound is on by default, and one anonymous client over one session
// (as over stdio) is held to it.
func TestAttackCallFloodOfOneSessionIsBoundedByDefault(t *testing.T) {
	const n = DefaultMaxCallsInProgress + 6
	h := newHolder(n)
	s, err := New(h.ex)
	require.NoError(t, err)
	cs := sdkClient(t, serve(t, s), nil, nil)
	ran, answered := h.settle(t, h.flood(t, cs, n), n)
	require.Equal(t, DefaultMaxCallsInProgress, ran)
	require.Len(t, answered, n-DefaultMaxCallsInProgress)
	for _, res := range answered {
		requireRefusedForTheBound(t, res, "64")
	}
}
