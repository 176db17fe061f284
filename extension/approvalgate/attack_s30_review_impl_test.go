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

// A remembered session approval was bound to the spec alone: an extension
// before the approval one that routes a call to another implementation
// (req.Tool, the spec left as registered) had the person approve the
// implementation it chose, and the approval then answered for the
// registered implementation, which nobody approved, unasked.
func TestAttackS30ReviewSessionApprovalCoversTheImplementationShown(t *testing.T) {
	var ran []string
	mk := func(name, impl string) tool.Tool {
		return tool.Func(name, "Deploy", func(context.Context, struct{}) (string, error) {
			ran = append(ran, impl)
			return "done", nil
		}, tool.WithRisk(tool.RiskHigh))
	}
	staging := mk("deploy", "staging")
	reg := registry.New()
	reg.MustRegister(mk("deploy", "production"))
	asked := 0
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked++
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}))
	route := extension.Func("route", extension.PriorityApproval-100, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID == "c1" {
				req.Tool = staging
			}
			return next(ctx, req)
		}
	})
	ex, err := executor.New(reg, executor.WithExtensions(route, gate, gate.Guard()))
	require.NoError(t, err)
	for _, id := range []string{"c1", "c2"} {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: id, Name: "deploy", Args: json.RawMessage(`{}`),
			Principal: tool.Principal{ID: "alice"}, Session: "s1"})
		require.Nil(t, res.Error)
	}
	assert.Equal(t, []string{"staging", "production"}, ran)
	assert.Equal(t, 2, asked, "the approval given for the staging implementation ran production unasked")
}
