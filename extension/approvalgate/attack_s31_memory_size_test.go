package approvalgate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// WithSessionMemory(n) allocated a ring of n keys at New: a size read
// from a configuration file or an environment variable (math.MaxInt, a
// typo of a few zeros) panicked in New, or took the process's memory
// before the first call. A size above approvalgate.MaxSessionMemory is now
// a configuration error that executor.New reports, naming the option, the
// bound and the fix; the memory grows with the decisions it keeps.
func TestAttackS31SessionMemorySizeIsBounded(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		return "paid", nil
	}, tool.WithRisk(tool.RiskHigh)))
	for _, n := range []int{math.MaxInt, approvalgate.MaxSessionMemory + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var gate *approvalgate.Extension
			require.NotPanics(t, func() {
				gate = approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
					return approval.Approved("ops"), nil
				}), approvalgate.WithSessionMemory(n))
			})
			_, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
			require.Error(t, err, "a session memory of %d was taken", n)
			assert.Contains(t, err.Error(), "WithSessionMemory")
			assert.Contains(t, err.Error(), fmt.Sprint(approvalgate.MaxSessionMemory))
		})
	}
	// The largest size taken costs nothing until decisions are kept.
	asked := 0
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked++
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}), approvalgate.WithSessionMemory(approvalgate.MaxSessionMemory))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	for range 3 {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "pay", Args: json.RawMessage(`{}`), Session: "s1"})
		require.NoError(t, err)
		require.Nil(t, res.Error)
	}
	assert.Equal(t, 1, asked, "the session's approval is remembered")
}
