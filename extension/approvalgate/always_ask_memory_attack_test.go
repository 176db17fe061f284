package approvalgate_test

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
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool on the always-ask list (approval.AlwaysAsk) is asked about on
// every call: "approve for this session" must not let its later calls run
// unasked, whether the list alone asks or an ask rule naming the tool
// matches first. A denial remembered for the session still refuses it.
func TestAttackSessionMemoryCoversAlwaysAskTool(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy *approval.Policy
		scope  approval.Scope
	}{
		{"always-ask, approved for the tool", approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("pay")), approval.ScopeSessionTool},
		{"always-ask, approved for the arguments", approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("pay")), approval.ScopeSessionArgs},
		{"an ask rule matches first", approval.MustPolicy(approval.ModeAuto, approval.AskRules("pay"), approval.AlwaysAsk("pay")), approval.ScopeSessionTool},
		{"always-ask by wildcard", approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("pa*")), approval.ScopeSessionTool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked, ran atomic.Int32
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
				ran.Add(1)
				return "paid", nil
			}, tool.WithRisk(tool.RiskLow)))
			gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
				asked.Add(1)
				return approval.Approved("ops").WithScope(tc.scope), nil
			}), approvalgate.WithPolicy(tc.policy))
			ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
			require.NoError(t, err)
			call := tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: "s1"}
			res, err := ex.Execute(context.Background(), call)
			require.NoError(t, err)
			require.Nil(t, res.Error)
			require.EqualValues(t, 1, asked.Load())

			call.ID = "c2"
			res, err = ex.Execute(context.Background(), call)
			require.NoError(t, err)
			require.Nil(t, res.Error)
			assert.EqualValues(t, 2, asked.Load(), "the second call of an always-ask tool ran on the session's remembered approval, unasked")
			assert.EqualValues(t, 2, ran.Load())
			meta, _ := res.Metadata[approval.MetaKey].(map[string]any)
			assert.NotEqual(t, true, meta["remembered"])
		})
	}
}

// The safe direction stays: a denial remembered for the session refuses
// the always-ask tool's later calls without asking again.
func TestSessionDenialStillRefusesAlwaysAskTool(t *testing.T) {
	var asked, ran atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		ran.Add(1)
		return "paid", nil
	}, tool.WithRisk(tool.RiskLow)))
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Denied("ops", "not today").WithScope(approval.ScopeSessionTool), nil
	}), approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("pay"))))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`), Session: "s1"}
	for _, id := range []string{"c1", "c2"} {
		call.ID = id
		res, err := ex.Execute(context.Background(), call)
		requireDenied(t, res, err, "ops denied this call: not today")
	}
	assert.EqualValues(t, 1, asked.Load(), "the remembered denial refuses the second call unasked")
	assert.Zero(t, ran.Load())
}
