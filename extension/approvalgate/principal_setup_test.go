package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An extension of the host's own that resolves whom a call acts for (roles
// from a directory) but runs after the approval extension (priority above
// 800) has each approved call refused by the guard since 44d8df2, rightly:
// the person approved the call without those roles. The refusal's cause,
// which the developer reads, said only that "an extension further in the
// chain changed it"; it now says how to set it up: resolve the principal
// before the approval extension, so the approver sees it.
func TestApprovalGuardSaysWhereToResolveThePrincipal(t *testing.T) {
	ran := 0
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(context.Context, struct{}) (string, error) {
		ran++
		return "ok", nil
	}, tool.WithRisk(tool.RiskHigh), tool.WithApproval()))
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Approved("ops"), nil
	}))
	resolve := func(prio int) extension.Extension {
		return extension.Func("roles", prio, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				req.Call.Principal.Roles = append(req.Call.Principal.Roles, "deployer")
				return next(ctx, req)
			}
		})
	}
	call := tool.Call{ID: "c1", Name: "deploy", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}}

	ex, err := executor.New(reg, executor.WithExtensions(gate, resolve(extension.PriorityCache), gate.Guard()))
	require.NoError(t, err)
	res, _ := ex.Execute(context.Background(), call)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Equal(t, 0, ran)
	require.Error(t, res.Error.Err)
	assert.Contains(t, res.Error.Err.Error(), "before the approval extension", "the cause names the fix")
	assert.Contains(t, res.Error.Err.Error(), "priority below 800")

	// The set-up it names runs the call, with the roles the approver saw.
	ex, err = executor.New(reg, executor.WithExtensions(gate, resolve(extension.PriorityDefault), gate.Guard()))
	require.NoError(t, err)
	res, _ = ex.Execute(context.Background(), call)
	require.Nil(t, res.Error)
	assert.Equal(t, 1, ran)
}
