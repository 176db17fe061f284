package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A backend that runs other calls through the executor with the context it
// was given (a sub-agent) names no principal for them: they act for the
// context's. A Go func tool's context carries its call's principal; any
// other backend's (tool.New, a shell, an MCP tool) carried the caller's
// context as it was. So a host that runs a call for bob from a request
// signed in as an admin (Execute(adminCtx, Call{Principal: bob}), or
// Submit), gave the sub-calls of bob's raw tool the admin's roles: bob's
// "delegate" ran the admin-only drop_tables. And a job run by a shared
// store's worker, whose principal is hidden from the chain, gave them
// nobody's. A backend's context now carries the principal its call acts
// for, whatever the backend.
func TestAttackS17SubCallsActForTheOuterCallsPrincipal(t *testing.T) {
	var ex *executor.Executor
	var dropped []tool.Principal
	var sub *tool.Result
	reg := scRegistry(t,
		tool.Func("drop_tables", "Drop the tables", func(ctx context.Context, _ struct{}) (string, error) {
			p, _ := tool.PrincipalFrom(ctx)
			dropped = append(dropped, p)
			return "dropped", nil
		}),
		tool.New("delegate", "Run drop_tables as a sub-call", func(ctx context.Context, call tool.Call) (*tool.Result, error) {
			sub, _ = ex.Execute(ctx, tool.Call{ID: call.ID + "/sub", Name: "drop_tables", Args: json.RawMessage(`{}`)})
			return &tool.Result{Content: []tool.Content{tool.TextContent("sub-call: " + string(sub.Status))}}, nil
		}),
	)
	store := &lentStore{}
	var err error
	ex, err = executor.New(reg, executor.WithJobStore(store), executor.WithExtensions(auth.New(
		auth.Allow("admin", "drop_tables"), auth.Allow(auth.AnyRole, "delegate"))))
	require.NoError(t, err)

	admin := tool.WithPrincipal(context.Background(), tool.Principal{ID: "root", Tenant: "ops", Roles: []string{"admin"}})
	bob := tool.Principal{ID: "bob", Tenant: "acme", Roles: []string{"dev"}}
	alice := tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"admin"}}
	delegate := func(p tool.Principal) tool.Call {
		return tool.Call{ID: "c1", Name: "delegate", Args: json.RawMessage(`{}`), Principal: p}
	}
	for _, tc := range []struct {
		name string
		run  func() *tool.Result
		want *tool.Principal // nil: the sub-call is refused as bob
	}{
		{"Execute for bob from an admin's context", func() *tool.Result {
			res, _ := ex.Execute(admin, delegate(bob))
			return res
		}, nil},
		{"ExecuteBatch for bob from an admin's context", func() *tool.Result {
			return ex.ExecuteBatch(admin, []tool.Call{delegate(bob)})[0]
		}, nil},
		{"a job of bob's run by an admin worker", func() *tool.Result {
			return store.run.Run(admin, "job-1", delegate(bob))
		}, nil},
		{"a job of alice's run by a worker", func() *tool.Result {
			worker := tool.WithPrincipal(context.Background(), tool.Principal{ID: "worker"})
			return store.run.Run(worker, "job-2", delegate(alice))
		}, &alice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dropped, sub = nil, nil
			res := tc.run()
			require.True(t, res.OK(), "%v", res.Error)
			require.NotNil(t, sub, "the sub-call ran")
			if tc.want == nil {
				assert.Empty(t, dropped, "bob's sub-call acted for another: %s", res.Text())
				if assert.NotNil(t, sub.Error, "bob's sub-call of an admin-only tool succeeded") {
					// Refused by auth, answered as a tool bob has not; auth's refusal is the cause.
					assert.Equal(t, tool.CodeNotFound, sub.Error.Code)
					assert.ErrorContains(t, sub.Error.Err, `principal "bob"`, "the sub-call acts for bob")
				}
				return
			}
			assert.Nil(t, sub.Error, "the sub-call did not act for the job's principal")
			if assert.Len(t, dropped, 1) {
				assert.Equal(t, *tc.want, dropped[0])
			}
		})
	}
}
