package auth_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Who a call acts for cannot be claimed from where a model or a client
// writes: a "principal" in the arguments is an argument, the caller's
// context does not lend its roles to a call that names its own principal
// (at any entry point: Execute, ExecuteBatch, Submit), a tenant grants
// nothing (rules do not read it), a role named twice grants what it grants
// once, and roles without an ID are nobody's. These held; they are pinned,
// one principal trick a row.
func TestAttackS28PrincipalTricksGrantNothing(t *testing.T) {
	var ranFor []tool.Principal
	reg := registry.New()
	reg.MustRegister(tool.Func("drop_tables", "Drop the tables", func(ctx context.Context, in struct {
		Principal *tool.Principal `json:"principal,omitempty"`
	}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		ranFor = append(ranFor, p)
		return "dropped", nil
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(auth.New(auth.Allow("admin", "drop_tables"), auth.AllowAnonymous())))
	admin := tool.WithPrincipal(context.Background(), tool.Principal{ID: "root", Tenant: "ops", Roles: []string{"admin"}})
	bob := tool.Principal{ID: "bob", Tenant: "ops", Roles: []string{"dev", "dev"}}
	drop := func(p tool.Principal, args string) tool.Call {
		return tool.Call{ID: "c1", Name: "drop_tables", Args: json.RawMessage(args), Principal: p}
	}
	for _, tc := range []struct {
		name string
		run  func() *tool.Result
	}{
		{"a principal in the arguments", func() *tool.Result {
			res, _ := ex.Execute(context.Background(), drop(bob, `{"principal":{"id":"root","roles":["admin"]}}`))
			return res
		}},
		{"an admin's context, Execute", func() *tool.Result {
			res, _ := ex.Execute(admin, drop(bob, `{}`))
			return res
		}},
		{"an admin's context, ExecuteBatch", func() *tool.Result {
			return ex.ExecuteBatch(admin, []tool.Call{drop(bob, `{}`)})[0]
		}},
		{"an admin's context, Submit", func() *tool.Result {
			id, err := ex.Submit(admin, drop(bob, `{}`))
			require.NoError(t, err)
			res, _ := ex.Wait(context.Background(), id)
			return res
		}},
		{"the admin's tenant and an empty one", func() *tool.Result {
			res, _ := ex.Execute(context.Background(), drop(tool.Principal{ID: "bob", Tenant: ""}, `{}`))
			return res
		}},
		{"roles with no ID", func() *tool.Result {
			res, _ := ex.Execute(context.Background(), drop(tool.Principal{Tenant: "ops", Roles: []string{"admin"}}, `{}`))
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ranFor = nil
			res := tc.run()
			require.NotNil(t, res)
			if assert.NotNil(t, res.Error, "the call ran for %v", ranFor) {
				assert.Equal(t, tool.CodeUnauthorized, refused(t, res).Error.Code)
			}
			assert.Empty(t, ranFor)
		})
	}

	// The admin's own call, from the context, runs as the admin.
	res, err := ex.Execute(admin, drop(tool.Principal{}, `{}`))
	require.NoError(t, err)
	assert.True(t, res.OK())
	require.Len(t, ranFor, 1)
	assert.Equal(t, "root", ranFor[0].ID)
}
