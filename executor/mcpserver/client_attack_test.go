package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A client of a revision before 2026-07-28 is asked for an approval while
// the call waits. The call has its ticket in the resource's lock queue from
// submission, so a client that never answers (and keeps its connection)
// stalled every later call on that resource, another user's approved
// deploy included, for as long as it liked. The wait for an answer is
// bounded (WithElicitTimeout); then the call is denied and the queue moves.
func TestAttackUnansweredElicitationStallsTheResource(t *testing.T) {
	var ran atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.New("deploy", "Deploy to an environment", func(context.Context, tool.Call) (*tool.Result, error) {
		ran.Add(1)
		return &tool.Result{Content: []tool.Content{tool.TextContent("deployed")}}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)),
		tool.WithApproval(), tool.WithRisk(tool.RiskHigh),
		tool.WithResources(func(json.RawMessage) []tool.Resource { return []tool.Resource{{Key: "env:prod", Access: tool.Write}} })))
	ext := approvalgate.New(Approver{})
	s, err := New(executor.MustNew(reg, executor.WithExtensions(ext, ext.Guard()), executor.WithTimeout(20*time.Second)),
		WithElicitTimeout(300*time.Millisecond))
	require.NoError(t, err)
	old := &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"}

	asked := make(chan struct{}, 1)
	never := make(chan struct{})
	hostile := sdkClient(t, serve(t, s), &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		select { // never answers
		case <-never:
		case <-ctx.Done():
		}
		return nil, context.Canceled
	}}, old)
	t.Cleanup(func() { close(never) })
	honest := sdkClient(t, serve(t, s), &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}, old)

	hostileDone := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := hostile.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
		hostileDone <- res
	}()
	<-asked

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := honest.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	require.NoError(t, err, "the approved deploy waited behind a question nobody answers")
	require.False(t, res.IsError, "%v", res.Content)
	require.Equal(t, int32(1), ran.Load())

	hr := <-hostileDone
	require.NotNil(t, hr)
	require.True(t, hr.IsError, "the unanswered call is denied, not run")
	require.Contains(t, hr.Content[len(hr.Content)-1].(*mcp.TextContent).Text, "did not answer")
}

// A tool that panics is reported to the client as "panic: ...": the stack
// the executor keeps in the result's metadata (for the host's logs and
// audit) names the server's source paths and must not reach the client,
// in the text or under _meta.
func TestPanicStackStaysOnTheServer(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.New("boom", "Panics", func(context.Context, tool.Call) (*tool.Result, error) {
		panic("boom")
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	cs := sdkClient(t, serve(t, s), nil, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	wire, err := json.Marshal(res)
	require.NoError(t, err)
	require.Contains(t, string(wire), "panic")
	require.NotContains(t, string(wire), "goroutine", "the stack reached the client")
	require.NotContains(t, string(wire), ".go:", "a source path reached the client")
}

// Arguments larger than the executor's cap are refused as invalid before
// any validation or extension sees them; arguments nested deeper than
// encoding/json decodes end the sender's own connection (the SDK cannot
// read the message), and other sessions go on being served.
func TestHugeAndDeepArgumentsAreRefused(t *testing.T) {
	fx := newFixture()
	s, err := New(fx.ex)
	require.NoError(t, err)

	cs := sdkClient(t, serve(t, s), nil, nil)
	huge := `"` + strings.Repeat("a", 2<<20) + `"`
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":` + huge + `}`)})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[len(res.Content)-1].(*mcp.TextContent).Text, "over the 1048576-byte limit")

	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	hostile := sdkClient(t, serve(t, s), nil, nil)
	_, err = hostile.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":` + deep + `}`)})
	require.Error(t, err)

	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
}

// A client that sends notifications/cancelled for request ids it did not
// use (another session's running call has one of the small ids every SDK
// client numbers from) cancels nothing of another session: ids are the
// sender's session's own.
func TestCancellingAnotherSessionsRequestIDCancelsNothing(t *testing.T) {
	fx := newFixture()
	s, err := New(fx.ex)
	require.NoError(t, err)
	hs := httptest.NewServer(s.HTTPHandler(Stateful()))
	defer hs.Close()
	defer hs.CloseClientConnections()
	old := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	victim := sdkClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil, old)
	hostile := sdkClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil, old)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := victim.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		done <- err
	}()
	select {
	case <-fx.blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never started")
	}
	for id := range 20 {
		for _, rid := range []string{strconv.Itoa(id), `"` + strconv.Itoa(id) + `"`} {
			req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+rid+`}}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", hostile.ID())
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
		}
	}
	select {
	case <-fx.cancelled:
		t.Fatal("another session's cancellation stopped the victim's call")
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	require.Error(t, <-done)
	<-fx.cancelled
	require.NoError(t, victim.Close())
	require.NoError(t, hostile.Close())
}

// Progress messages are capped at maxProgressMessage bytes whatever stream
// they come on. Only raw output chunks were: a "progress" event's message
// (an MCP backend relaying an untrusted server's progress) went to the
// client whole, up to 256 queued per call.
func TestStructuredProgressMessageIsCapped(t *testing.T) {
	reg := registry.New()
	big := strings.Repeat("x", 1<<20)
	reg.MustRegister(tool.New("relay", "Relays progress", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		data, _ := json.Marshal(map[string]any{"progress": 1, "total": 2, "message": big})
		tool.EmitOutput(ctx, "progress", data)
		tool.EmitOutput(ctx, "stdout", []byte(big))
		return &tool.Result{Content: []tool.Content{tool.TextContent("done")}}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	sizes := make(chan int, 16)
	cs := sdkClient(t, serve(t, s), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		sizes <- len(r.Params.Message)
	}}, nil)
	params := &mcp.CallToolParams{Name: "relay", Arguments: map[string]any{}}
	params.SetProgressToken("p")
	_, err = cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	for _, n := range receive(t, sizes, 2) {
		require.LessOrEqual(t, n, maxProgressMessage+len("stdout: "))
	}
}

// A hostile client opens stateful sessions as fast as it can (thousands a
// second, each some 5 KB and a goroutine): the idle timeout frees them only
// after 30 minutes. One principal may hold at most WithMaxSessions open at
// once; another principal is still served, and a session ended frees a
// place.
func TestAttackSessionFloodIsBoundedPerPrincipal(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg), WithMaxSessions(3))
	require.NoError(t, err)
	hs := httptest.NewServer(cookieAuth(s.HTTPHandler(Stateful())))
	defer hs.Close()
	defer hs.CloseClientConnections()
	open := func(user string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: user, Version: "1"}, nil)
		return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {"session=" + user}}}}}, nil)
	}
	var mallory []*mcp.ClientSession
	defer func() {
		for _, cs := range mallory {
			_ = cs.Close()
		}
	}()
	refused := 0
	for range 10 {
		cs, err := open("mallory")
		if err != nil {
			refused++
			continue
		}
		mallory = append(mallory, cs)
	}
	require.Len(t, mallory, 3, "one principal holds at most 3 sessions")
	require.Equal(t, 7, refused)

	alice, err := open("alice")
	require.NoError(t, err, "another principal is served")
	_, err = alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.NoError(t, alice.Close())

	require.NoError(t, mallory[0].Close())
	mallory = mallory[1:]
	cs, err := open("mallory")
	require.NoError(t, err, "a session ended frees a place")
	mallory = append(mallory, cs)
}

// liveSessions counts the server's open sessions.
func liveSessions(s *Server) int {
	n := 0
	for range s.Server().Sessions() {
		n++
	}
	return n
}

// A hostile client opens stateful sessions and never closes them (no
// DELETE, no further request). The SDK closes idle sessions only when
// SessionTimeout is set, and it is zero by default: every session, its
// goroutines and its owner binding lived as long as the process. Stateful
// gives sessions an idle timeout by default.
func TestAttackAbandonedStatefulSessionsExpire(t *testing.T) {
	old := defaultSessionTimeout
	// Long enough that opening all 20 sessions on a loaded machine ends
	// well before the first one idles out (CI once took over 200 ms).
	defaultSessionTimeout = 3 * time.Second
	t.Cleanup(func() { defaultSessionTimeout = old })

	reg := registry.New()
	reg.MustRegister(tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	hs := httptest.NewServer(s.HTTPHandler(Stateful()))
	t.Cleanup(hs.Close)

	ctx := context.Background()
	for range 20 {
		c := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() }) // the test's own goroutines
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}})
		require.NoError(t, err)
		// Abandoned: never closed.
	}
	// At least the 20 (the SDK may hold one more for a retried handshake,
	// as CI once saw).
	require.GreaterOrEqual(t, liveSessions(s), 20, "every abandoned session is open until it idles out")
	// A poll: the SDK ends idle sessions on its own timer behind a real HTTP server and tells no one.
	require.Eventually(t, func() bool { return liveSessions(s) == 0 }, 20*time.Second, 50*time.Millisecond,
		"abandoned sessions must be closed once idle; %d still open", liveSessions(s))
}
