package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Mistakes surface when the executor is built, not at the first call.
func TestNewRefusesWhatItCanProveWrong(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil }))
	noop := extension.Func("noop", 0, func(next extension.Handler) extension.Handler { return next })

	_, err := executor.New(nil)
	assert.ErrorContains(t, err, "the registry is nil")

	_, err = executor.New(reg, executor.WithExtensions(noop, nil))
	assert.ErrorContains(t, err, "extension #1 passed to WithExtensions is nil")

	// An ignored policy.Load error leaves a nil *Policy: every call would
	// panic.
	var pol *policy.Policy
	_, err = executor.New(reg, executor.WithExtensions(pol))
	assert.ErrorContains(t, err, "extension #0 passed to WithExtensions is nil")

	_, err = executor.New(reg, executor.WithExtensions(noop, noop))
	assert.ErrorContains(t, err, `extensions #0 and #1 are both named "noop"`)

	ex, err := executor.New(reg, executor.WithExtensions(noop))
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "ping"})
	require.NoError(t, err)
	assert.Equal(t, "pong", res.Text())

	assert.Panics(t, func() { executor.MustNew(nil) })
}
