package cache_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An executor without an approval extension refuses a call that needs a
// person (a tool with WithApproval), just before its backend runs: nobody
// can be asked there. The cache sits in front of that refusal. One cache
// shared by two executors (one per front end: an MCP server that asks a
// person through approvalgate, and a batch job with no approver) answered
// the second executor's call from the result the first one's person had
// approved, so the read ran unasked where nobody can approve it.
func TestAttackS28SharedCacheAnswersACallThatNeedsAPersonWhereNobodyCanBeAsked(t *testing.T) {
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("payroll", "Read the payroll of a team", func(_ context.Context, in struct {
		Team string `json:"team"`
	}) (string, error) {
		runs.Add(1)
		return "salaries of " + in.Team, nil
	}, tool.ReadOnly(), tool.WithApproval()))
	shared := cache.New()
	approve := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Approved("the manager"), nil
	})
	gate := approvalgate.New(approve, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk)))
	asking, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard(), shared))
	require.NoError(t, err)
	unasking, err := executor.New(reg, executor.WithExtensions(shared))
	require.NoError(t, err)

	alice := tool.Principal{ID: "alice"}
	call := tool.Call{ID: "c1", Name: "payroll", Args: json.RawMessage(`{"team":"core"}`), Principal: alice}
	res, _ := asking.Execute(context.Background(), call)
	require.True(t, res.OK(), "the approved call runs: %+v", res.Error)
	require.Equal(t, int64(1), runs.Load())

	call.ID = "c2"
	res, _ = unasking.Execute(context.Background(), call)
	require.NotNil(t, res.Error, "a call that needs a person, where nobody can be asked, must be refused, not answered from the cache: got %q", res.Output)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Equal(t, int64(1), runs.Load())
}
