package approvalgate_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
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

// A person's modification that leaves out a property with a schema
// default was bound as written; the executor fills the default in before
// the backend, in the call the retry extension runs again. The retry was
// then refused by the guard as "arguments changed after approval": the
// approved call failed with approval_denied instead of being retried. The
// modified arguments are now checked as the executor checks them
// (defaults filled), so what is bound, and shown, is what runs.
func TestS27ModifiedArgumentsGetTheirDefaultsBeforeBinding(t *testing.T) {
	var runs atomic.Int32
	var limits []int
	reg := registry.New()
	reg.MustRegister(tool.Func("fetch", "Fetch a page", func(_ context.Context, in struct {
		URL   string `json:"url"`
		Limit int    `json:"limit,omitempty" jsonschema:"default=10"`
	}) (string, error) {
		limits = append(limits, in.Limit)
		if runs.Add(1) == 1 {
			return "", tool.NewError(tool.CodeUnavailable, "upstream answered 503")
		}
		return "page", nil
	}, tool.ReadOnly(), tool.WithRisk(tool.RiskHigh)))
	var bound json.RawMessage
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Modified("ops", json.RawMessage(`{"url":"https://example.org/b"}`)), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard(), retry.New(retry.Backoff(time.Microsecond, time.Microsecond))))
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "fetch", Args: json.RawMessage(`{"url":"https://example.org/a"}`)})
	require.NoError(t, err, "the retry of the approved modification was refused")
	assert.Equal(t, "page", res.Text())
	assert.Equal(t, 2, res.Attempts)
	assert.Equal(t, []int{10, 10}, limits)

	bound, err = approval.ValidateArgs(&tool.Spec{Name: "fetch", InputSchema: reg.List(registry.Filter{})[0].InputSchema}, json.RawMessage(`{"url":"x"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"x","limit":10}`, string(bound), "ValidateArgs gives the arguments the executor runs")
}
