//lint:file-ignore SA1019 sampling is deprecated as of MCP 2026-07-28 (SEP-2577), but servers of earlier revisions still ask for it: this file tests the bound on WithSampling's answers.

package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// rawServer answers the client's initialize on conn as a server of
// revision 2025-11-25 (whose servers send requests of their own on the
// session's streams), and reads its initialized notification.
func rawServer(t *testing.T, conn mcp.Connection) {
	t.Helper()
	ctx := context.Background()
	var init *jsonrpc.Request
	for init == nil {
		msg, err := conn.Read(ctx)
		require.NoError(t, err)
		req, ok := msg.(*jsonrpc.Request)
		require.True(t, ok, "%v", msg)
		switch req.Method {
		case "initialize":
			init = req
		case "server/discover": // 2026-07-28's first question: not known here
			require.NoError(t, conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}}))
		default:
			t.Errorf("unexpected %s before initialize", req.Method)
			return
		}
	}
	require.NoError(t, conn.Write(ctx, &jsonrpc.Response{ID: init.ID, Result: json.RawMessage(
		`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`)}))
	msg, err := conn.Read(ctx)
	require.NoError(t, err)
	note, ok := msg.(*jsonrpc.Request)
	require.True(t, ok && note.Method == "notifications/initialized", "%v", msg)
}

// blockingAsk is a host's answer to a server's question that waits for
// its context (a model that is slow, a human who is away), reporting each
// arrival and the most waiting at once.
type blockingAsk struct {
	arrived chan struct{}
	now     atomic.Int64
	most    atomic.Int64
}

func (b *blockingAsk) wait(ctx context.Context) error {
	n := b.now.Add(1)
	defer b.now.Add(-1)
	for m := b.most.Load(); n > m && !b.most.CompareAndSwap(m, n); m = b.most.Load() {
	}
	b.arrived <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// A host that answers a server's sampling (its model, at its cost) or
// elicitation (its user) requests ran the handler for every request the
// server sent, all at once: the SDK runs each on a goroutine of its own
// as it arrives, and a server that sends a hundred sampling requests had
// the host's model called a hundred times in parallel (a thousand: a
// thousand), each holding what the handler holds. At most
// maxAsksInFlight run at once; the server gets an error for the others.
// Closing the client ends those running (their context is done), and
// Close returns.
func TestAttackS27AsksInFlightAreBounded(t *testing.T) {
	const n = 100
	for _, kind := range []string{"sampling/createMessage", "elicitation/create"} {
		t.Run(kind, func(t *testing.T) {
			ask := &blockingAsk{arrived: make(chan struct{}, n)}
			opt := WithSampling(func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return nil, ask.wait(ctx)
			})
			params := `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":1}`
			if kind == "elicitation/create" {
				opt = WithElicitation(func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return nil, ask.wait(ctx)
				})
				params = `{"message":"ok?","requestedSchema":{"type":"object"}}`
			}
			st, ct := mcp.NewInMemoryTransports()
			ctx := context.Background()
			server, err := st.Connect(ctx)
			require.NoError(t, err)
			defer server.Close()
			handshake := make(chan struct{})
			go func() { defer close(handshake); rawServer(t, server) }()
			c, err := Connect(ctx, Transport(ct), opt)
			require.NoError(t, err)
			<-handshake

			refused := make(chan string, n)
			go func() { // the server's reader: the client's answers
				for {
					msg, err := server.Read(ctx)
					if err != nil {
						return
					}
					if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
						refused <- r.Error.Error()
					}
				}
			}()
			for i := range n {
				id, err := jsonrpc.MakeID(float64(1000 + i))
				require.NoError(t, err)
				require.NoError(t, server.Write(ctx, &jsonrpc.Request{ID: id, Method: kind, Params: json.RawMessage(params)}))
			}
			arrived, nrefused, why := 0, 0, ""
			for arrived+nrefused < n {
				select {
				case <-ask.arrived:
					arrived++
				case why = <-refused:
					nrefused++
				}
			}
			assert.Equal(t, maxAsksInFlight, arrived, "the host's handler ran for so many of the server's requests")
			assert.LessOrEqual(t, ask.most.Load(), int64(maxAsksInFlight), "handlers running at once")
			if assert.Equal(t, n-maxAsksInFlight, nrefused) {
				assert.Contains(t, why, fmt.Sprint(maxAsksInFlight), "the refusal says the bound")
			}

			closed := make(chan error, 1)
			go func() { closed <- c.Close() }()
			select {
			case err := <-closed:
				assert.NoError(t, err)
			case <-time.After(60 * time.Second): // a hang bound, not a measure: Close ends the handlers at once
				t.Fatalf("Close did not return while %d handlers waited", ask.now.Load())
			}
			assert.Zero(t, ask.now.Load(), "handlers still running after Close")
		})
	}
}

// With a client of revision 2026-07-28 a server asks by returning input
// requests with a call's result, which the SDK fulfils all at once before
// calling again: a result asking a hundred questions had the host's
// handler run a hundred times in parallel. The bound holds there too: the
// call fails, naming it, and the handlers that ran end.
func TestAttackS27InputRequestsAreBounded(t *testing.T) {
	const n = 100
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", Description: "a", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reqs := mcp.InputRequestMap{}
		for i := range n {
			reqs[fmt.Sprint("q", i)] = &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}
		}
		return &mcp.CallToolResult{InputRequests: reqs}, nil
	})
	ask := &blockingAsk{arrived: make(chan struct{}, n)}
	c := connectServer(t, srv, WithSampling(func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return nil, ask.wait(ctx)
	}))
	tl, err := c.Tool("ask", tool.Spec{Name: "ask", Description: "a"})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		res, err := tl.Run(ctx, tool.Call{ID: "c1", Name: "ask", Args: json.RawMessage(`{}`)})
		if err == nil {
			err = res.Err()
		}
		done <- err
	}()
	arrived := 0
	var callErr error
wait:
	for {
		select {
		case <-ask.arrived:
			if arrived++; arrived == n {
				cancel() // every question reached the host: end the call
			}
		case callErr = <-done:
			break wait
		}
	}
	assert.LessOrEqual(t, ask.most.Load(), int64(maxAsksInFlight), "handlers running at once")
	assert.Less(t, arrived, n, "every question reached the host's handler")
	if assert.Error(t, callErr) {
		assert.Contains(t, callErr.Error(), fmt.Sprint(maxAsksInFlight), "the failure says the bound")
	}
}
