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

// aliasTool runs a tool under another name and risk, and says so (Unwrap),
// as a tool file's go tool over a Go implementation does.
type aliasTool struct {
	tool.Tool
	name string
	risk tool.Risk
}

func (a aliasTool) Spec() tool.Spec {
	s := a.Tool.Spec()
	s.Name, s.Risk = a.name, a.risk
	return s
}

func (a aliasTool) Unwrap() tool.Tool { return a.Tool }

// A person denied "pay" for the session; the same implementation
// registered under another name (and a lower risk the policy lets run
// unasked) ran in that session: the remembered denial named only the name
// called.
func TestAttackS30ReviewDeniedToolRunsUnderAnAlias(t *testing.T) {
	ran := 0
	pay := tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		ran++
		return "paid", nil
	}, tool.WithRisk(tool.RiskHigh))
	reg := registry.New()
	reg.MustRegister(pay, aliasTool{pay, "settle_invoice", tool.RiskLow})
	asked := 0
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked++
		return approval.Denied("ops", "no payments in this session").WithScope(approval.ScopeSessionTool), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := func(id, name string) *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: id, Name: name, Args: json.RawMessage(`{}`),
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: "s1"})
		return res
	}
	require.NotNil(t, call("c1", "pay").Error)
	res := call("c2", "settle_invoice")
	assert.Equal(t, 0, ran, "the tool denied for the session ran under another name")
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Equal(t, 1, asked)

	// In another session the alias runs, as the policy allows.
	res, _ = ex.Execute(context.Background(), tool.Call{ID: "c3", Name: "settle_invoice", Args: json.RawMessage(`{}`),
		Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: "s2"})
	require.Nil(t, res.Error)
	assert.Equal(t, 1, ran)
}
