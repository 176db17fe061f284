package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The approver is told when a decision answers the call alone
// (approval.Request.OnceOnly), so that it offers no "approve for this
// session" that would approve one call while saying more: the dashboard
// showed that button for an always-ask tool, whose later calls were then
// asked about anyway.
func TestApproverIsToldWhenADecisionAnswersTheCallAlone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		session string
		opts    []approvalgate.Option
		want    bool
	}{
		{"a session, remembered", "s1", []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk))}, false},
		{"an always-ask tool", "s1", []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("pay")))}, true},
		{"no session", "", []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk))}, true},
		{"no session memory", "s1", []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk)), approvalgate.WithSessionMemory(0)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []approval.Request
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
				return "paid", nil
			}, tool.WithRisk(tool.RiskLow)))
			gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
				got = append(got, r)
				return approval.Approved("ops"), nil
			}), tc.opts...)
			ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
			require.NoError(t, err)
			res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`),
				Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: tc.session})
			require.NoError(t, err)
			require.True(t, res.OK())
			require.Len(t, got, 1, "the approver was asked")
			assert.Equal(t, tc.want, got[0].OnceOnly)
		})
	}
}
