package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A caller's deadline that fires before the tool's own is reported as the
// caller's, never as "ran past its 30s deadline" (34 of 50 runs said the
// wrong one).
func TestCallersDeadlineIsReportedAsTheCallers(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.New("wait", "Waits for its context", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	ex := executor.MustNew(reg, executor.WithTimeout(30*time.Second))
	for range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		res, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "wait"})
		cancel()
		require.Error(t, err)
		assert.Equal(t, tool.CodeTimeout, res.Error.Code)
		assert.NotContains(t, res.Error.Message, "ran past its 30s deadline")
		assert.Contains(t, res.Error.Message, "the caller's deadline passed")
	}

	// The tool's own deadline, first, is the tool's.
	ex = executor.MustNew(reg, executor.WithTimeout(5*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "wait"})
	require.Error(t, err)
	assert.Contains(t, res.Error.Message, "ran past its 5ms deadline")
}
