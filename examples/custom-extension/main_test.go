package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCustomExtensionOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	for _, want := range []string{
		`globex gina  report -> succeeded "report on churn" budget=map[cost:5 limit:6 spent:6 tenant:globex]`,
		`globex gina  search -> denied [policy_denied] budget: tenant "globex" has spent 6 of 6 units and search costs 1; do not retry: tell the user`,
		`acme   bob   search -> succeeded "3 hits for refunds" budget=map[cost:1 limit:10 spent:7 tenant:acme]`,
		`tenant acme: spent 7 of 10 units`,
		`tenant globex: spent 6 of 6 units`,
	} {
		assert.Contains(t, got, want)
	}
}

func call(ctx context.Context, ex *executor.Executor, tenant, name string) *tool.Result {
	ctx = tool.WithPrincipal(ctx, tool.Principal{ID: "u", Tenant: tenant})
	res, _ := ex.Execute(ctx, tool.Call{Name: name, Args: json.RawMessage(`{"query":"x"}`)})
	return res
}

func TestBudgetNeverOverspendsUnderConcurrency(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	budget := NewBudget(10)
	ex := executor.MustNew(reg, executor.WithExtensions(budget))

	const n = 40
	var wg sync.WaitGroup
	statuses := make([]tool.Status, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = call(context.Background(), ex, "acme", "search").Status
		}()
	}
	wg.Wait()
	count := map[tool.Status]int{}
	for _, s := range statuses {
		count[s]++
	}
	assert.Equal(t, 10, count[tool.StatusSucceeded])
	assert.Equal(t, n-10, count[tool.StatusDenied])
	spent, limit := budget.Spent("acme")
	assert.Equal(t, 10, spent)
	assert.Equal(t, 10, limit)
}

func TestBudgetIsPerTenant(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	ex := executor.MustNew(reg, executor.WithExtensions(NewBudget(2, WithTenantLimit("big", 3))))
	for i := range 3 {
		assert.Equal(t, i < 2, call(context.Background(), ex, "small", "search").OK(), "small call %d", i+1)
		assert.True(t, call(context.Background(), ex, "big", "search").OK(), "big call %d", i+1)
	}
	res := call(context.Background(), ex, "big", "search")
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
}

func TestBudgetRefundsCallsDeniedFurtherIn(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	budget := NewBudget(1)
	deny := true
	inner := extension.Func("gate", PriorityBudget+10, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if deny {
				return tool.Fail(&req.Call, tool.CodeApprovalDenied, "no")
			}
			return next(ctx, req)
		}
	})
	ex := executor.MustNew(reg, executor.WithExtensions(budget, inner))
	assert.Equal(t, tool.StatusDenied, call(context.Background(), ex, "acme", "search").Status)
	spent, _ := budget.Spent("acme")
	assert.Equal(t, 0, spent, "a call that never ran costs nothing")
	deny = false
	assert.True(t, call(context.Background(), ex, "acme", "search").OK(), "the refunded unit is still there")
}

func TestBudgetDeniesCallsWithoutTenant(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	ex := executor.MustNew(reg, executor.WithExtensions(NewBudget(5)))
	res, _ := ex.Execute(context.Background(), tool.Call{Name: "search", Args: json.RawMessage(`{"query":"x"}`)})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
	// The model is told what it can do; the developer's fix is the cause.
	assert.Equal(t, `tool "search" is billed to an organisation, and this conversation has none; do not retry: tell the user`, res.Error.Message)
	assert.NotContains(t, fmt.Sprint(res.Error), "tool.WithPrincipal", "what the model is sent names no Go API")
	assert.ErrorContains(t, res.Error.Err, "set Principal.Tenant")
}

// A budget that could never be right is refused by executor.New, before
// any call.
func TestBadBudgetRefusedByNew(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	_, err = executor.New(reg, executor.WithExtensions(NewBudget(-1, WithTenantLimit("acme", -5))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "budget: the default is -1 units")
	assert.Contains(t, err.Error(), `WithTenantLimit("acme", -5)`)
}
