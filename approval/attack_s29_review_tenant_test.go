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

// A decider whose principal's tenant is spelt like another's (case,
// blanks, a NUL, an invisible character, a Cyrillic letter), and one of a
// tenant facing a request of no tenant, neither lists, is handed nor
// decides it, by id or by a Pending whose request claims its tenant; the
// refusal reads as for an unknown id. Tenants are compared byte for byte,
// as the request's id hashes them. Guard test: the rule held on the code
// as it is (72ca040).
func TestAttackS29ReviewLookalikeTenantsDecideNothingOfAnother(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for name, store := range map[string]approval.Store{
		"memory":     approval.NewMemoryStore(),
		"store only": storeOnly{approval.NewMemoryStore()},
	} {
		t.Run(name, func(t *testing.T) {
			q := approval.NewQueue(approval.QueueStore(store), approval.QueueTimeout(time.Minute))
			waiting := map[string]approval.Pending{} // by the tenant that asks
			for _, tenant := range []string{"acme", ""} {
				go func() {
					p := tool.Principal{ID: "alice", Tenant: tenant}
					_, _ = q.Approve(ctx, approval.Request{Principal: p, Call: tool.Call{ID: "c1", Name: "pay", Principal: p,
						Args: json.RawMessage(`{"to":"account of ` + tenant + `"}`)}})
				}()
				p, err := q.Next(ctx)
				require.NoError(t, err)
				waiting[p.Request.Principal.Tenant] = p
			}
			require.Len(t, waiting, 2)

			for _, spelt := range []string{"Acme", "ACME", "acme ", " acme", "acme\x00", "acme\u200b", "\u0430cme", "acmе", "acme\n"} {
				dc := tool.WithPrincipal(ctx, tool.Principal{ID: "mallory", Tenant: spelt})
				list, err := q.PendingContext(dc)
				require.NoError(t, err)
				assert.Empty(t, list, "tenant %q was shown another's requests", spelt)
				next, cancelNext := context.WithCancel(dc)
				cancelNext()
				_, err = approval.NewQueue(approval.QueueStore(store)).Next(next)
				assert.ErrorIs(t, err, context.Canceled, "tenant %q was handed another's request", spelt)
				for tenant, p := range waiting {
					err := q.ResolveContext(dc, p.ID, approval.Approved("mallory"))
					require.ErrorIs(t, err, approval.ErrNotPending, "tenant %q decided %q's request", spelt, tenant)
					unknown := q.ResolveContext(dc, "apr-unknown", approval.Approved("mallory"))
					assert.Equal(t, unknown.Error(), strings.ReplaceAll(err.Error(), p.ID, "apr-unknown"))
					forged := p
					forged.Request.Principal.Tenant = spelt
					forged.Request.Call.Principal.Tenant = spelt
					require.ErrorIs(t, q.ResolvePending(dc, forged, approval.Approved("mallory")), approval.ErrNotPending,
						"tenant %q decided %q's request with a Pending claiming its tenant", spelt, tenant)
				}
			}

			// acme's person does not see, nor decide, the request of no tenant.
			carol := tool.WithPrincipal(ctx, tool.Principal{ID: "carol", Tenant: "acme"})
			list, err := q.PendingContext(carol)
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, "acme", list[0].Request.Principal.Tenant)
			require.ErrorIs(t, q.ResolveContext(carol, waiting[""].ID, approval.Approved("carol")), approval.ErrNotPending)

			// Both still wait: nothing above decided either.
			all, err := q.PendingContext(ctx)
			require.NoError(t, err)
			assert.Len(t, all, 2)
			for _, p := range all {
				require.NoError(t, q.ResolvePending(ctx, p, approval.Denied("ops", "end of test")))
			}
		})
	}
}
