package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithRunLimits gives one run more (or less) than its spec's limits, field
// by field, within the engine's; more than the engine's is refused before
// the run starts.
func TestRunLimitsOverrideTheSpecWithinTheEngine(t *testing.T) {
	ws := workspaceDir(t)
	sb := engine(t, EngineProcess, WithWorkspace(ws), WithLimits(Limits{Timeout: 10 * time.Second, OutputBytes: 1 << 20, Memory: 4 << 30}))
	spec := Spec{Argv: []string{"sh", "-c", "sleep 1; echo done"}, Limits: Limits{Timeout: 200 * time.Millisecond}}

	_, err := sb.Run(context.Background(), spec)
	require.ErrorIs(t, err, ErrTimeout, "the spec's 200ms holds without an override")

	ctx := WithRunLimits(context.Background(), Limits{Timeout: 5 * time.Second})
	out, err := sb.Run(ctx, spec)
	require.NoError(t, err, "the override gives this run 5s")
	assert.Equal(t, "done\n", string(out.Stdout))
	assert.Equal(t, 5*time.Second, out.Limits.Timeout)

	ctx = WithRunLimits(context.Background(), Limits{Memory: 1 << 30})
	out, err = sb.Run(ctx, spec)
	require.ErrorIs(t, err, ErrTimeout, "a field the override leaves unset keeps the spec's")
	require.NotNil(t, out)
	assert.Equal(t, int64(1<<30), out.Limits.Memory)

	ctx = WithRunLimits(context.Background(), Limits{Timeout: time.Minute})
	out, err = sb.Run(ctx, Spec{Argv: []string{"sh", "-c", "touch ran"}})
	require.ErrorIs(t, err, ErrExceedsParent, "more than the engine's is refused")
	assert.Nil(t, out, "the run did not start")
	assert.Contains(t, err.Error(), "timeout limit 1m0s is over the parent's 10s")
	assert.NoFileExists(t, ws+"/ran")

	ctx = WithRunLimits(context.Background(), Limits{CPUTime: -time.Second})
	_, err = sb.Run(ctx, spec)
	require.True(t, errors.Is(err, ErrInvalidSpec), "a negative limit is refused: %v", err)

	l, ok := RunLimits(WithRunLimits(context.Background(), Limits{Processes: 7}))
	assert.True(t, ok)
	assert.Equal(t, 7, l.Processes)
	_, ok = RunLimits(context.Background())
	assert.False(t, ok)
}
