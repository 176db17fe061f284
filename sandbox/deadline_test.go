package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caller's deadline that comes before the run's own timeout is reported
// as the caller's deadline, not as the command running past its timeout
// (which named the engine's 2-minute default, a limit nobody had reached).
// The run's own timeout, when it comes first, is still reported as such.
func TestCallersDeadlineIsReportedAsTheCallers(t *testing.T) {
	sb := engine(t, EngineProcess)
	for _, c := range []struct {
		name           string
		callerDeadline time.Duration
		timeout        time.Duration
		want           string
	}{
		{"caller first", 200 * time.Millisecond, time.Minute, "the caller's deadline expired"},
		{"own timeout first", time.Minute, 200 * time.Millisecond, "the command ran past its 200ms timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), c.callerDeadline)
			defer cancel()
			out, err := sb.Run(ctx, Spec{Argv: []string{"sleep", "30"}, Limits: Limits{Timeout: c.timeout}})
			require.ErrorIs(t, err, ErrTimeout)
			assert.Contains(t, err.Error(), c.want)
			require.NotNil(t, out)
			assert.True(t, out.TimedOut, "the tree was killed at a deadline")
			assert.Equal(t, LimitTimeout, out.KilledBy)
		})
	}
}
