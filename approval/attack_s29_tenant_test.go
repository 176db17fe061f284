package approval_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A program of a shared instance decides approvals through the Queue for
// the person its sign-in names (tool.WithPrincipal on the request's
// context). PendingContext listed, and ResolveContext and ResolvePending
// decided, every tenant's requests whoever asked: carol of acme read
// globex's waiting call with its arguments and approved it. Now a context
// whose principal has a tenant lists, is handed and decides that tenant's
// requests only; another tenant's id is answered as an unknown one; a
// context of no tenant (the operator of a single-tenant app) sees all, as
// before. With a store that cannot decide one request atomically too.
func TestAttackS29ADeciderOfATenantListsAndDecidesItsRequestsOnly(t *testing.T) {
	for name, store := range map[string]approval.Store{
		"memory":     approval.NewMemoryStore(),
		"store only": storeOnly{approval.NewMemoryStore()},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			q := approval.NewQueue(approval.QueueStore(store), approval.QueueTimeout(time.Minute))
			asked := map[string]chan string{} // the decision each call got, by whom
			for _, tenant := range []string{"globex", "acme"} {
				asked[tenant] = make(chan string, 1)
				go func() {
					p := tool.Principal{ID: "alice", Tenant: tenant}
					d, err := q.Approve(ctx, approval.Request{Principal: p, Call: tool.Call{ID: "c1", Name: "pay", Principal: p,
						Args: json.RawMessage(`{"to":"secret account of ` + tenant + `"}`)}})
					if err != nil {
						asked[tenant] <- err.Error()
						return
					}
					asked[tenant] <- d.Kind.String() + " by " + d.DecidedBy
				}()
				p, err := q.Next(ctx)
				require.NoError(t, err)
				require.Equal(t, tenant, p.Request.Principal.Tenant)
			}
			all, err := q.PendingContext(ctx)
			require.NoError(t, err)
			require.Len(t, all, 2)
			byTenant := map[string]approval.Pending{}
			for _, p := range all {
				byTenant[p.Request.Principal.Tenant] = p
			}
			globex := byTenant["globex"]

			carol := tool.WithPrincipal(ctx, tool.Principal{ID: "carol", Tenant: "acme"})
			list, err := q.PendingContext(carol)
			require.NoError(t, err)
			if assert.Len(t, list, 1, "carol of acme was shown %v", list) {
				assert.Equal(t, "acme", list[0].Request.Principal.Tenant)
			}
			// A reviewer's own queue on the shared store hands her acme's.
			p, err := approval.NewQueue(approval.QueueStore(store)).Next(carol)
			require.NoError(t, err)
			assert.Equal(t, "acme", p.Request.Principal.Tenant, "Next handed carol of acme another tenant's request")

			err = q.ResolveContext(carol, globex.ID, approval.Approved("carol"))
			require.ErrorIs(t, err, approval.ErrNotPending, "carol of acme approved globex's call by its id")
			assert.Contains(t, err.Error(), `tenant "acme"`, "the refusal names the rule")
			unknown := q.ResolveContext(carol, "apr-unknown", approval.Approved("carol"))
			require.ErrorIs(t, unknown, approval.ErrNotPending)
			assert.Equal(t, unknown.Error(), strings.ReplaceAll(err.Error(), globex.ID, "apr-unknown"),
				"the refusal tells globex's waiting id from an unknown one")
			err = q.ResolvePending(carol, globex, approval.Approved("carol"))
			require.ErrorIs(t, err, approval.ErrNotPending, "carol of acme approved globex's request as listed")
			assert.Contains(t, err.Error(), `tenant "acme"`)

			// The operator, of no tenant, sees both; dave of globex decides
			// globex's call and carol acme's.
			erin := tool.WithPrincipal(ctx, tool.Principal{ID: "erin"})
			list, err = q.PendingContext(erin)
			require.NoError(t, err)
			assert.Len(t, list, 2, "erin, of no tenant, sees every tenant's requests")
			dave := tool.WithPrincipal(ctx, tool.Principal{ID: "dave", Tenant: "globex"})
			require.NoError(t, q.ResolveContext(dave, globex.ID, approval.Denied("dave", "no")))
			assert.Equal(t, "deny by dave", <-asked["globex"])
			require.NoError(t, q.ResolvePending(carol, byTenant["acme"], approval.Denied("carol", "no")))
			assert.Equal(t, "deny by carol", <-asked["acme"])
		})
	}
}
