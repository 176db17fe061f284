package executor_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// "Calls inside calls" (the package doc): an inner call made with the
// context an extension was given acts for the principal the outer call
// acts for. Only the extensions inside auth (which put the call's
// principal in their context) and the backend had that context; one
// placed before auth (logging, audit, a user's at a priority below 500)
// had the caller's: a host signed in as ops running bob's call
// (Execute(opsCtx, Call{Principal: bob}), ExecuteBatch, Submit) had the
// extension's sub-call run the admin-only read_secret as ops, and bob was
// handed the key. And an extension that sets whom the call acts for (here
// from its session, before approval as approvalgate asks) left the
// extensions after it acting for the caller's principal. Every layer of
// the chain now runs acting for the principal of the call it is handed.
func TestAttackS28SubCallsOfExtensionsBeforeAuthActForTheCall(t *testing.T) {
	var ex *executor.Executor
	var mu sync.Mutex
	var readBy []string
	reg := scRegistry(t,
		tool.Func("read_secret", "Read the deploy key", func(ctx context.Context, _ struct{}) (string, error) {
			p, _ := tool.PrincipalFrom(ctx)
			mu.Lock()
			readBy = append(readBy, p.ID)
			mu.Unlock()
			return "DEPLOY-KEY", nil
		}, tool.ReadOnly()),
		tool.Func("lookup", "Look a reference up", func(context.Context, struct {
			Ref string `json:"ref"`
		}) (string, error) {
			return "looked up", nil
		}, tool.ReadOnly()),
	)
	// prefetch, before auth, runs the tool a call's "ref" names with the
	// context it was given and puts the text beside the call's result.
	prefetch := extension.Func("prefetch", extension.PriorityAudit+50, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			var args struct {
				Ref string `json:"ref"`
			}
			if json.Unmarshal(req.Call.Args, &args) != nil || args.Ref == "" {
				return next(ctx, req)
			}
			sub, _ := ex.Execute(ctx, tool.Call{ID: req.Call.ID + "/ref", Name: args.Ref, Args: json.RawMessage(`{}`)})
			res := next(ctx, req)
			if sub.OK() {
				res.Content = append(res.Content, tool.TextContent("ref: "+sub.Text()))
			}
			return res
		}
	})
	bob := tool.Principal{ID: "bob", Tenant: "acme", Roles: []string{"dev"}}
	// sessions names the principal of a session, as a host's extension may.
	sessions := extension.Func("sessions", extension.PriorityLogging+50, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.Session == "bob's" {
				req.Call.Principal = bob
			}
			return next(ctx, req)
		}
	})
	var err error
	ex, err = executor.New(reg, executor.WithExtensions(sessions, prefetch, auth.New(
		auth.Allow("admin", "read_secret"), auth.Allow(auth.AnyRole, "lookup"))))
	require.NoError(t, err)

	ops := tool.WithPrincipal(context.Background(), tool.Principal{ID: "ops", Tenant: "ops", Roles: []string{"admin"}})
	lookup := tool.Call{ID: "c1", Name: "lookup", Args: json.RawMessage(`{"ref":"read_secret"}`), Principal: bob}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T) *tool.Result
	}{
		{"Execute", func(t *testing.T) *tool.Result {
			res, _ := ex.Execute(ops, lookup)
			return res
		}},
		{"ExecuteBatch", func(t *testing.T) *tool.Result {
			return ex.ExecuteBatch(ops, []tool.Call{lookup, {ID: "c2", Name: "lookup", Args: json.RawMessage(`{}`), Principal: bob}})[0]
		}},
		{"Submit", func(t *testing.T) *tool.Result {
			id, err := ex.Submit(ops, lookup)
			require.NoError(t, err)
			res, _ := ex.Wait(context.Background(), id)
			require.NotNil(t, res)
			return res
		}},
		{"a principal set by an extension", func(t *testing.T) *tool.Result {
			res, _ := ex.Execute(ops, tool.Call{ID: "c3", Name: "lookup", Args: json.RawMessage(`{"ref":"read_secret"}`), Session: "bob's"})
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			readBy = nil
			mu.Unlock()
			res := tc.run(t)
			require.True(t, res.OK(), "%v", res.Error)
			assert.NotContains(t, res.Text(), "DEPLOY-KEY", "bob's call was handed the admin-only secret")
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, readBy, "read_secret ran for bob's call, acting for %v", readBy)
		})
	}

	// The operator's own call still reaches it, acting for ops.
	readBy = nil
	res, err := ex.Execute(ops, tool.Call{ID: "c4", Name: "lookup", Args: json.RawMessage(`{"ref":"read_secret"}`)})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "DEPLOY-KEY")
	assert.Equal(t, []string{"ops"}, readBy)
}
