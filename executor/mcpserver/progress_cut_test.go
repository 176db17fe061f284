package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A progress message cut at maxProgressMessage keeps its characters whole:
// cut at a byte, the last 'é' lost its second byte, and the client read a
// U+FFFD where the text had a letter.
func TestProgressMessageCutKeepsCharactersWhole(t *testing.T) {
	reg := registry.New()
	long := "x" + strings.Repeat("é", maxProgressMessage) // the cut falls inside an 'é'
	reg.MustRegister(tool.New("relay", "Relays progress", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		data, _ := json.Marshal(map[string]any{"progress": 1, "total": 2, "message": long})
		tool.EmitOutput(ctx, "progress", data)
		tool.EmitOutput(ctx, "stdout", []byte(long))
		return &tool.Result{Content: []tool.Content{tool.TextContent("done")}}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	got := make(chan string, 16)
	cs := sdkClient(t, serve(t, s), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		got <- r.Params.Message
	}}, nil)
	params := &mcp.CallToolParams{Name: "relay", Arguments: map[string]any{}}
	params.SetProgressToken("p")
	_, err = cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	for _, m := range receive(t, got, 2) {
		assert.True(t, utf8.ValidString(m))
		assert.NotContains(t, m, string(utf8.RuneError), "a character was split by the cut")
		assert.Greater(t, len(m), maxProgressMessage-2, "the cut keeps what fits")
	}
}

// receive returns the first n values sent on ch: the client's handlers
// send what they are given, so the test waits for them, not for a time.
func receive[T any](t *testing.T, ch <-chan T, n int) []T {
	t.Helper()
	out := make([]T, 0, n)
	for len(out) < n {
		select {
		case v := <-ch:
			out = append(out, v)
		case <-time.After(5 * time.Second):
			t.Fatalf("received %d of %d notifications in 5 s", len(out), n)
		}
	}
	return out
}
