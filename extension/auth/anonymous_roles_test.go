package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// AllowAnonymous lets a call without a principal ID through "as a principal
// with no roles": roles that come with no ID are claimed by nobody, and
// grant nothing. Before, a call with Principal{Roles: ["admin"]} and no ID
// ran the admin-only delete_repo.
func TestAnonymousCallHoldsNoRoles(t *testing.T) {
	f := newFixture(t)
	a := auth.New(auth.AllowAnonymous(), auth.Allow("admin", "delete_repo"), auth.Allow(auth.AnyRole, "read_file"))
	ex := executor.MustNew(f.reg, executor.WithExtensions(a))

	res, err := ex.Execute(context.Background(), call("delete_repo", tool.Principal{Roles: []string{"admin"}, Tenant: "acme"}))
	assert.Error(t, err)
	if assert.NotNil(t, res.Error) {
		res = refused(t, res)
		assert.Equal(t, tool.CodeUnauthorized, res.Error.Code)
		assert.Contains(t, res.Error.Message, `principal "anonymous" (no roles)`)
	}
	assert.Zero(t, f.runs["delete_repo"].Load(), "an anonymous call claimed the admin role")

	rule, err := a.Authorize(tool.Principal{Roles: []string{"admin"}}, &tool.Spec{Name: "delete_repo"})
	assert.Error(t, err, "Authorize alone grants nothing to roles without an ID")
	assert.Equal(t, "role:admin", rule)

	res, err = ex.Execute(context.Background(), call("read_file", tool.Principal{Roles: []string{"admin"}}))
	assert.NoError(t, err, "AnyRole rules still admit anonymous calls")
	assert.Nil(t, res.Error)
}
