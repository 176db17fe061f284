package mcpserver

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
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

// tools/list left out the tools a principal may not call after the SDK
// had cut the registry into pages: a page whose last tool was hidden
// still ended with the SDK's cursor, the base64 of that tool's name, and
// the pages and their cursors counted the hidden tools. Bob (dev), with
// page size 1, read admin_purge_backups and admin_rotate_keys in the
// cursors of two empty pages before his one tool. He is now paged over
// the tools he may call alone: one page, no cursor, no hidden name.
func TestAttackS28ReviewListCursorNamesHiddenTools(t *testing.T) {
	reg := registry.New()
	ops := func(context.Context, struct{}) (string, error) { return "done", nil }
	reg.MustRegister(
		tool.Func("admin_purge_backups", "Purge the backups", ops, tool.WithRisk(tool.RiskLow)),
		tool.Func("admin_rotate_keys", "Rotate the keys", ops, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", ops, tool.ReadOnly()),
	)
	ex := executor.MustNew(reg, executor.WithExtensions(toolauth.New(
		toolauth.Allow("ops", "admin_purge_backups", "admin_rotate_keys", "status"), toolauth.Allow("dev", "status"))))
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

			// pages lists every page, as a client follows the cursors.
			pages := func(who string) (pages [][]string, cursors []string) {
				ctx := context.Background()
				c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
				cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL,
					HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Authorization": {"Bearer " + who}}}}, DisableStandaloneSSE: true}, nil)
				require.NoError(t, err)
				defer cs.Close()
				_, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "not-a-cursor"})
				assert.ErrorContains(t, err, "invalid cursor")
				cursor := ""
				for range 10 {
					res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
					require.NoError(t, err)
					pages = append(pages, toolNames(res.Tools))
					if res.NextCursor == "" {
						return pages, cursors
					}
					cursors = append(cursors, res.NextCursor)
					cursor = res.NextCursor
				}
				t.Fatalf("%s: more than 10 pages: %v", who, pages)
				return nil, nil
			}

			got, cursors := pages("bob")
			for _, c := range cursors {
				raw, _ := base64.URLEncoding.DecodeString(c)
				assert.False(t, strings.Contains(string(raw), "admin_") || strings.Contains(c, "admin_"),
					"bob's cursor %q names a tool he may not call: %q", c, raw)
			}
			assert.Equal(t, [][]string{{"status"}}, got, "bob is paged over his own tools alone")

			// Alice, who may call all three, still gets them a page at a time.
			got, _ = pages("alice")
			assert.Equal(t, [][]string{{"admin_purge_backups"}, {"admin_rotate_keys"}, {"status"}}, got)
		})
	}
}
