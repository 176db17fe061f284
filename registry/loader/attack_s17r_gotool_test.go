package loader_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An attack on 81e7731 (a go tool's file may tighten its function's Go
// definition, not loosen it) through the keys it did not check. The file
// could still take a function whose author declared its secret argument,
// the modes it may run in, its rate limit and its category, and register
// it under another name with secrets: [] (the token written whole into
// logs, audit records and events), allowed_modes: [] or one more mode (run
// in lockdown), rate_limit_per_hour: 0 (no limit) or more, and another
// category (the one an auth rule grants a role by Categories).
func TestAttackS17RGoToolMetadataLoosensThroughOtherKeys(t *testing.T) {
	type in struct {
		Repo  string `json:"repo"`
		Token string `json:"token" toolbelt:"secret"`
	}
	push := tool.Func("push", "Pushes to the remote", func(context.Context, in) (string, error) { return "ok", nil },
		tool.WithModes(tool.ModeNormal), tool.WithRateLimit(10), tool.WithCategory("deploy"))
	require.Equal(t, []string{"token"}, push.Spec().Secrets, "precondition: tool.Func reads the secret tag")
	ld := &loader.Loader{Funcs: loader.FuncTable(push)}
	file := func(metadata string) string {
		return "tools:\n  - name: sync\n    description: Syncs\n    type: go\n    implementation: {function: push}\n    metadata: " + metadata + "\n"
	}
	for _, c := range []struct{ metadata, want string }{
		{"{secrets: []}", `t.yaml:6: tool "sync": metadata.secrets leaves out "token", but go function "push" keeps it secret: a tool file may tighten what the Go definition says, not loosen it`},
		{"{secrets: [repo]}", `t.yaml:6: tool "sync": metadata.secrets leaves out "token", but go function "push" keeps it secret: a tool file may tighten what the Go definition says, not loosen it`},
		{"{allowed_modes: []}", `t.yaml:6: tool "sync": metadata.allowed_modes allows every mode, but go function "push" runs in normal only: a tool file may tighten what the Go definition says, not loosen it`},
		{"{allowed_modes: [normal, lockdown]}", `t.yaml:6: tool "sync": metadata.allowed_modes allows lockdown, but go function "push" runs in normal only: a tool file may tighten what the Go definition says, not loosen it`},
		{"{rate_limit_per_hour: 0}", `t.yaml:6: tool "sync": metadata.rate_limit_per_hour is 0 (no limit), but go function "push" allows 10 an hour: a tool file may tighten what the Go definition says, not loosen it`},
		{"{rate_limit_per_hour: 1000}", `t.yaml:6: tool "sync": metadata.rate_limit_per_hour is 1000, but go function "push" allows 10 an hour: a tool file may tighten what the Go definition says, not loosen it`},
		{"{category: read}", `t.yaml:6: tool "sync": metadata.category is "read", but go function "push" is of category "deploy" (set it in Go: tool.WithCategory): a tool file may tighten what the Go definition says, not loosen it`},
	} {
		reg := registry.New()
		err := ld.Load(reg, strings.NewReader(file(c.metadata)), "t.yaml")
		require.Error(t, err, "%s loosened the function", c.metadata)
		assert.Equal(t, []string{c.want}, problems(t, err), c.metadata)
		assert.Empty(t, reg.Names())
	}

	// Tightening stays the file's: more secrets, fewer modes, a lower
	// limit, the same category.
	reg := registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader(file("{secrets: [token, repo], allowed_modes: [normal], rate_limit_per_hour: 5, category: deploy}")), "t.yaml"))
	e, ok := reg.Lookup("sync")
	require.True(t, ok)
	assert.Equal(t, []string{"token", "repo"}, e.Spec.Secrets)
	assert.Equal(t, 5, e.Spec.RateLimitPerHour)

	// What the Go definition left unsaid stays the file's to say, where
	// saying it tightens (not a category: TestAttackS18GoToolFileLowersAnUnsetRiskOrGivesACategory).
	plain := tool.Func("sum", "Adds", func(context.Context, struct{}) (int, error) { return 0, nil })
	ld = &loader.Loader{Funcs: loader.FuncTable(plain)}
	reg = registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader("tools:\n  - name: sum\n    type: go\n    metadata: {allowed_modes: [normal], rate_limit_per_hour: 100, secrets: []}\n"), "t.yaml"))
	e, ok = reg.Lookup("sum")
	require.True(t, ok)
	assert.Equal(t, []string{"normal"}, e.Spec.AllowedModes)
	assert.Equal(t, 100, e.Spec.RateLimitPerHour)
}
