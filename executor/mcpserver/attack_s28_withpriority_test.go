package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	toolauth "github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// tools/list found the auth extension among the executor's extensions by
// its Authorize method, which extension.WithPriority's result does not
// have: auth re-placed (here at its own priority) stopped hiding tools,
// and bob (dev) was listed drop_tables, which only ops may call. The
// server now finds auth through the re-placement (extension.As).
func TestAttackS28ToolsListOfAReplacedAuth(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_tables", "Drop tables", func(context.Context, struct{}) (string, error) { return "dropped", nil }, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }, tool.ReadOnly()),
	)
	a := toolauth.New(toolauth.Allow("ops", "drop_tables"), toolauth.Allow("dev", "status"))
	ex := executor.MustNew(reg, executor.WithExtensions(extension.WithPriority(a, extension.PriorityAuth)))
	s, err := New(ex)
	require.NoError(t, err)
	bob := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(tool.WithPrincipal(r.Context(), tool.Principal{ID: "bob", Roles: []string{"dev"}})))
		})
	}
	hs := httptest.NewServer(bob(s.HTTPHandler()))
	defer hs.Close()
	defer hs.CloseClientConnections()
	tools, _, err := listAs(t, hs.URL, nil, "drop_tables")
	assert.Equal(t, []string{"status"}, toolNames(tools), "bob (dev) was listed a tool only ops may call")
	assert.ErrorContains(t, err, `unknown tool "drop_tables"`, "the executor still refuses the call, as a tool bob has not")
}
