package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackIdmappedWorkspaceFromTheHost keeps other host processes of uid
// 65534 out of the idmapped mount by attaching it in a mount namespace of
// the run's own. The run's processes are uid 65534 on the host too, and
// /proc/PID/root and /proc/PID/cwd of any of them open that namespace for
// whoever passes the ptrace read check: a process run WithUser(65534,
// 65534), or any "nobody" daemon, of the same uid, on a host without Yama
// (which guards attaching, not reading). Through /proc/PID/cwd it owned the
// root-owned 0700 workspace of a running bwrap sandbox: read root's secret
// and planted a file there.
func TestAttackS26IdmappedWorkspaceThroughProcRoot(t *testing.T) {
	requireRoot(t)
	for _, victimEngine := range []string{EngineBwrap, EngineGVisor} {
		t.Run(victimEngine, func(t *testing.T) {
			dir, err := os.MkdirTemp(hostDir(t), "toolbelt-ws-")
			require.NoError(t, err)
			require.NoError(t, os.Chmod(dir, 0o700))
			dir, err = evalDir(dir)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "secret"), []byte("root-secret\n"), 0o600))

			victim := engine(t, victimEngine, WithWorkspace(dir))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				var once bool
				_, _ = victim.Run(ctx, Spec{
					Argv:   []string{"sh", "-c", "echo up; sleep 60"},
					Limits: Limits{Timeout: 70 * time.Second},
					OnOutput: func(string, []byte) {
						if !once {
							once = true
							close(started)
						}
					},
				})
			}()
			defer func() { cancel(); <-done }()
			select {
			case <-started:
			case <-done:
				t.Fatal("the victim's run ended before it started its command")
			}

			// The attacker's own processes work in its own workspace.
			const script = `for p in /proc/[0-9]*; do
  [ "$(readlink "$p/cwd")" = "$PWD" ] && continue
  for d in "$p/cwd" "$p/root$1"; do
    cat "$d/secret" 2>/dev/null
    echo planted 2>/dev/null > "$d/planted" && echo "PLANTED in $d"
  done
done; echo end`
			ws := workspaceDir(t)
			sb := engine(t, EngineProcess, WithUser(65534, 65534), WithWorkspace(ws))
			out := mustRun(t, sb, Spec{Argv: []string{"sh", "-c", script, "sh", dir}})
			t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(out.Stdout), "root-secret", "a host process of uid 65534 read the root-owned workspace of a running sandbox")
			assert.NotContains(t, string(out.Stdout), "PLANTED", "a host process of uid 65534 wrote into the root-owned workspace of a running sandbox")
			assert.NoFileExists(t, filepath.Join(dir, "planted"))
		})
	}
}
