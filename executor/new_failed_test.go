package executor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// noBad is an extension that refuses tools named "bad" (ToolChecker).
type noBad struct{ extension.Extension }

func (noBad) CheckTool(spec tool.Spec) error {
	if spec.Name == "bad" {
		return fmt.Errorf("tool %q is refused", spec.Name)
	}
	return nil
}

// refusingStore is a job store whose Attach fails.
type refusingStore struct{ handStore }

func (*refusingStore) Attach(executor.JobRunner) error {
	return errors.New("attached to another executor")
}

// New installed its extensions' tool checks on the registry before its
// last checks (the job store's Attach, a nil history store): a New that
// then failed left them behind, and the registry refused tools for an
// executor that did not exist.
func TestAFailedNewLeavesNoCheckOnTheRegistry(t *testing.T) {
	reg := registry.New()
	ext := noBad{extension.Func("no_bad", 0, func(next extension.Handler) extension.Handler { return next })}
	_, err := executor.New(reg, executor.WithExtensions(ext), executor.WithJobStore(&refusingStore{}))
	require.ErrorContains(t, err, "attached to another executor")
	require.NoError(t, reg.Register(tool.Func("bad", "A tool", func(context.Context, struct{}) (string, error) { return "", nil })),
		"a failed New left its extension's check on the registry")

	// A New that succeeds installs it.
	reg = registry.New()
	executor.MustNew(reg, executor.WithExtensions(ext))
	err = reg.Register(tool.Func("bad", "A tool", func(context.Context, struct{}) (string, error) { return "", nil }))
	assert.ErrorContains(t, err, "is refused")
}
