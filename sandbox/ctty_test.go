package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A program that runs commands for an agent is often started from a
// person's terminal (the terminal approver asks there). A command that can
// open that terminal (/dev/tty, the controlling terminal of its session)
// writes to it past the output capture — a fake approval prompt, escape
// sequences that rewrite what the person sees — and, where TIOCSTI is
// allowed (dev.tty.legacy_tiocsti), types commands into the person's shell
// that run on the host after the agent exits.

// cttyHelperEnv names the engine a re-executed test binary runs the attack
// through, as a session leader whose controlling terminal is a pty the
// test holds (see TestMain).
const cttyHelperEnv = "TOOLBELT_TEST_CTTY_ENGINE"

// cttyAttack writes to the controlling terminal and pushes a byte into its
// input with TIOCSTI (0x5412), printing what got through.
const cttyAttack = `printf 'INJECTED-BY-COMMAND\n' > /dev/tty && echo OPENED
perl -e 'open(my $t, "<", "/dev/tty") or die "open: $!\n"; my $c = "Z"; ioctl($t, 0x5412, $c) or die "TIOCSTI: $!\n"; print "STI\n"'
true`

// cttyHelper runs cttyAttack through the named engine and prints its
// stdout and stderr; the exit status is 0 when the run could be made. As
// root, the process engine runs the command as 65534 (WithUser), as the
// other engines do by default.
func cttyHelper(name string) int {
	var opts []Option
	if name == EngineProcess && os.Geteuid() == 0 {
		opts = append(opts, WithUser(65534, 65534))
	}
	sb, err := New(name, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine:", err)
		return 3
	}
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", cttyAttack}, Limits: Limits{Timeout: 20 * time.Second}})
	if out == nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 4
	}
	fmt.Printf("stdout: %s\nstderr: %s\n", out.Stdout, out.Stderr)
	return 0
}

// cttyHeld runs cttyAttack through engine name from a process whose
// controlling terminal is a fresh pty, and reports whether nothing reached
// that terminal.
func cttyHeld(t *testing.T, name string) bool {
	t.Helper()
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	require.NoError(t, err)
	master := os.NewFile(uintptr(mfd), "ptmx")
	defer master.Close()
	require.NoError(t, unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	require.NoError(t, err)
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	defer slave.Close()
	// The pty is the session's terminal for any user the command may run as.
	require.NoError(t, slave.Chmod(0o620))

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), cttyHelperEnv+"="+name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, cmd.Run(), "helper: %s %s", stdout.String(), stderr.String())
	t.Logf("%s: %s", name, stdout.String())

	require.NoError(t, master.SetReadDeadline(time.Now().Add(500*time.Millisecond)))
	var seen bytes.Buffer
	buf := make([]byte, 4096)
	for {
		k, err := master.Read(buf)
		seen.Write(buf[:k])
		if err != nil {
			break
		}
	}
	t.Logf("%s: the terminal received %q", name, seen.String())
	got := stdout.String()
	return !strings.Contains(seen.String(), "INJECTED-BY-COMMAND") && !strings.Contains(got, "OPENED") && !strings.Contains(got, "STI\n")
}

// orphanHelperEnv names the engine a re-executed test binary runs a
// long command through until it is killed (see TestMain).
const orphanHelperEnv = "TOOLBELT_TEST_ORPHAN_ENGINE"

// orphanHelper starts a run of two background sleeps through the named
// engine, says "up" on stdout once the command runs, and waits to be
// killed.
func orphanHelper(name string) int {
	return runUntilKilled(name, "sleep 100 & sleep 100 & echo up; wait")
}

// runUntilKilled is the program a test starts with startHelper: it runs
// script (which says "up") through the named engine made with opts, says
// "up" on its own stdout once the command's output comes, and waits to be
// killed. It returns an exit status only when something went wrong.
func runUntilKilled(name, script string, opts ...Option) int {
	sb, err := New(name, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine:", err)
		return 3
	}
	var once bool
	_, err = sb.Run(context.Background(), Spec{
		Argv:   []string{"sh", "-c", script},
		Limits: Limits{Timeout: time.Minute},
		OnOutput: func(string, []byte) {
			if !once {
				once = true
				fmt.Println("up")
			}
		},
	})
	fmt.Fprintln(os.Stderr, "run ended:", err)
	return 4
}

// startHelper runs this test binary again with env added, as a program
// that starts a run (see TestMain), and returns once it says "up" on its
// stdout: the run's command is running. It fails the test, the program
// killed, when the program fails or does not say so within 30 s.
func startHelper(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	// A file, not a buffer: exec copies into a buffer from a goroutine of
	// its own while the helper runs.
	errFile, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer errFile.Close()
	cmd.Stderr = errFile
	stderr := func() string { b, _ := os.ReadFile(errFile.Name()); return string(b) }
	require.NoError(t, cmd.Start())
	up := make(chan bool, 1)
	go func() {
		b := make([]byte, 16)
		n, _ := io.ReadAtLeast(out, b, 3)
		up <- strings.HasPrefix(string(b[:n]), "up")
	}()
	select {
	case ok := <-up:
		if !ok {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("helper: %s", stderr())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the helper's run did not start: %s", stderr())
	}
	return cmd
}

// orphanHeld runs orphanHelper for engine name, kills it with SIGKILL once
// the command runs (the program that asked for the run crashed, or was
// killed), and reports whether every host process the run had made was
// gone within 5 s. Survivors are killed.
func orphanHeld(t *testing.T, name string) bool {
	t.Helper()
	cmd := startHelper(t, orphanHelperEnv+"="+name)
	procs := descendants(cmd.Process.Pid)
	require.NotEmpty(t, procs)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	alive := func() []int {
		var pids []int
		for pid, start := range procs {
			if s, ok := procStart(pid); ok && s == start {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	eventually(5*time.Second, func() bool { return len(alive()) == 0 })
	left := alive()
	if len(left) > 0 {
		t.Logf("%s: alive after the helper was killed: %s", name, describe(left))
		killAll(left)
	}
	return len(left) == 0
}

// descendants returns the host processes below pid, with their start
// times (to tell a recycled pid).
func descendants(pid int) map[int]string {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStatFields(p); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	out := map[int]string{}
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if s, ok := procStart(p); ok {
			out[p] = s
		}
		queue = append(queue, children[p]...)
	}
	return out
}

// procStatFields returns the fields of /proc/pid/stat after the command
// name: state, ppid, ... (so starttime is field 19).
func procStatFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// procStart returns pid's start time, and false when it is gone or a zombie.
func procStart(pid int) (string, bool) {
	f := procStatFields(pid)
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return "", false
	}
	return f[19], true
}

// ptyReadHeld types a line into a terminal the run's user owns (a pty
// whose slave is given to that uid, as a person's own terminal is theirs)
// and reports whether a command that opens the terminal by its path
// (/dev/pts/N) did not read the line: a command that can would take what
// the person types there, passwords included, away from their shell.
func ptyReadHeld(t *testing.T, sb Sandbox) bool {
	t.Helper()
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	master := os.NewFile(uintptr(mfd), "ptmx")
	defer master.Close()
	require.NoError(t, unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	require.NoError(t, err)
	pts := fmt.Sprintf("/dev/pts/%d", n)
	slave, err := os.OpenFile(pts, os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	defer slave.Close()
	require.NoError(t, slave.Chown(runUID(), -1))
	require.NoError(t, slave.Chmod(0o620))
	// Typed before the command runs: the line waits in the terminal for
	// its first reader.
	_, err = master.Write([]byte("typed-secret\n"))
	require.NoError(t, err)
	out, _ := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", `timeout 5 head -n1 "$1"; echo end`, "sh", pts}, Limits: Limits{Timeout: 20 * time.Second}})
	require.NotNil(t, out)
	t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end", "the attack did not run")
	return !strings.Contains(string(out.Stdout), "typed-secret")
}
