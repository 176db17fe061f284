//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitNotifiers runs f once with each way pump learns of the leader's exit:
// a pidfd, and the waitid goroutine used where pidfd_open is missing.
func exitNotifiers(t *testing.T, f func(t *testing.T)) {
	for _, tc := range []struct {
		name    string
		noPidfd bool
	}{{"pidfd", false}, {"waitid", true}} {
		t.Run(tc.name, func(t *testing.T) {
			old := noPidfd
			noPidfd = tc.noPidfd
			t.Cleanup(func() { noPidfd = old })
			f(t)
		})
	}
}

// Both streams are captured in full, apart, with the exit status and the
// rusage, whichever way the exit is noticed.
func TestPumpCapturesBothStreams(t *testing.T) {
	exitNotifiers(t, func(t *testing.T) {
		sb := engine(t, EngineProcess)
		out, err := sb.Run(context.Background(), Spec{
			Argv: []string{"sh", "-c", `seq 1 20000; echo oops >&2; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 3`},
		})
		require.ErrorIs(t, err, ErrNonZeroExit)
		assert.Equal(t, 3, out.ExitCode)
		lines := strings.Split(strings.TrimSuffix(string(out.Stdout), "\n"), "\n")
		require.Len(t, lines, 20000)
		assert.Equal(t, "20000", lines[len(lines)-1])
		assert.Equal(t, int64(len(out.Stdout)), out.StdoutBytes)
		assert.Equal(t, "oops\n", string(out.Stderr))
		assert.Positive(t, out.Usage.UserCPU+out.Usage.SystemCPU, "rusage reported")
		assert.Positive(t, out.Usage.MaxRSS)
	})
}

// A process that left the group (setsid, which only the namespaced engines
// catch) and holds the output pipe does not hold the run: output is read for
// drainGrace after the leader's exit, then the pipe is closed under it.
func TestDrainGraceBoundsHeldPipe(t *testing.T) {
	exitNotifiers(t, func(t *testing.T) {
		sb := engine(t, EngineProcess)
		marker := fmt.Sprintf("602.%06d", rand.IntN(1000000))
		out, err := sb.Run(context.Background(), Spec{
			Argv: []string{"sh", "-c", "setsid sh -c 'echo $$; sleep 0.1; echo late; exec sleep " + marker + "' & sleep 0.05; echo leader"},
		})
		require.NoError(t, err)
		fields := strings.Fields(string(out.Stdout))
		require.NotEmpty(t, fields)
		pid, perr := strconv.Atoi(fields[0])
		require.NoError(t, perr)
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		assert.Contains(t, fields, "leader")
		assert.Contains(t, fields, "late", "output written after the leader's exit, within the grace, is kept")
		assert.GreaterOrEqual(t, out.Duration, drainGrace, "the held pipe was read for the grace")
		assert.Less(t, out.Duration, drainGrace+2*time.Second, "the held pipe did not hold the run")
	})
}

// The timeout kills the group and the run ends, whichever way the exit is
// noticed.
func TestPumpTimeoutKillsGroup(t *testing.T) {
	exitNotifiers(t, func(t *testing.T) {
		sb := engine(t, EngineProcess)
		marker := fmt.Sprintf("603.%06d", rand.IntN(1000000))
		out, err := sb.Run(context.Background(), Spec{
			Argv:   []string{"sh", "-c", "sleep " + marker + " & echo $!; wait"},
			Limits: Limits{Timeout: 300 * time.Millisecond},
		})
		require.ErrorIs(t, err, ErrTimeout)
		assert.True(t, out.TimedOut)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(out.Stdout)))
		require.NoError(t, perr)
		assert.True(t, eventually(2*time.Second, func() bool { return dead(pid) }), "pid %d survived the timeout", pid)
	})
}
