package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The guards of S33: attacks that did not work on bwrap and gvisor when
// they were tried (2026-11-30), kept because they are cheap.

// s33ReadCmdlines reads every command line under /proc, prints how many
// it read ("read N") and each word among them that starts with $1.
const s33ReadCmdlines = `n=0; for f in /proc/[0-9]*/cmdline; do
  c=$(tr '\0' '\n' < "$f" 2>/dev/null) || continue; [ -n "$c" ] || continue
  n=$((n+1)); printf '%s\n' "$c" | grep "^$1" || :
done; echo "read $n"; echo end`

// s33CommandLines starts a host process with a secret in its command line
// and runs s33ReadCmdlines through engine eng; it returns whether the
// command printed the secret, and how many command lines it read.
func s33CommandLines(t *testing.T, eng string) (leaked bool, read int) {
	t.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:])
	secret := "S33ARGSECRET-" + hex.EncodeToString(b[:])
	host := exec.Command("sh", "-c", "read x", "sh", secret)
	stdin, err := host.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, host.Start())
	defer func() { stdin.Close(); _ = host.Wait() }()
	o := s33Run(t, engine(t, eng, WithWorkspace(workspaceDir(t))), Spec{Argv: []string{"sh", "-c", s33ReadCmdlines, "sh", "S33ARGSECRET-"}})
	out := string(o.Stdout)
	require.Contains(t, out, "end", "the attack did not run")
	m := regexp.MustCompile(`read (\d+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "no count")
	read, _ = strconv.Atoi(m[1])
	return regexp.MustCompile(`(?m)^` + secret + `$`).MatchString(out), read
}

// s33LinkOut tries to put a file into, or take one from, the host
// directory $1 (mode 0777, owned by the command's user, holding victim,
// mode 0666, of that user) by the link and rename calls a write check
// might not see: an O_TMPFILE made in the workspace or /tmp and linked
// there through /proc/self/fd (linkat AT_SYMLINK_FOLLOW), a hard link to
// the victim made in the workspace and written, the victim moved into
// the workspace and a workspace file moved out.
const s33LinkOut = `/usr/bin/python3 - "$1" <<'EOF'
import os, sys
for src in (os.getcwd(), "/tmp"):
    try:
        fd = os.open(src, os.O_TMPFILE | os.O_WRONLY, 0o644)
        os.write(fd, b"pwned\n")
        os.link("/proc/self/fd/%d" % fd, os.path.join(sys.argv[1], "tmpfile"), follow_symlinks=True)
        print("LINKED", src)
    except OSError as e:
        print("refused", src, e)
EOF
ln "$1/victim" h 2>/dev/null && echo pwned >> h && echo HARDLINKED
mv "$1/victim" moved 2>/dev/null && echo MOVEDIN
echo x > out && mv out "$1/out" 2>/dev/null && echo MOVEDOUT
echo end`

// A command cannot reach a host directory by linking or renaming across
// the workspace's mount or Landlock's rules: an O_TMPFILE linked out
// through /proc/self/fd, a hard link to a host file of its own user, a
// rename in either direction. Each engine refuses each (EXDEV, EROFS or
// EACCES) and the host directory is unchanged.
func TestAttackS33LinkAndRenameOutOfTheWorkspace(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			out := openDir(t)
			victim := filepath.Join(out, "victim")
			require.NoError(t, os.WriteFile(victim, []byte("host\n"), 0o666))
			require.NoError(t, os.Chown(victim, runUID(), runUID()))
			before := dirState(t, out)
			o := s33Run(t, engine(t, eng, WithWorkspace(workspaceDir(t))), Spec{Argv: []string{"sh", "-c", s33LinkOut, "sh", out}})
			stdout := string(o.Stdout)
			require.Contains(t, stdout, "end", "the attack did not run")
			require.Equal(t, 2, len(regexp.MustCompile(`(?m)^(refused|LINKED) `).FindAllString(stdout, -1)), "python did not run")
			for _, w := range []string{`LINKED .*`, "HARDLINKED", "MOVEDIN", "MOVEDOUT"} {
				assert.NotRegexp(t, `(?m)^`+w+`$`, stdout, "a %s command got through", eng)
			}
			assert.Equal(t, before, dirState(t, out), "the host directory changed")
			b, err := os.ReadFile(victim)
			require.NoError(t, err)
			assert.Equal(t, "host\n", string(b), "the host file changed")
		})
	}
}

// s33Killer signals every process it can (kill -9 -1), then every pid it
// finds under /proc whose command line holds $2 (a concurrent run's, in
// the host's /proc where the command sees that), and the pid $1 (a host
// process of the command's user), by number.
const s33Killer = `kill -9 -1 2>/dev/null
for f in /proc/[0-9]*/cmdline; do
  tr '\0' '\n' < "$f" 2>/dev/null | grep -q "$2" || continue
  p=${f#/proc/}; p=${p%/cmdline}; [ "$p" = $$ ] || { kill -9 "$p" 2>/dev/null && echo "KILLED $p"; }
done
kill -9 "$1" 2>/dev/null && echo "KILLED host $1"; echo end`

// Two runs at once with one uid (a workspace that 65534 owns, so bwrap
// runs stay host uid 65534; landlock's as root are 65534 anyway), and a
// host process of that uid: the first run's kill -9 -1, and kill -9 of
// the other's pids by number, reach neither. Each run is a pid namespace
// of its own (bwrap, landlock as root), Landlock scopes signals, gvisor
// has its own kernel.
func TestAttackS33KillOtherRunsOfTheSameUID(t *testing.T) {
	requireRoot(t)
	host := exec.Command("sh", "-c", "read x")
	host.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	stdin, err := host.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, host.Start())
	defer func() { stdin.Close(); _ = host.Wait() }()
	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.Chown(ws, nobody, nobody))
			sb := engine(t, eng, WithWorkspace(ws))
			marker := "s33-victim-" + eng
			victim, finished := make(chan *Outcome, 1), make(chan struct{})
			// On a failure below, the victim still ends, before its
			// workspace is removed.
			t.Cleanup(func() {
				_ = os.WriteFile(filepath.Join(ws, "attacked"), nil, 0o644)
				<-finished
			})
			go func() {
				defer close(finished)
				o, _ := sb.Run(context.Background(), Spec{
					Argv:   []string{"sh", "-c", `: > started; while [ ! -e attacked ]; do sleep 0.05; done; echo survived`, marker},
					Limits: Limits{Timeout: 60 * time.Second},
				})
				victim <- o
			}()
			require.Eventually(t, func() bool {
				_, err := os.Stat(filepath.Join(ws, "started"))
				return err == nil
			}, 30*time.Second, 10*time.Millisecond, "the victim run did not start")
			o := s33Run(t, sb, Spec{Argv: []string{"sh", "-c", s33Killer, "sh", strconv.Itoa(host.Process.Pid), marker}})
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			require.NoError(t, os.WriteFile(filepath.Join(ws, "attacked"), nil, 0o644))
			v := <-victim
			require.NotNil(t, v)
			assert.Contains(t, string(v.Stdout), "survived", "a %s command killed a concurrent run of its uid (%s)", eng, o.Stdout)
			assert.False(t, dead(host.Process.Pid), "a %s command killed a host process of its uid", eng)
		})
	}
}

// A command of bwrap or gvisor reads the command lines of its own run
// only: each gives it a /proc of its own pid namespace, so a host
// process's argument (a password on mysql -p, a token on curl -H, the
// program's own --api-key) stays out of its reach. (A landlock command,
// which sees the host's /proc, read it: see the S33 report.)
func TestAttackS33CommandReadsHostCommandLines(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			leaked, read := s33CommandLines(t, eng)
			assert.False(t, leaked, "a %s command read a host process's command line (%d command lines read)", eng, read)
			assert.Positive(t, read, "the command read no command line, not even its own")
		})
	}
}
