package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	toolauth "github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// listAs lists the tools of the server at url with header h (over every
// page), with the SDK's client, and calls name: the call's result, or the
// JSON-RPC error it was answered with (an unknown tool, or one the
// principal may not call).
func listAs(t *testing.T, url string, h http.Header, name string) ([]*mcp.Tool, *mcp.CallToolResult, error) {
	t.Helper()
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerTransport{h}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer cs.Close()
	var tools []*mcp.Tool
	for tl, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		tools = append(tools, tl)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	return tools, res, err
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// tools/list answered every principal with every tool of the registry,
// those the auth extension refuses it included: a user of role dev read
// the name, description and input schema of drop_tables, which only ops
// may call (the description of an internal tool can say much about the
// system behind it), and its model was offered a tool whose every call
// fails. The auth extension can say whether a principal may call a tool
// without running it (auth.Auth.Authorize, meant for this), so each
// principal is now listed the tools it may call; calls stay judged by
// the executor.
func TestAttackS28ToolsListShowsToolsThePrincipalMayNotCall(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_tables", "Drop the tables of the billing database on db-7.internal (ops only)", func(context.Context, struct{}) (string, error) {
			return "dropped", nil
		}, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) {
			return "up", nil
		}, tool.ReadOnly()),
	)
	ex := executor.MustNew(reg, executor.WithExtensions(toolauth.New(toolauth.Allow("ops", "drop_tables"), toolauth.Allow("dev", "status"))))
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		switch token {
		case "alice":
			return &auth.TokenInfo{UserID: "alice", Scopes: []string{"ops"}, Expiration: farFuture}, nil
		case "bob":
			return &auth.TokenInfo{UserID: "bob", Scopes: []string{"dev"}, Expiration: farFuture}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	for _, mode := range []string{"stateless", "stateful"} {
		t.Run(mode, func(t *testing.T) {
			s, err := New(ex, WithPrincipal(PrincipalFromToken()), WithPageSize(1))
			require.NoError(t, err)
			var opts []HTTPOption
			if mode == "stateful" {
				opts = append(opts, Stateful())
			}
			hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(s.HTTPHandler(opts...)))
			defer hs.Close()
			defer hs.CloseClientConnections()

			tools, _, err := listAs(t, hs.URL, http.Header{"Authorization": {"Bearer bob"}}, "drop_tables")
			assert.Equal(t, []string{"status"}, toolNames(tools), "bob (dev) was listed a tool only ops may call")
			assert.ErrorContains(t, err, `unknown tool "drop_tables"`, "the executor still refuses the call, as a tool bob has not")

			tools, res, err := listAs(t, hs.URL, http.Header{"Authorization": {"Bearer alice"}}, "drop_tables")
			require.NoError(t, err)
			assert.Equal(t, []string{"drop_tables"}, toolNames(tools), "alice (ops) is listed what she may call")
			assert.False(t, res.IsError, "%s", resultText(res))
		})
	}
}

// Without WithPrincipal, the principal a middleware puts in the request's
// context (tool.WithPrincipal) is the one tools/list is answered for, as
// calls run as it; a request with none is listed what an anonymous call
// may make (here nothing: the auth extension requires a principal).
func TestS28ToolsListForAContextPrincipal(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_tables", "Drop tables", func(context.Context, struct{}) (string, error) { return "dropped", nil }, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }, tool.ReadOnly()),
	)
	ex := executor.MustNew(reg, executor.WithExtensions(toolauth.New(toolauth.Allow("ops", "drop_tables"), toolauth.Allow("dev", "status"))))
	s, err := New(ex)
	require.NoError(t, err)
	users := map[string]tool.Principal{"alice": {ID: "alice", Roles: []string{"ops"}}, "bob": {ID: "bob", Roles: []string{"dev"}}}
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p, ok := users[r.Header.Get("X-Test-User")]; ok {
				r = r.WithContext(tool.WithPrincipal(r.Context(), p))
			}
			next.ServeHTTP(w, r)
		})
	}
	for _, mode := range []string{"stateless", "stateful"} {
		t.Run(mode, func(t *testing.T) {
			var opts []HTTPOption
			if mode == "stateful" {
				opts = append(opts, Stateful())
			}
			hs := httptest.NewServer(mw(s.HTTPHandler(opts...)))
			defer hs.Close()
			defer hs.CloseClientConnections()
			tools, _, _ := listAs(t, hs.URL, http.Header{"X-Test-User": {"bob"}}, "status")
			assert.Equal(t, []string{"status"}, toolNames(tools))
			tools, _, _ = listAs(t, hs.URL, http.Header{"X-Test-User": {"alice"}}, "status")
			assert.Equal(t, []string{"drop_tables"}, toolNames(tools))
			tools, _, err := listAs(t, hs.URL, nil, "status")
			assert.Empty(t, toolNames(tools), "an anonymous request is listed what it may call")
			assert.ErrorContains(t, err, `unknown tool "status"`, "and its calls are refused")
		})
	}
}
