package sandbox

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack on b87f3ec: Limits.Processes 1, the command alone. The run's first
// process is now a shell that forks the command, under the same limit, and
// the shell's fork was refused: the command never ran, and the run said
// "process exited non-zero: exit status 2" (the shell's "Cannot fork"), an
// outcome of a command that did not run. bwrap ran it before b87f3ec (its
// init forked without the limit), and the process engine does. Now the
// shell and the command get room for the two of them, so the command runs
// and still cannot fork. The same held for landlock as root.
func TestAttackShellStartedRunWithOneProcess(t *testing.T) {
	names := []string{EngineBwrap}
	if os.Geteuid() == 0 { // a landlock run's first process is a shell as root only
		names = append(names, EngineLandlock)
	}
	// RLIMIT_NPROC counts every process of the uid on the host: as 65534,
	// the uid other packages' runs share, a run of another test made the
	// shell's fork fail. A uid of this test's own keeps its count to its
	// own processes.
	uid := uint32(62000 + os.Getpid()%1000)
	var opts []Option
	if os.Geteuid() == 0 {
		opts = append(opts, WithUser(uid, uid))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name, opts...)
			lim := Limits{Processes: 1, Timeout: time.Minute}
			out, err := sb.Run(context.Background(), Spec{Argv: []string{"echo", "ran"}, Limits: lim})
			require.NotNil(t, out, "%v", err)
			assert.NoError(t, err, "stderr: %s", out.Stderr)
			assert.Equal(t, "ran\n", string(out.Stdout))
			// The command still has no process to spare: a fork fails.
			out, err = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo up; /bin/true; echo forked"}, Limits: lim})
			require.NotNil(t, out, "%v", err)
			assert.Contains(t, string(out.Stdout), "up\n")
			assert.NotContains(t, string(out.Stdout), "forked", "the command forked under Processes: 1")
		})
	}
}
