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

// A tool whose spec requires approval (tool.WithApproval: "ask a human
// every time") is asked about on every call, as a tool on the always-ask
// list is: a person's "approve for this session" of one call must not let
// the tool's later calls, with these arguments or others, run unasked.
func TestAttackS27SessionMemoryCoversRequiresApprovalTool(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy *approval.Policy
		scope  approval.Scope
		args2  string
	}{
		{"approved for the tool, other arguments", approval.DefaultPolicy(), approval.ScopeSessionTool, `{"to":"mallory"}`},
		{"approved for the arguments, same arguments", approval.DefaultPolicy(), approval.ScopeSessionArgs, `{"to":"bob"}`},
		{"an ask rule matches first", approval.MustPolicy(approval.ModeAuto, approval.AskRules("wire")), approval.ScopeSessionTool, `{"to":"mallory"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked, ran atomic.Int32
			reg := registry.New()
			reg.MustRegister(tool.Func("wire", "Wire money", func(context.Context, struct {
				To string `json:"to"`
			}) (string, error) {
				ran.Add(1)
				return "sent", nil
			}, tool.WithRisk(tool.RiskLow), tool.WithApproval()))
			gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
				asked.Add(1)
				return approval.Approved("ops").WithScope(tc.scope), nil
			}), approvalgate.WithPolicy(tc.policy))
			ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
			require.NoError(t, err)
			call := tool.Call{ID: "c1", Name: "wire", Args: json.RawMessage(`{"to":"bob"}`), Principal: tool.Principal{ID: "alice"}, Session: "s1"}
			res, err := ex.Execute(context.Background(), call)
			require.NoError(t, err)
			require.Nil(t, res.Error)
			require.EqualValues(t, 1, asked.Load())

			call.ID, call.Args = "c2", json.RawMessage(tc.args2)
			res, err = ex.Execute(context.Background(), call)
			require.NoError(t, err)
			require.Nil(t, res.Error)
			assert.EqualValues(t, 2, asked.Load(), "the second call of a tool that requires approval every time ran on the session's remembered approval, unasked")
			meta, _ := res.Metadata[approval.MetaKey].(map[string]any)
			assert.NotEqual(t, true, meta["remembered"])
		})
	}
}

// The approver is told a session-wide approval would not be remembered:
// the request of a tool that requires approval is offered once only.
func TestAttackS27RequiresApprovalIsOfferedOnceOnly(t *testing.T) {
	var once atomic.Bool
	reg := registry.New()
	reg.MustRegister(tool.Func("wire", "Wire money", func(context.Context, struct{}) (string, error) {
		return "sent", nil
	}, tool.WithRisk(tool.RiskLow), tool.WithApproval()))
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		once.Store(r.OnceOnly)
		return approval.Approved("ops"), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "wire", Args: json.RawMessage(`{}`), Session: "s1", Principal: tool.Principal{ID: "alice"}})
	require.NoError(t, err)
	assert.True(t, once.Load(), "the approver offered a session-wide approval for a tool that requires approval every time")
}

// A denial remembered for the session still refuses the tool's later
// calls without asking again: the safe direction.
func TestS27SessionDenialStillRefusesRequiresApprovalTool(t *testing.T) {
	var asked, ran atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("wire", "Wire money", func(context.Context, struct{}) (string, error) {
		ran.Add(1)
		return "sent", nil
	}, tool.WithRisk(tool.RiskLow), tool.WithApproval()))
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Denied("ops", "not today").WithScope(approval.ScopeSessionTool), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := tool.Call{Name: "wire", Args: json.RawMessage(`{}`), Session: "s1", Principal: tool.Principal{ID: "alice"}}
	for _, id := range []string{"c1", "c2"} {
		call.ID = id
		res, err := ex.Execute(context.Background(), call)
		requireDenied(t, res, err, "ops denied this call: not today")
	}
	assert.EqualValues(t, 1, asked.Load())
	assert.Zero(t, ran.Load())
}
