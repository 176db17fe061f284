package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An anonymous job run by a worker whose context carries a principal (a
// store started under an operator's identity) must not be authorised as
// that worker: the auth extension takes the context's principal when the
// call names none, so the job ran with the worker's roles.
func TestAttackAnonymousJobIsNotAuthorisedAsItsWorker(t *testing.T) {
	store := &lentStore{}
	var seen tool.Principal
	reg := scRegistry(t, tool.Func("drop_tables", "Drop the tables", func(ctx context.Context, _ struct{}) (string, error) {
		seen, _ = tool.PrincipalFrom(ctx)
		return "dropped", nil
	}))
	var extSaw []tool.Principal
	peek := extension.Func("peek", extension.PriorityAuth+1, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			p, _ := tool.PrincipalFrom(ctx)
			extSaw = append(extSaw, req.Call.Principal, p)
			return next(ctx, req)
		}
	})
	executor.MustNew(reg, executor.WithJobStore(store),
		executor.WithExtensions(auth.New(auth.Allow("admin", "drop_tables")), peek))
	worker := tool.WithPrincipal(context.Background(), tool.Principal{ID: "worker", Tenant: "ops", Roles: []string{"admin"}})
	res := store.run.Run(worker, "job-1", tool.Call{ID: "c1", Name: "drop_tables", Args: []byte(`{}`)})
	require.NotNil(t, res)
	assert.False(t, res.OK(), "an anonymous job ran as its worker: %q (tool saw %+v, extensions saw %+v)", res.Text(), seen, extSaw)
	if assert.NotNil(t, res.Error) {
		// Refused by auth, answered as a name no tool has; the rule stays in the metadata.
		assert.Equal(t, tool.CodeNotFound, res.Error.Code)
		assert.ErrorIs(t, res.Err(), tool.ErrUnauthorized)
		assert.Equal(t, auth.RuleRequirePrincipal, res.Metadata[auth.MetaRule])
	}
	assert.Empty(t, seen.ID)

	// The job's own principal is the one it runs as.
	res = store.run.Run(worker, "job-2", tool.Call{ID: "c2", Name: "drop_tables", Args: []byte(`{}`),
		Principal: tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"admin"}}})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "alice", seen.ID)
}
