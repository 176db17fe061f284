package mcpserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	toolauth "github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// With a rate limiter placed outside auth, a tools/call of a tool hidden
// from bob, over his limit, was answered with an isError result,
// "rate_limited: rate limit 1/hour for principal "bob" (calling tool
// "drop_tables") reached", and a name no tool has with the JSON-RPC
// "unknown tool" error. The executor now answers such a call not_found
// whatever the chain answered it, and the server the unknown-tool error.
func TestAttackS29ReviewHiddenToolOverAnOuterRateLimit(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_tables", "Drop the tables (ops only)", func(context.Context, struct{}) (string, error) {
			return "dropped", nil
		}, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) {
			return "up", nil
		}, tool.ReadOnly()),
	)
	ctx := context.Background()
	for _, mode := range []string{"in-memory", "stateless"} {
		t.Run(mode, func(t *testing.T) {
			lim := extension.WithPriority(ratelimit.New(ratelimit.PerPrincipal("1/hour")), extension.PriorityAuth-50)
			ex := executor.MustNew(reg, executor.WithExtensions(lim, toolauth.New(toolauth.Allow("ops", "drop_tables"), toolauth.Allow("dev", "status"))))
			bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
			s, err := New(ex, WithPrincipal(func(context.Context, *mcp.CallToolRequest) tool.Principal { return bob }))
			require.NoError(t, err)
			var ct mcp.Transport
			if mode == "in-memory" {
				var st mcp.Transport
				ct, st = mcp.NewInMemoryTransports()
				ss, err := s.Server().Connect(ctx, st, nil)
				require.NoError(t, err)
				t.Cleanup(func() { _ = ss.Close() })
			} else {
				hs := httptest.NewServer(s.HTTPHandler())
				t.Cleanup(hs.Close)
				t.Cleanup(hs.CloseClientConnections)
				ct = &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = cs.Close() })
			answer := func(name string) string {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
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
			require.Equal(t, "result: up", answer("status")) // bob's one call this hour
			unknown := answer("drop_tablez")
			require.True(t, strings.HasPrefix(unknown, "error: "), unknown)
			assert.Equal(t, strings.ReplaceAll(unknown, "drop_tablez", "drop_tables"), answer("drop_tables"), "bob learns drop_tables exists")
			assert.Contains(t, answer("status"), "rate_limited", "a tool bob may call is still refused for the limit")
		})
	}
}
