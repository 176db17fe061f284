package shell_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A program gives one call more time than the tool's limits through the
// context it passes to Execute; the model's arguments cannot.
func TestRunLimitsReachTheToolThroughExecute(t *testing.T) {
	dir := t.TempDir()
	b, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir), shell.WithLimits(sandbox.Limits{Timeout: 200 * time.Millisecond}))
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(b)
	ex := executor.MustNew(reg)
	call := bashCall("sleep 1; echo built")

	res, _ := ex.Execute(context.Background(), call)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeTimeout, res.Error.Code, "the tool's 200ms")

	ctx := sandbox.WithRunLimits(context.Background(), sandbox.Limits{Timeout: 10 * time.Second})
	res, err = ex.Execute(ctx, call)
	require.NoError(t, err)
	assert.Equal(t, "built\n", res.Text())
}
