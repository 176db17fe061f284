package sandbox

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The engines without a pid namespace (process, and landlock run by a
// program that is not root) kill the run's process group, and say that
// only a child that calls setsid outlives the run. A child that moves to a
// process group of its own stays in the run's session but left its group:
// a background job of a shell with job control (bash's set -m), or a
// program that calls setpgid(0, 0), lived on after Run returned. They are
// killed now with the run's session (the command's leader is the session's
// leader, and stays unreaped until the kill, so its id names no other
// session). Each escapee says through a FIFO that it has moved, and only
// then does the command exit.
func TestAttackS26SetpgidEscapeeOutlivesTheRun(t *testing.T) {
	needPython(t)
	const script = `mkfifo up; exec 3<>up
bash -c 'set -m; sleep "$0" & echo a >"$1"' "$0" "$PWD/up" >/dev/null 2>&1
python3 -c 'import os, sys; os.setpgid(0, 0); open(sys.argv[2], "w").write("b\n"); os.execvp("sleep", ["sleep", sys.argv[1]])' "$0" "$PWD/up" >/dev/null 2>&1 &
read x <&3; read x <&3; echo up`
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"process", nil},
		{"process as 65534", []Option{WithUser(65534, 65534)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := engine(t, EngineProcess, append(c.opts, WithWorkspace(workspaceDir(t)))...)
			// A number sleep accepts: 300 s and a random fraction.
			marker := fmt.Sprintf("300.%09d", rand.IntN(1e9))
			out, err := sb.Run(t.Context(), Spec{
				Argv:   []string{"sh", "-c", script, marker},
				Limits: Limits{Timeout: 60 * time.Second},
			})
			require.NoError(t, err, "%+v", out)
			require.Equal(t, "up\n", string(out.Stdout), "the escapees did not all start: %s", out.Stderr)
			// Killed processes take a moment to leave /proc; a survivor
			// stays for its 300 s.
			gone := eventually(5*time.Second, func() bool { return len(hostProcsWith(marker)) == 0 })
			left := hostProcsWith(marker)
			killAll(left)
			assert.True(t, gone, "processes that left the run's process group outlived the run: %v", left)
		})
	}
}
