package cache_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// salaries answers per role, as a Go tool may since FuncTool.Run gives it
// the call's whole principal (tool.PrincipalFrom): hr sees the figures,
// everyone else a redacted list.
func salaries(ctx context.Context, _ struct{}) (string, error) {
	p, _ := tool.PrincipalFrom(ctx)
	if p.HasRole("hr") {
		return "alice 120000, bob 95000", nil
	}
	return "alice [redacted], bob [redacted]", nil
}

// The attack: alice of acme asks for the salaries while she holds hr (a
// session with the role, or before it was revoked); then alice without hr
// asks the same. The key held tenant and ID only, so the second call was
// served the figures the tool gives hr alone. Roles are part of who asks:
// in any order, the same set hits.
func TestAttackCacheServesARolesResultWithoutTheRole(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("salaries", "Salaries, for hr", salaries, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	ask := func(p tool.Principal) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "salaries", Args: json.RawMessage(`{}`), Principal: p})
		require.NoError(t, err)
		return res
	}
	hr := ask(tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"hr", "staff"}})
	require.Equal(t, "alice 120000, bob 95000", hr.Text())

	plain := ask(tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"staff"}})
	assert.Equal(t, "alice [redacted], bob [redacted]", plain.Text(), "a principal without hr was served hr's result")
	assert.Equal(t, cache.MetaMiss, plain.Metadata[cache.MetaKey])

	again := ask(tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"staff", "hr", "hr"}})
	assert.Equal(t, cache.MetaHit, again.Metadata[cache.MetaKey], "the same roles in another order are the same principal")
	assert.Equal(t, "alice 120000, bob 95000", again.Text())
}
