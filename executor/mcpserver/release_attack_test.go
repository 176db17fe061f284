package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A place that never came back would lock its principal out for as long
// as the process lives: with a bound of 1, each way a call can end
// abnormally (the client cancels, the HTTP request is dropped, the tool
// panics, the executor refuses, the client never answers an elicitation)
// gives its place back, and the principal's next call runs. Over stateless
// HTTP, a 2026-07-28 request that ended (cancelled or dropped) let its
// call run on, holding its place until the tool's timeout (the SDK ties
// the call to its request only with PropagateRequestCancellation).
func TestAttackAbnormalEndsGiveThePlaceBack(t *testing.T) {
	entered := make(chan struct{}, 16)
	obj := tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))
	safe := tool.WithRisk(tool.RiskLow)
	reg := registry.New()
	reg.MustRegister(
		tool.New("hold", "Blocks until cancelled", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
			entered <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}, obj, safe), // safe: not asked about
		tool.New("boom", "Panics", func(context.Context, tool.Call) (*tool.Result, error) { panic("boom") }, obj, safe),
		tool.New("strict", "Needs n", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil },
			tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)), safe),
		tool.New("guarded", "Needs a human's approval", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil },
			obj, tool.WithApproval(), tool.WithRisk(tool.RiskHigh)),
		tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "ok", nil }, safe),
	)
	gate := approvalgate.New(Approver{})
	ex := executor.MustNew(reg, executor.WithTimeout(10*time.Minute), executor.WithExtensions(gate, gate.Guard()))
	s, err := New(ex, WithMaxCallsInProgress(1), WithElicitTimeout(-1))
	require.NoError(t, err)
	hs := httptest.NewServer(s.HTTPHandler())
	t.Cleanup(hs.Close)

	asked := make(chan struct{}, 1)
	neverAnswer := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	old := &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"}
	memory := sdkClient(t, serve(t, s), neverAnswer, old)
	// A client of its own, whose idle connections the dropped-request case
	// can close: a POST sent on one the server had just closed fails with
	// EOF (net/http does not resend a POST), which is not the place.
	httpClient := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(httpClient.CloseIdleConnections)
	overHTTP := sdkClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: httpClient, MaxRetries: -1, DisableStandaloneSSE: true}, nil, nil)

	// cancelled starts name on cs, waits for started, then cancels it.
	cancelled := func(cs *mcp.ClientSession, name string, started <-chan struct{}) func(t *testing.T) {
		return func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
			}()
			select {
			case <-started:
			case <-time.After(60 * time.Second):
				t.Fatal("the call never started")
			}
			require.Equal(t, 1, inProgress(s, user{}))
			cancel()
			<-done
		}
	}
	ended := func(cs *mcp.ClientSession, name string, args map[string]any) func(t *testing.T) {
		return func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
			require.NoError(t, err)
			require.True(t, res.IsError, "%v", res.Content)
		}
	}
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		end  func(t *testing.T)
	}{
		{"the client cancels (notifications/cancelled)", memory, cancelled(memory, "hold", entered)},
		{"the client cancels over stateless HTTP (2026-07-28: it ends its request)", overHTTP, cancelled(overHTTP, "hold", entered)},
		{"the HTTP request is dropped", overHTTP, func(t *testing.T) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = overHTTP.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
			}()
			select {
			case <-entered:
			case <-time.After(60 * time.Second):
				t.Fatal("the call never started")
			}
			require.Equal(t, 1, inProgress(s, user{}))
			hs.CloseClientConnections() // the network drops the request mid-call
			<-done
			httpClient.CloseIdleConnections() // the next call dials afresh (see httpClient)
		}},
		{"an elicitation is never answered, then the client cancels", memory, cancelled(memory, "guarded", asked)},
		{"the tool panics", memory, ended(memory, "boom", map[string]any{})},
		{"the executor refuses the arguments", memory, ended(memory, "strict", map[string]any{"n": "x"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.end(t)
			// A poll: the place comes back on the server's goroutines once the SDK sees the end, with no signal.
			require.Eventually(t, func() bool { return inProgress(s, user{}) == 0 }, 60*time.Second, 10*time.Millisecond,
				"the place comes back")
			res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.False(t, res.IsError, "the next call runs: %v", res.Content)
		})
	}
}
