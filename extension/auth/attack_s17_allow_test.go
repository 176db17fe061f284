package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// auth.Allow(role, tools...) reads as a list of what the role may call,
// but with no tools it built a rule with neither Tools nor Categories,
// which covers every tool: a host that grants each role the tools its
// configuration lists (Allow("intern", cfg.Intern...)) gave a role whose
// list is empty every tool, delete_repo included. An empty list is now a
// configuration mistake (New refuses it, the extension fails closed); a
// rule for every tool is written as one (WithRules(Rule{Role: ...})).
func TestAttackS17AllowWithNoToolsGrantsNothing(t *testing.T) {
	var internTools []string // the configuration lists none
	intern := tool.Principal{ID: "ian", Roles: []string{"intern"}}
	f := newFixture(t)
	a := auth.New(auth.Allow("admin", "delete_repo"), auth.Allow("intern", internTools...), auth.AllowUnlisted())
	ex, err := executor.New(f.reg, executor.WithExtensions(a))
	if err == nil {
		res, _ := ex.Execute(context.Background(), call("delete_repo", intern))
		t.Logf("the intern called delete_repo: %v", res.Status)
	}
	require.Error(t, err, "an Allow with no tools was taken")
	assert.Contains(t, err.Error(), `auth: Allow("intern") names no tools`)
	assert.Contains(t, err.Error(), `auth.WithRules(auth.Rule{Role: "intern"})`, "the error names the way to grant every tool on purpose")

	// Alone (no executor), it fails closed.
	_, err = a.Authorize(intern, &tool.Spec{Name: "delete_repo"})
	require.Error(t, err)
	assert.Equal(t, tool.CodeInternal, tool.AsError(err).Code)
	assert.Zero(t, f.runs["delete_repo"].Load())

	// A rule for every tool, written as one, still is.
	a = auth.New(auth.WithRules(auth.Rule{Role: "admin"}))
	require.NoError(t, a.Check())
	_, err = a.Authorize(alice, &tool.Spec{Name: "delete_repo"})
	assert.NoError(t, err)
}
