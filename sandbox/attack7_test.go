package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A landlock command run by root may not leave a process behind by moving
// it out of the run's process group (setsid): the process, still confined
// by the run's Landlock domain but writing in the workspace and reading the
// host after the run has ended (after its changes were tracked), lived on
// for good, whether the run ended by itself or at its timeout (seen
// succeeding first: the sleep of both cases was alive 5 s after Run
// returned). The command now starts as the second process of a pid
// namespace of its own, whose first (sh) ends with it, and with it every
// process of the namespace.
func TestAttackLandlockSetsidEscapee(t *testing.T) {
	requireRoot(t)
	// The escapee says through a FIFO that it has left the group (setsid
	// runs before its sh), and only then does the command go on.
	const escape = `mkfifo "$TMPDIR/left"
setsid sh -c 'echo >"$1"; exec sleep "$0"' "$0" "$TMPDIR/left" &
read x <"$TMPDIR/left"; echo up`
	cases := []struct {
		name, script string
		timeout      time.Duration
	}{
		{"the run ends", escape, 0},
		{"the run times out", escape + `; sleep "$0"`, 1500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := landlockEngine(t)
			marker := fmt.Sprintf("603.%06d", rand.IntN(1000000))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", c.script, marker},
				Limits: Limits{Timeout: c.timeout},
			})
			require.NotNil(t, out, "%v", err)
			require.Contains(t, string(out.Stdout), "up", "the attack did not run: %v", err)
			if c.timeout > 0 {
				require.ErrorIs(t, err, ErrTimeout)
			} else {
				require.NoError(t, err)
			}
			gone := eventually(5*time.Second, func() bool { return len(hostProcsWith(marker)) == 0 })
			left := hostProcsWith(marker)
			if len(left) > 0 {
				t.Logf("alive after the run: %s", describe(left))
				killAll(left) // this test's own sleeps
			}
			assert.True(t, gone, "a process of the run outlived it")
		})
	}
}
