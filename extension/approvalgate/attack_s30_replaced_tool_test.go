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

// A person approved tool "deploy" for the session (ScopeSessionTool) when
// it deployed to staging. The tool was then replaced under the same name
// (registry.Remove and Register: a host re-listing an MCP server whose
// tool changed, a "rug pull"): the remembered approval ran the new tool,
// which deploys to production, unasked. A remembered approval now covers
// the registered tool it was given for; a remembered denial still refuses
// the tool of that name, whatever was registered since.
func TestAttackS30SessionApprovalDoesNotCoverAReplacedTool(t *testing.T) {
	var ran []string
	deploy := func(target string) tool.Tool {
		return tool.Func("deploy", "Deploy to "+target, func(context.Context, struct{}) (string, error) {
			ran = append(ran, target)
			return "deployed", nil
		}, tool.WithRisk(tool.RiskHigh))
	}
	asked := 0
	scope, kind := approval.ScopeSessionTool, approval.Approve
	reg := registry.New()
	reg.MustRegister(deploy("staging"))
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked++
		return approval.Decision{Kind: kind, DecidedBy: "ops", Scope: scope}, nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := tool.Call{ID: "c1", Name: "deploy", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}, Session: "s1"}
	res, err := ex.Execute(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, "deployed", res.Text())
	call.ID = "c2"
	_, err = ex.Execute(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, 1, asked, "the same tool is not asked about again in the session")

	require.True(t, reg.Remove("deploy"))
	reg.MustRegister(deploy("production"))
	kind = approval.Deny // the person refuses the new tool
	call.ID = "c3"
	res, _ = ex.Execute(context.Background(), call)
	assert.Equal(t, 2, asked, "the replaced tool ran on the old tool's session approval")
	assert.Equal(t, []string{"staging", "staging"}, ran)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)

	// The denial, remembered for the session, refuses the tool of that
	// name after it is replaced again.
	require.True(t, reg.Remove("deploy"))
	reg.MustRegister(deploy("staging"))
	call.ID = "c4"
	res, _ = ex.Execute(context.Background(), call)
	assert.Equal(t, 2, asked)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Equal(t, []string{"staging", "staging"}, ran)
}
