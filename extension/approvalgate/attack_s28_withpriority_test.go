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
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// extension.WithPriority kept the approval extension's name and Wrap only:
// executor.New ran none of its checks. A deny rule naming a tool that does
// not exist ("delete_rep") was taken and delete_repo ran unasked in
// allow_all mode; its guard re-placed was not recognised as its guard (New
// refused a correct chain), and a guard re-placed outside the approval
// extension was taken, where it refuses every call at run time (no
// binding yet). The checks now see through the re-placement and judge the
// priorities given.
func TestAttackS28WithPriorityDropsApprovalsChecks(t *testing.T) {
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("delete_repo", "Delete a repository", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "deleted", nil
	}, tool.WithRisk(tool.RiskLow)))
	approver := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Approved("ann"), nil
	})
	call := tool.Call{ID: "c1", Name: "delete_repo", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "bob"}}

	t.Run("a deny rule naming no tool", func(t *testing.T) {
		gate := approvalgate.New(approver, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll, approval.DenyRules("delete_rep"))))
		ex, err := executor.New(reg, executor.WithExtensions(extension.WithPriority(gate, extension.PriorityApproval), gate.Guard()))
		if err == nil {
			res, _ := ex.Execute(context.Background(), call)
			assert.False(t, res.OK(), "delete_repo ran unasked past a deny rule with a typo: %q", res.Text())
		}
		require.Error(t, err, "a deny rule naming an unregistered tool was taken")
		assert.Contains(t, err.Error(), `delete_rep`)
	})

	gate := approvalgate.New(approver)
	t.Run("its guard re-placed", func(t *testing.T) {
		ex, err := executor.New(reg, executor.WithExtensions(gate, extension.WithPriority(gate.Guard(), extension.PriorityRetry+1)))
		require.NoError(t, err, "the approval extension's own guard, re-placed inside it, is its guard")
		res, _ := ex.Execute(context.Background(), call)
		require.True(t, res.OK(), "%v", res.Error)
	})

	t.Run("its guard outside it", func(t *testing.T) {
		_, err := executor.New(reg, executor.WithExtensions(gate, extension.WithPriority(gate.Guard(), extension.PriorityAudit)))
		require.Error(t, err, "a guard outside the approval extension, which refuses every call, was taken")
		assert.Contains(t, err.Error(), `runs outside the approval extension (priority 400, approval's 800)`)

		_, err = executor.New(reg, executor.WithExtensions(extension.WithPriority(gate, extension.PriorityRetry+1), gate.Guard()))
		require.NoError(t, err, "the guard is still inside")
	})
	assert.Equal(t, int64(1), runs.Load())
}
