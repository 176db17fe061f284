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

// An ignored policy.Load error leaves a nil *Policy, which executor.New
// refuses (TestNewRefusesWhatItCanProveWrong). Re-placed with
// extension.WithPriority, the nil pointer hid inside the wrapper: New took
// it, or panicked in its checks, instead of saying which extension is nil.
func TestAttackS28ReviewReplacedNilExtensionIsReported(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil }))
	var pol *policy.Policy
	var err error
	require.NotPanics(t, func() {
		_, err = executor.New(reg, executor.WithExtensions(extension.WithPriority(pol, extension.PriorityPolicy+10)))
	}, "executor.New panicked on a re-placed nil extension")
	assert.ErrorContains(t, err, "extension #0 passed to WithExtensions is nil")
}
