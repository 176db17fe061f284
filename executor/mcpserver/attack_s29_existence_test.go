package mcpserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	toolauth "github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// tools/list hides from bob (dev) the tools only ops may call, but a
// tools/call of such a tool's exact name was answered with an isError
// result, "unauthorized: tool "drop_tables" is restricted by rule ...",
// and a name no tool has with a JSON-RPC error, "unknown tool": bob could
// tell which tools exist by guessing names. Both are now the JSON-RPC
// error, also when bob has as many calls in progress as the server
// allows (the bound answered concurrency_limit for a tool that exists
// only); the executor's chain still records auth's refusal and its rule.
// Alice, who may call it, is served as before. In memory and over
// stateless and stateful HTTP, whose clients word the error each its own
// way.
func TestAttackS29ToolsCallOfAHiddenToolIsAnUnknownTool(t *testing.T) {
	var started, release chan struct{} // the wait tool's, per transport
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_tables", "Drop the tables (ops only)", func(context.Context, struct{}) (string, error) {
			return "dropped", nil
		}, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) {
			return "up", nil
		}, tool.ReadOnly()),
		tool.Func("wait", "Wait for the test", func(context.Context, struct{}) (string, error) {
			started <- struct{}{}
			<-release
			return "done", nil
		}, tool.ReadOnly()),
	)
	var mu sync.Mutex
	recorded := map[string]*tool.Result{} // by tool: the result the chain answered at the audit trail's place
	rec := extension.Func("recorder", extension.PriorityAudit, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			res := next(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			recorded[req.Call.Name] = res
			return res
		}
	})
	ex := executor.MustNew(reg, executor.WithExtensions(rec, toolauth.New(toolauth.Allow("ops", "drop_tables"), toolauth.Allow("dev", "status", "wait"))))
	ctx := context.Background()

	for _, mode := range []string{"in-memory", "stateless", "stateful"} {
		t.Run(mode, func(t *testing.T) {
			started, release = make(chan struct{}, 1), make(chan struct{})
			mu.Lock()
			clear(recorded)
			mu.Unlock()
			connect := func(p tool.Principal) *mcp.ClientSession {
				s, err := New(ex, WithPrincipal(func(context.Context, *mcp.CallToolRequest) tool.Principal { return p }), WithMaxCallsInProgress(1))
				require.NoError(t, err)
				var ct mcp.Transport
				switch mode {
				case "in-memory":
					var st mcp.Transport
					ct, st = mcp.NewInMemoryTransports()
					ss, err := s.Server().Connect(ctx, st, nil)
					require.NoError(t, err)
					t.Cleanup(func() { _ = ss.Close() })
				default:
					var opts []HTTPOption
					if mode == "stateful" {
						opts = append(opts, Stateful())
					}
					hs := httptest.NewServer(s.HTTPHandler(opts...))
					t.Cleanup(hs.Close)
					t.Cleanup(hs.CloseClientConnections)
					ct = &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}
				}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
				require.NoError(t, err)
				t.Cleanup(func() { _ = cs.Close() })
				return cs
			}
			bob := connect(tool.Principal{ID: "bob", Roles: []string{"dev"}})
			call := func(cs *mcp.ClientSession, name string) (*mcp.CallToolResult, error) {
				return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
			}
			answer := func(res *mcp.CallToolResult, err error) string {
				if err != nil {
					return "error: " + err.Error()
				}
				var b strings.Builder
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						b.WriteString(tc.Text)
					}
				}
				return "result: " + b.String()
			}

			unknown := answer(call(bob, "drop_tablez"))
			require.True(t, strings.HasPrefix(unknown, "error: "), unknown)
			want := strings.ReplaceAll(unknown, "drop_tablez", "drop_tables")
			assert.Equal(t, want, answer(call(bob, "drop_tables")), "bob learns drop_tables exists")
			mu.Lock()
			refusal := recorded["drop_tables"]
			mu.Unlock()
			if assert.NotNil(t, refusal, "the chain saw no call") && assert.NotNil(t, refusal.Error) {
				assert.Equal(t, tool.CodeUnauthorized, refusal.Error.Code)
				assert.Equal(t, "role:ops", refusal.Metadata[toolauth.MetaRule])
			}

			// Over the bound of calls in progress (one, taken by wait).
			done := make(chan string, 1)
			go func() { done <- answer(call(bob, "wait")) }()
			<-started
			assert.Equal(t, want, answer(call(bob, "drop_tables")), "bob, at his bound, learns drop_tables exists")
			assert.Equal(t, unknown, answer(call(bob, "drop_tablez")))
			assert.Contains(t, answer(call(bob, "status")), "concurrency_limit", "a tool bob may call is still refused for the bound")
			close(release)
			assert.Equal(t, "result: done", <-done)

			alice := connect(tool.Principal{ID: "alice", Roles: []string{"ops"}})
			assert.Equal(t, "result: dropped", answer(call(alice, "drop_tables")))
		})
	}
}
