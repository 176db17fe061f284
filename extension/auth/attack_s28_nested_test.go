package auth_test

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
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The executor runs a call for the principal the call names, not the one
// its caller's context carries: a host signed in as an operator runs a
// call for bob (Execute(opsCtx, Call{Principal: bob}), Submit,
// ExecuteBatch). The backend's context carries bob; an extension's carried
// the caller's context as it was. An extension that runs other calls with
// the context it was given (the executor's doc: "a backend or an extension
// may run other calls ... an inner call that names none acts for" the outer
// call's principal), here one that fetches what a call's "ref" argument
// names before the call runs, ran them as the operator: bob's lookup made
// the admin-only read_secret run and handed its text to bob. The auth
// extension now runs the rest of the chain acting for the principal it
// authorised (tool.ActingFor), so sub-calls made inside it act for bob.
func TestAttackS28ExtensionSubCallsActForTheCallsPrincipal(t *testing.T) {
	var ex *executor.Executor
	var mu sync.Mutex
	var readBy []string
	reg := registry.New()
	reg.MustRegister(
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
	// prefetch runs the tool a call's "ref" names, with the context it was
	// given, and puts the fetched text beside the call's result.
	prefetch := extension.Func("prefetch", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			var args struct {
				Ref string `json:"ref"`
			}
			if req.Call.Name != "lookup" || json.Unmarshal(req.Call.Args, &args) != nil || args.Ref == "" {
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
	var err error
	ex, err = executor.New(reg, executor.WithExtensions(prefetch, auth.New(
		auth.Allow("admin", "read_secret"), auth.Allow(auth.AnyRole, "lookup"))))
	require.NoError(t, err)

	ops := tool.WithPrincipal(context.Background(), tool.Principal{ID: "ops", Tenant: "ops", Roles: []string{"admin"}})
	bob := tool.Principal{ID: "bob", Tenant: "acme", Roles: []string{"dev"}}
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

	// The operator's own call still reaches it.
	res, err := ex.Execute(ops, tool.Call{ID: "c3", Name: "lookup", Args: json.RawMessage(`{"ref":"read_secret"}`)})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "DEPLOY-KEY")
}
