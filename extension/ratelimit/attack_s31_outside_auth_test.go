package ratelimit_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A host re-places the rate limiter before auth (to turn a flood away
// before auth spends work on it) with a limit on a tool, which every
// principal shares. Bob may not call charge: his calls are answered as a
// name no tool has, but they went through the limiter first and took the
// tool's tokens, so alice, who may call it, was refused rate_limited: a
// principal with no access to a tool spends its budget for everyone.
// executor.New now refuses a limiter with limits per tool placed outside
// an authorizer.
func TestAttackS31OuterLimiterSpendsNoOnesToolBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  ratelimit.Option
	}{
		{"PerTool", ratelimit.PerTool("charge", "3/hour")},
		{"EachTool", ratelimit.EachTool("3/hour")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := registry.New()
			reg.MustRegister(tool.Func("charge", "Charge a card", func(context.Context, struct{}) (string, error) { return "charged", nil }))
			a := auth.New(auth.Allow("ops", "charge"))
			lim := extension.WithPriority(ratelimit.New(tc.opt), extension.PriorityAuth-50)
			ex, err := executor.New(reg, executor.WithExtensions(a, lim))
			if err != nil {
				assert.ErrorContains(t, err, "outside auth")
				assert.ErrorContains(t, err, "leave the limiter at its priority")
				return
			}
			ctx := context.Background()
			for i := range 3 {
				bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
				res, _ := ex.Execute(ctx, tool.Call{ID: "b" + strconv.Itoa(i), Name: "charge", Args: json.RawMessage(`{}`), Principal: bob})
				require.NotNil(t, res.Error)
				require.Equal(t, tool.CodeNotFound, res.Error.Code, "bob is answered as for a name no tool has")
			}
			alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
			res, err := ex.Execute(ctx, tool.Call{ID: "a1", Name: "charge", Args: json.RawMessage(`{}`), Principal: alice})
			assert.NoError(t, err, "alice's first call of the day was refused after bob's calls, which auth refused")
			assert.True(t, res.OK())
		})
	}
}

// A tool's own limit (Spec.RateLimitPerHour), which a limiter applies with
// no configuration, is shared too, and executor.New cannot see it in the
// chain's order: a limiter outside auth took its tokens for bob's refused
// calls, and alice, who may call the tool, was refused. A call auth
// refuses gives the tool's tokens back; bob's own buckets keep theirs.
func TestAttackS31OuterLimiterGivesBackASpecLimitsToken(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("charge", "Charge a card", func(context.Context, struct{}) (string, error) { return "charged", nil },
		tool.WithRateLimit(3)))
	lim := ratelimit.New(ratelimit.PerPrincipal("5/hour"))
	ex, err := executor.New(reg, executor.WithExtensions(auth.New(auth.Allow("ops", "charge")), extension.WithPriority(lim, extension.PriorityAuth-50)))
	require.NoError(t, err, "a limiter with limits per principal only may run outside auth")
	ctx := context.Background()
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	for i := range 5 {
		res, _ := ex.Execute(ctx, tool.Call{ID: "b" + strconv.Itoa(i), Name: "charge", Args: json.RawMessage(`{}`), Principal: bob})
		require.Equal(t, tool.CodeNotFound, res.Error.Code, "bob is answered as for a name no tool has")
	}
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	for i := range 3 {
		res, err := ex.Execute(ctx, tool.Call{ID: "a" + strconv.Itoa(i), Name: "charge", Args: json.RawMessage(`{}`), Principal: alice})
		require.NoError(t, err, "alice's call #%d was refused after bob's calls, which auth refused", i+1)
		assert.True(t, res.OK())
	}
	res, _ := ex.Execute(ctx, tool.Call{ID: "a4", Name: "charge", Args: json.RawMessage(`{}`), Principal: alice})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeRateLimited, res.Error.Code, "the tool's limit still holds for those who may call it")
	// Bob's own budget (5/hour per principal) was spent by his refused
	// calls: the limiter outside auth still turns his flood away.
	res, _ = ex.Execute(ctx, tool.Call{ID: "b6", Name: "charge", Args: json.RawMessage(`{}`), Principal: bob})
	require.NotNil(t, res.Error)
	assert.ErrorIs(t, res.Err(), tool.ErrRateLimited, "bob's sixth call is refused by his own limit (the cause)")
}

// Placed at its priority, inside auth, the same limiter counts only the
// calls auth lets through: bob's refused calls take nothing.
func TestAttackS31InnerLimiterCountsOnlyAuthorisedCalls(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("charge", "Charge a card", func(context.Context, struct{}) (string, error) { return "charged", nil }))
	ex, err := executor.New(reg, executor.WithExtensions(ratelimit.New(ratelimit.PerTool("charge", "3/hour")), auth.New(auth.Allow("ops", "charge"))))
	require.NoError(t, err)
	ctx := context.Background()
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	for i := range 10 {
		res, _ := ex.Execute(ctx, tool.Call{ID: "b" + strconv.Itoa(i), Name: "charge", Args: json.RawMessage(`{}`), Principal: bob})
		require.Equal(t, tool.CodeNotFound, res.Error.Code)
	}
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	for i := range 3 {
		res, err := ex.Execute(ctx, tool.Call{ID: "a" + strconv.Itoa(i), Name: "charge", Args: json.RawMessage(`{}`), Principal: alice})
		require.NoError(t, err)
		assert.True(t, res.OK())
	}
	res, _ := ex.Execute(ctx, tool.Call{ID: "a4", Name: "charge", Args: json.RawMessage(`{}`), Principal: alice})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeRateLimited, res.Error.Code, "the limit still holds for those who may call")
}

// A limiter with limits per principal only may run outside auth: a
// principal's refused calls take only its own tokens.
func TestAttackS31OuterPerPrincipalLimiterIsAllowed(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("charge", "Charge a card", func(context.Context, struct{}) (string, error) { return "charged", nil }))
	lim := extension.WithPriority(ratelimit.New(ratelimit.PerPrincipal("3/hour"), ratelimit.PerToolPrincipal("3/hour")), extension.PriorityAuth-50)
	ex, err := executor.New(reg, executor.WithExtensions(auth.New(auth.Allow("ops", "charge")), lim))
	require.NoError(t, err)
	ctx := context.Background()
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	for i := range 5 {
		_, _ = ex.Execute(ctx, tool.Call{ID: "b" + strconv.Itoa(i), Name: "charge", Args: json.RawMessage(`{}`), Principal: bob})
	}
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	res, err := ex.Execute(ctx, tool.Call{ID: "a1", Name: "charge", Args: json.RawMessage(`{}`), Principal: alice})
	require.NoError(t, err)
	assert.True(t, res.OK())
}
