package executor_test

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
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool that requires a person's approval on every call (tool.WithApproval,
// requires_approval: true in a tool file) ran unasked in an executor
// without the approval extension: nothing reads the flag but that
// extension. Such a call is refused (approval_denied, the fix in the
// cause), whether the tool was registered before New or after.
func TestRequiresApprovalWithoutApprovalExtensionIsRefused(t *testing.T) {
	var ran atomic.Int32
	deploy := func(name string) tool.Tool {
		return tool.Func(name, "Deploy to production", func(context.Context, struct{}) (string, error) {
			ran.Add(1)
			return "deployed", nil
		}, tool.WithApproval())
	}
	reg := registry.New()
	reg.MustRegister(deploy("deploy"))
	noop := extension.Func("noop", 0, func(next extension.Handler) extension.Handler { return next })

	for _, ex := range []*executor.Executor{executor.MustNew(reg), executor.MustNew(reg, executor.WithExtensions(noop))} {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "deploy", Args: json.RawMessage(`{}`)})
		require.Error(t, err)
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
		assert.Equal(t, `tool "deploy" was not run: it needs a person's approval, and none could be obtained here; do not retry now: tell the user`, res.Error.Message)
		assert.ErrorContains(t, res.Error.Err, "no approval extension is installed: add approvalgate.New(approver)")
	}
	ex := executor.MustNew(reg)
	reg.MustRegister(deploy("deploy2"))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "2", Name: "deploy2", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Zero(t, ran.Load(), "a tool that requires approval ran unasked")

	// With an approval extension installed (by its name, approvalgate's),
	// the executor leaves the decision to it.
	appr := extension.Func("approval", extension.PriorityApproval, func(next extension.Handler) extension.Handler { return next })
	res, err = executor.MustNew(reg, executor.WithExtensions(appr)).Execute(context.Background(), tool.Call{ID: "3", Name: "deploy", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, "deployed", res.Text())
}

// An extension that demands a person's approval for a call
// (approval.RequiredKey: the governance policy does so in a mode listed in
// requires_approval_in_modes) was ignored without an approval extension:
// the call ran unasked. It is refused, with the demand's reason, by name
// through the real policy too.
func TestRequiredKeyWithoutApprovalExtensionIsRefused(t *testing.T) {
	var ran atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy to production", func(context.Context, struct{}) (string, error) {
		ran.Add(1)
		return "deployed", nil
	}))
	demand := extension.Func("demand", 10, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Set(approval.RequiredKey, "change freeze: a person must approve deploys")
			return next(ctx, req)
		}
	})
	pol, err := policy.Parse([]byte("global: {mode: alert}\ntools:\n  deploy:\n    requires_approval_in_modes: [alert]\n"))
	require.NoError(t, err)
	for _, x := range []extension.Extension{demand, pol} {
		res, err := executor.MustNew(reg, executor.WithExtensions(x)).Execute(context.Background(), tool.Call{ID: "1", Name: "deploy", Args: json.RawMessage(`{}`)})
		require.Error(t, err, x.Name())
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, x.Name())
		assert.Contains(t, res.Error.Message, `tool "deploy" was not run`, x.Name())
		assert.ErrorContains(t, res.Error.Err, "no approval extension is installed", x.Name())
	}
	assert.ErrorContains(t, func() error {
		res, _ := executor.MustNew(reg, executor.WithExtensions(demand)).Execute(context.Background(), tool.Call{ID: "2", Name: "deploy", Args: json.RawMessage(`{}`)})
		return res.Error.Err
	}(), "change freeze: a person must approve deploys")
	assert.Zero(t, ran.Load(), "a call whose approval was demanded ran unasked")
}
