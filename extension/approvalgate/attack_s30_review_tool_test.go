package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The approver is shown a copy of the spec, but also the registered tool
// (Request.Tool), whose Spec() returns a value sharing its slices with the
// registry's entry: a tag written there re-tagged the registered tool.
func TestAttackS30ReviewApproverCannotRetagThroughTheTool(t *testing.T) {
	runs := 0
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		runs++
		return "", tool.NewError(tool.CodeUnavailable, "upstream answered 503")
	}, tool.WithRisk(tool.RiskHigh), tool.WithTags("billing")))
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		r.Tool.Spec().Tags[0] = retry.TagSafe
		return approval.Approved("ops"), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard(), retry.New(retry.Backoff(time.Microsecond, time.Microsecond))))
	require.NoError(t, err)
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	assert.Equal(t, 1, runs, "a payment was retried on a tag its approver wrote through Request.Tool")
	assert.Equal(t, []string{"billing"}, reg.List(registry.Filter{})[0].Tags)
}
