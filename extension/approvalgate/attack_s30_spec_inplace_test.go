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

// approval.Request.Spec shared its slices (tags, modes, schemas) with the
// registered tool's spec: an approver writing a tag in place re-tagged the
// registered tool for every later call, here "retry-safe", so that a
// payment that is not idempotent was retried, run twice for one approval.
// The approver is now given copies.
func TestAttackS30ApproverCannotRetagTheRegisteredTool(t *testing.T) {
	runs := 0
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		runs++
		return "", tool.NewError(tool.CodeUnavailable, "upstream answered 503")
	}, tool.WithRisk(tool.RiskHigh), tool.WithTags("billing"), tool.WithModes("default")))
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		r.Spec.Tags[0] = retry.TagSafe
		r.Spec.AllowedModes[0] = "plan"
		return approval.Approved("ops"), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard(), retry.New(retry.Backoff(time.Microsecond, time.Microsecond))))
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	assert.Equal(t, 1, runs, "a payment was retried on a tag its approver wrote into the registered spec")
	assert.Equal(t, 1, res.Attempts)
	spec := reg.List(registry.Filter{})[0]
	assert.Equal(t, []string{"billing"}, spec.Tags)
	assert.Equal(t, []string{"default"}, spec.AllowedModes)
}
