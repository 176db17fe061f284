package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32ReviewInitMarker is the argument that makes this program's executable,
// started as the first process of a pid namespace, confine itself and exec
// the rest of its arguments (e1e6970), spelled out: the test is about what
// a command could do with it.
const s32ReviewInitMarker = "-toolbelt-sandbox-bwrap-init"

// s32ReviewInitScript lists every link of the run's processes' exe and
// descriptors ("LINK pid what target"), pid 1's command line ("CMDLINE"),
// then runs the copy of this program's executable $1 with the marker,
// asking it to let writes through everywhere (-w /) and write to the host
// FIFO $2: plainly, and as the first process of a new pid namespace
// (unshare, which needs a user namespace the run may not make).
const s32ReviewInitScript = `for p in /proc/[0-9]*; do
	for l in "$p/exe" "$p"/fd/*; do
		t=$(readlink "$l" 2>/dev/null) && echo "LINK ${p#/proc/} ${l#$p/} $t"
	done
done
echo "CMDLINE $(tr '\0' ' ' < /proc/1/cmdline)"
cmd='if echo MARKER-TOKEN > "$0"; then echo WROTE; fi'
"$1" ` + s32ReviewInitMarker + ` -w / -- /bin/sh -c "$cmd" "$2" 2>&1 | head -c 300; echo
if command -v unshare >/dev/null; then
	unshare -Urpf --mount-proc "$1" ` + s32ReviewInitMarker + ` -w / -- /bin/sh -c "$cmd" "$2" 2>&1 | head -c 300; echo
fi
echo end`

// What a bwrap command can do with e1e6970's first process, this
// program's executable started by descriptor with a marker argument: it
// must find no descriptor or exe link of it in the run (the init marks
// every descriptor close-on-exec and execs prlimit, then sh), pid 1's
// command line must not show the marker, and a copy of the executable run
// with the marker and "-w /" must not lift the run's confinement: not pid
// 1, it starts as a program (the test binary: an unknown flag), and as pid
// 1 of a new pid namespace it would need a user namespace the run may not
// make (and a Landlock domain can only be narrowed).
func TestAttackS32ReviewInitExecutable(t *testing.T) {
	requireRoot(t) // the FIFO's directory is made under /
	exe, err := os.Executable()
	require.NoError(t, err)
	ws := workspaceDir(t)
	cp := filepath.Join(ws, "prog")
	src, err := os.Open(exe)
	require.NoError(t, err)
	dst, err := os.OpenFile(cp, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	src.Close()
	require.NoError(t, err)
	require.NoError(t, dst.Close())
	fifo, fd := s32ReviewHostFifo(t)

	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(ws)}, c.opts...)...)
			o := sh(t, sb, s32ReviewInitScript, cp, fifo)
			out := string(o.Stdout)
			require.Contains(t, out, "end\n", "the attack did not run")
			require.Contains(t, out, "LINK 1 exe ", "the run's processes were not listed")
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "LINK ") {
					assert.NotContains(t, line, exe, "a process of the run holds this program's executable")
					assert.NotContains(t, line, filepath.Base(exe), "a process of the run holds this program's executable")
				}
			}
			assert.NotContains(t, out, "CMDLINE "+"/proc/self/fd", "pid 1 is still the first process")
			assert.NotRegexp(t, `CMDLINE [^\n]*`+s32ReviewInitMarker, out, "pid 1 shows the marker")
			// (pid 1's command line holds the script, "WROTE" among it.)
			assert.NotRegexp(t, `(?m)^WROTE$`, out, "the executable run with the marker let the command write to the host FIFO")
			assert.Empty(t, s32FifoRead(t, fd), "a bwrap command wrote to the host FIFO %s", fifo)
		})
	}
}

// e1e6970 hands the loader's variables (LD_*, ...) and the Go runtime's
// (GODEBUG, ...) of Spec.Env to the first process as "-e NAME=VALUE"
// arguments, so that they act on the command and not on it. Values that
// look like its own arguments ("--", "-w /", newlines) must reach the
// command as they are and change nothing else: the command still may not
// write to a host FIFO, and GODEBUG=inittrace=1, which makes every Go
// program print a line per package init, must not make the first process
// print (its stderr is the command's).
func TestAttackS32ReviewInitArgumentsFromEnv(t *testing.T) {
	requireRoot(t) // the FIFO's directory is made under /
	fifo, fd := s32ReviewHostFifo(t)
	env := []string{
		"GODEBUG=inittrace=1",
		"GOTRACEBACK=--",
		"GORACE=-w /",
		"LD_S32_A=--",
		"LD_S32_B=-w",
		"LD_S32_C=x\n-- /bin/sh -c 'echo INJECTED'\n-w /",
		"S32_PLAIN=-e LD_PRELOAD=/nonexistent.so -- -w /",
	}
	sb := engine(t, EngineBwrap, WithWorkspace(workspaceDir(t)))
	out, err := sb.Run(context.Background(), Spec{
		Argv: []string{"sh", "-c", `for v in GODEBUG GOTRACEBACK GORACE LD_S32_A LD_S32_B LD_S32_C S32_PLAIN; do printf '%s=%s\0' "$v" "$(printenv "$v")"; done
if echo FIFO-TOKEN > "$0"; then echo WROTE; fi; echo end`, fifo},
		Env:    env,
		Limits: Limits{Timeout: 30 * time.Second},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %q\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end\n", "the command did not run")
	got := strings.Split(string(out.Stdout), "\x00")
	require.Len(t, got, len(env)+1)
	for i, kv := range env {
		assert.Equal(t, kv, got[i], "Spec.Env did not reach the command as it was")
	}
	assert.NotRegexp(t, `(?m)^WROTE$`, string(out.Stdout), "the command wrote to the host FIFO")
	assert.NotRegexp(t, `(?m)^INJECTED$`, string(out.Stdout)+string(out.Stderr), "a variable's value ran as a command")
	assert.NotRegexp(t, regexp.MustCompile(`(?m)^init \S+ @`), string(out.Stderr), "GODEBUG acted on the run's first process")
	assert.Empty(t, s32FifoRead(t, fd), "a bwrap command wrote to the host FIFO %s", fifo)
}

// e1e6970 no longer sets the memory limit on bwrap (the first process is a
// Go program, which cannot start under it): the prlimit it execs sets it.
// Every process of the run must have it, pid 1 among them, and the command
// must not map past it.
func TestAttackS32ReviewMemoryLimitOnEveryProcess(t *testing.T) {
	needPython(t)
	const limit = 256 << 20
	sb := engine(t, EngineBwrap)
	out, err := sb.Run(context.Background(), Spec{
		Argv: []string{"sh", "-c", `for p in /proc/[0-9]*; do echo "AS ${p#/proc/} $(awk '/^Max address space/ {print $4}' "$p/limits" 2>/dev/null)"; done
python3 -c '
try:
    b = bytearray(512 << 20); print("MAPPED")
except MemoryError:
    print("refused")
'
echo end`},
		Limits: Limits{Timeout: 30 * time.Second, Memory: limit},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end\n")
	require.Contains(t, string(out.Stdout), "AS 1 ", "pid 1 was not listed")
	n := 0
	for _, m := range regexp.MustCompile(`(?m)^AS (\d+) (\S*)$`).FindAllStringSubmatch(string(out.Stdout), -1) {
		if m[2] == "" {
			continue // gone meanwhile (the awk, the $(...) subshell)
		}
		n++
		assert.Equal(t, strconv.Itoa(limit), m[2], "process %s of the run has no memory limit", m[1])
	}
	assert.GreaterOrEqual(t, n, 2)
	assert.Contains(t, string(out.Stdout), "refused\n")
	assert.NotContains(t, string(out.Stdout), "MAPPED")
}
