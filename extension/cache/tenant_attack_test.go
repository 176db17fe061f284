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

// myOrders is a read-only tool whose answer depends on who asks, as most
// tools of a multi-tenant service do: it reads the caller from its context.
func myOrders(ctx context.Context, _ struct{}) (string, error) {
	p, _ := tool.PrincipalFrom(ctx)
	return "orders of " + p.Tenant + "/" + p.ID, nil
}

// The attack: one executor serving two tenants, with the cache as it comes
// (cache.New()). Alice of acme asks for her orders; then Bob of globex asks
// the same tool with the same arguments. Before the cache keyed by principal
// by default, Bob was served Alice's orders from the cache.
func TestAttackCacheServesOneTenantAnothersResult(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("my_orders", "The caller's orders", myOrders, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	ask := func(p tool.Principal) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "my_orders", Args: json.RawMessage(`{}`), Principal: p})
		require.NoError(t, err)
		return res
	}
	alice := ask(tool.Principal{ID: "alice", Tenant: "acme"})
	require.Equal(t, "orders of acme/alice", alice.Text())

	bob := ask(tool.Principal{ID: "bob", Tenant: "globex"})
	assert.Equal(t, "orders of globex/bob", bob.Text(), "bob was served alice's result")
	assert.Equal(t, cache.MetaMiss, bob.Metadata[cache.MetaKey])

	// The same principal still hits.
	again := ask(tool.Principal{ID: "alice", Tenant: "acme"})
	assert.Equal(t, cache.MetaHit, again.Metadata[cache.MetaKey])
	assert.Equal(t, "orders of acme/alice", again.Text())
}

// A tool that answers alike for everyone shares its results across
// principals only when the cache is told so.
func TestSharedAcrossPrincipalsIsOptIn(t *testing.T) {
	b := &backend{}
	ex := setup(t, b, cache.New(cache.SharedAcrossPrincipals()), tool.ReadOnly())
	for _, p := range []tool.Principal{{ID: "alice", Tenant: "acme"}, {ID: "bob", Tenant: "globex"}} {
		c := call(`{"q":"public"}`)
		c.Principal = p
		_, err := ex.Execute(context.Background(), c)
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), b.runs.Load(), "shared: the second principal hit the first one's result")
}
