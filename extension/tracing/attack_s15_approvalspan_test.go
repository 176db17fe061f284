package tracing_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call's approval span is its own. Events flow outward through the
// context, so a tool that runs calls of its own (a sub-agent's executor)
// passes their approval events up through the outer call's tracing
// extension, which opened an "approval" span under the outer call for
// each, with the inner call's decision: the trace said "delegate" waited
// for ops to approve it, when nobody was asked about it.
func TestAttackS15AnInnerCallsApprovalIsNotTheOuterCalls(t *testing.T) {
	inner := registry.New()
	inner.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		return "paid", nil
	}, tool.WithRisk(tool.RiskHigh), tool.WithApproval()))
	gate := approvalgate.New(fixed(approval.Approved("ops")))
	sub, err := executor.New(inner, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)

	outer := registry.New()
	outer.MustRegister(tool.Func("delegate", "Ask the sub-agent", func(ctx context.Context, _ struct{}) (string, error) {
		res, _ := sub.Execute(ctx, tool.Call{ID: "inner-1", Name: "pay", Args: json.RawMessage(`{}`)})
		return string(res.Status), nil
	}, tool.WithRisk(tool.RiskLow)))
	tp, rec := newProvider(t)
	ex, err := executor.New(outer, executor.WithExtensions(tracing.New(tracing.WithTracerProvider(tp))))
	require.NoError(t, err)
	_, err = ex.Execute(context.Background(), tool.Call{ID: "outer-1", Name: "delegate", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)

	for _, s := range rec.Started() {
		assert.NotEqual(t, tracing.ApprovalSpanName, s.Name(), "an approval span under delegate, for pay's decision")
	}
}

// An approval span ends with its call. An approval extension of one's own
// that emits approval_requested and then fails without approval_decided (a
// panic the executor recovers, a path that forgets it) left the span open
// for good: never exported, its trace showing no wait at all.
func TestAttackS15ApprovalSpanEndsWithItsCall(t *testing.T) {
	crash := extension.Func(extension.NameApproval, extension.PriorityApproval, func(extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name})
			panic("approver lost")
		}
	})
	tp, rec := newProvider(t)
	ex := approvalExec(t, crash, tracing.New(tracing.WithTracerProvider(tp)))
	_, err := ex.Execute(context.Background(), shellCall("shell"))
	require.Error(t, err)

	var found bool
	for _, s := range rec.Ended() {
		if s.Name() == tracing.ApprovalSpanName {
			found = true
			assert.Equal(t, codes.Error, s.Status().Code)
			assert.Contains(t, s.Status().Description, "no approval decision")
		}
	}
	assert.True(t, found, "the approval span was left open: %d started, %d ended", len(rec.Started()), len(rec.Ended()))
}
