package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32ReviewLegitScript does what a command may legitimately do with the
// places it may write (the workspace $1, the run's own /tmp, /var/tmp,
// /run, /dev/shm, its standard streams, its own /proc entries) and prints
// "OK <what>" for each thing that worked and "LOST <what>" for each that
// did not, then "end".
const s32ReviewLegitScript = `ws=$1
check() { name=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "OK $name"; else echo "LOST $name"; fi; }
echo MARK-dev-stdout > /dev/stdout || echo "LOST dev-stdout"
echo MARK-proc-fd-1 > /proc/self/fd/1 || echo "LOST proc-fd-1"
echo MARK-dev-fd-1 > /dev/fd/1 || echo "LOST dev-fd-1"
echo MARK-dev-stderr > /dev/stderr || echo "LOST dev-stderr"
check dev-null sh -c 'echo x > /dev/null'
check pty python3 -c 'import os; m, s = os.openpty(); os.write(s, b"x\n"); print(os.read(m, 10))'
check tmp-file sh -c 'echo x > /tmp/a && test "$(cat /tmp/a)" = x'
check tmp-mkdir mkdir /tmp/d
check tmp-rename-across-dirs mv /tmp/a /tmp/d/a
check tmp-otmpfile python3 -c 'import os; os.open("/tmp", os.O_TMPFILE | os.O_WRONLY, 0o600)'
check tmp-fifo sh -c 'mkfifo /tmp/f && { echo hi > /tmp/f & } && read x < /tmp/f && test "$x" = hi'
check var-tmp sh -c 'echo x > /var/tmp/a'
check run sh -c 'echo x > /run/a'
check var-run sh -c 'echo x > /var/run/b'
check dev-shm sh -c 'echo x > /dev/shm/a'
check ws-file sh -c 'echo x > "$0/f" && echo y >> "$0/f"' "$ws"
check ws-truncate truncate -s 0 "$ws/f"
check ws-chmod chmod 600 "$ws/f"
check ws-touch-time touch -d 2001-01-01 "$ws/f"
check ws-mkdir mkdir -p "$ws/d/e"
check ws-rename-across-dirs mv "$ws/f" "$ws/d/e/f"
check ws-hard-link-across-dirs ln "$ws/d/e/f" "$ws/g"
check ws-symlink ln -s d/e/f "$ws/s"
check ws-fifo sh -c 'mkfifo "$0/p" && { echo hi > "$0/p" & } && read x < "$0/p" && test "$x" = hi' "$ws"
check ws-flock flock "$ws/g" true
check ws-through-tmp-link sh -c 'ln -s "$0" /tmp/wslink && echo x > /tmp/wslink/via-link' "$ws"
check ws-through-proc-cwd sh -c 'cd "$0" && echo x > /proc/self/cwd/via-cwd' "$ws"
check ws-from-tmp-move sh -c 'echo x > /tmp/m && mv /tmp/m "$0/m"' "$ws"
check ws-rm-r rm -r "$ws/d"
check ws-git sh -c 'cd "$0" && git init -q r && cd r && echo a > f && git add f && git -c user.email=a@b -c user.name=a commit -qm m && git log --oneline' "$ws"
check proc-oom-score-adj sh -c 'echo 500 > /proc/self/oom_score_adj'
check proc-comm sh -c 'echo renamed > /proc/self/comm'
check proc-coredump-filter sh -c 'echo 0 > /proc/self/coredump_filter'
check proc-pid1-read cat /proc/1/status
echo end
`

var s32ReviewLost = regexp.MustCompile(`(?m)^LOST .*$`)

// The Landlock domain that e1e6970 puts every bwrap run in refuses writes
// outside the workspace and the run's own directories; what a command does
// there must keep working: its standard streams through /dev/stdout and
// /proc/self/fd, a pty, files, FIFOs, renames and hard links across
// directories (Landlock's "refer" right), O_TMPFILE, chmod, utimes and
// truncate in the workspace, the workspace through a symlink in /tmp and
// through /proc/self/cwd, a move from /tmp into it, git, and its own
// /proc/self/oom_score_adj, comm and coredump_filter. As the default user
// and as WithUser(0, 0), reopening the standard streams by name too
// (/dev/stdout, /proc/self/fd/1: the pipes are the command's user's since
// f2f09b4; before it the default user could not, with or without e1e6970).
func TestAttackS32ReviewLegitimateWritesKept(t *testing.T) {
	needPython(t)
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.opts != nil {
				requireRoot(t)
			}
			ws := workspaceDir(t)
			sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(ws)}, c.opts...)...)
			o := sh(t, sb, s32ReviewLegitScript, ws)
			require.Contains(t, string(o.Stdout), "end\n", "the script did not finish")
			assert.Empty(t, s32ReviewLost.FindAllString(string(o.Stdout), -1), "a bwrap command lost these")
			for _, m := range []string{"MARK-dev-stdout", "MARK-proc-fd-1", "MARK-dev-fd-1"} {
				assert.Contains(t, string(o.Stdout), m+"\n")
			}
			assert.Contains(t, string(o.Stderr), "MARK-dev-stderr\n")
			for _, f := range []string{"g", "s", "m", "via-link", "via-cwd", "r/.git/HEAD"} {
				_, err := os.Lstat(filepath.Join(ws, f))
				assert.NoError(t, err, "%s is not in the workspace on the host", f)
			}
		})
	}
}
