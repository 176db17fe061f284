package metrics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call's approval is its own. Events flow outward through the context
// (an MCP server turns them into progress notifications), so a tool that
// runs calls of its own (a sub-agent's executor) passes their approval
// events up through the outer call's metrics extension, which counted
// the inner call's decision as the outer call's: "delegate", which nobody
// was asked about, was counted as approved (or denied) with every decision
// about the sub-agent's "pay".
func TestAttackS15AnInnerCallsApprovalIsNotTheOuterCalls(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision approval.Decision
	}{
		{"approved", approval.Approved("ops")},
		{"denied", approval.Denied("ops", "no")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := registry.New()
			inner.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
				return "paid", nil
			}, tool.WithRisk(tool.RiskHigh), tool.WithApproval()))
			gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
				return tc.decision, nil
			}))
			sub, err := executor.New(inner, executor.WithExtensions(gate, gate.Guard()))
			require.NoError(t, err)

			outer := registry.New()
			outer.MustRegister(tool.Func("delegate", "Ask the sub-agent", func(ctx context.Context, _ struct{}) (string, error) {
				res, _ := sub.Execute(ctx, tool.Call{ID: "inner-1", Name: "pay", Args: json.RawMessage(`{}`)})
				return string(res.Status), nil
			}, tool.WithRisk(tool.RiskLow)))
			m := metrics.New()
			ex, err := executor.New(outer, executor.WithExtensions(m))
			require.NoError(t, err)
			res, err := ex.Execute(context.Background(), tool.Call{ID: "outer-1", Name: "delegate", Args: json.RawMessage(`{}`)})
			require.NoError(t, err)
			require.True(t, res.OK())

			d := m.Snapshot().Tools["delegate"]
			assert.Equal(t, uint64(1), d.Total())
			assert.Empty(t, d.Approvals, "delegate went through no approval; pay's decision was counted as delegate's")
		})
	}
}
