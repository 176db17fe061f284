package sandbox

import (
	"context"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initForkScript makes pid 1 of its pid namespace fork argv[1] times while
// it stays stopped under ptrace, the way initMmapScript makes it map memory:
// it seizes pid 1, interrupts it (in its wait4), and for each fork points
// it at its own syscall instruction with fork's number (57), single-steps
// it and reads the result; then it puts it back as it was. The children
// return 0 into pid 1's code and exit or wait, and pid 1, stopped, reaps
// none of them: each stays a process of the run's uid, which the process
// limit counts. It prints how many forks returned a pid.
const initForkScript = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
SEIZE, INTERRUPT, GETREGS, SETREGS, SINGLESTEP, DETACH = 0x4206, 0x4207, 12, 13, 9, 17
RAX, ORIG_RAX, RIP = 10, 15, 16
n = int(sys.argv[1])
def call(req, data=None):
    r = libc.ptrace(req, 1, None, data)
    if r < 0:
        raise OSError(ctypes.get_errno(), "ptrace %d" % req)
forked, refused = 0, []
try:
    call(SEIZE)
    call(INTERRUPT)
    os.waitpid(1, 0x40000000)
    saved = (ctypes.c_ulong * 27)()
    call(GETREGS, ctypes.addressof(saved))
    regs = (ctypes.c_ulong * 27)()
    for i in range(n):
        ctypes.memmove(regs, saved, ctypes.sizeof(saved))
        regs[RIP] = saved[RIP] - 2
        regs[ORIG_RAX] = ctypes.c_ulong(-1).value
        regs[RAX] = 57
        call(SETREGS, ctypes.addressof(regs))
        # A signal (SIGCHLD of a child that exited) stops pid 1 before the
        # step: pass it over (it is not delivered) and step again.
        while True:
            call(SINGLESTEP)
            _, st = os.waitpid(1, 0x40000000)
            if os.WIFSTOPPED(st) and os.WSTOPSIG(st) == 5 and st >> 16 == 0:
                break
        call(GETREGS, ctypes.addressof(regs))
        res = ctypes.c_long(regs[RAX]).value
        if res > 0:
            forked += 1
        else:
            refused.append(res)
    call(SETREGS, ctypes.addressof(saved))
    call(DETACH)
except OSError as e:
    print("ptrace refused:", e)
print("refused:", sorted(set(refused)))
print("FORKED %d OF %d" % (forked, n))
print("end")
`

// orphanScript makes argv[1] orphans, each the child of a child that has
// exited, while holding at most two processes of its own at a time, and
// prints how many forks it made. An orphan goes to pid 1 of the run's pid
// namespace: unless pid 1 reaps it, it stays a zombie that the process
// limit counts, and the forks stop. A fork refused (EAGAIN) is tried again
// for up to 30 seconds: pid 1 reaps an orphan when it is scheduled.
const orphanScript = `
import os, sys, time
def fork():
    deadline = time.monotonic() + 30
    while True:
        try:
            return os.fork()
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
n = int(sys.argv[1])
made = 0
try:
    for i in range(n):
        pid = fork()
        if pid == 0:
            try:
                if fork() == 0:
                    os._exit(0)
            except OSError:
                os._exit(1)
            os._exit(0)
        _, st = os.waitpid(pid, 0)
        if st != 0:
            break
        made += 1
except OSError as e:
    print("refused:", e)
print("ORPHANS %d" % made)
`

// A bwrap run reaps the orphans of its command: they go to the run's first
// process, a shell that waits for the command, and do not pile up as
// zombies against the process limit, however many the command makes over
// the run (TestAttackS16BwrapInitForksPastProcessLimit says why the
// command's own init is a shell).
func TestBwrapRunReapsOrphans(t *testing.T) {
	needPython(t)
	const limit, orphans = 8, 40
	sb := engine(t, EngineBwrap)
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"python3", "-c", orphanScript, strconv.Itoa(orphans)},
		Limits: Limits{Timeout: 2 * time.Minute, Processes: limit},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.NoError(t, err)
	assert.Contains(t, string(out.Stdout), "ORPHANS "+strconv.Itoa(orphans)+"\n")
}

// A bwrap run's process limit holds for every process in the run. pid 1 of
// the run's pid namespace was bwrap's own init: of the command's uid,
// dumpable, so the command could ptrace it, and started without the
// process limit (set on bwrap, RLIMIT_NPROC would count the uid's
// processes on the whole host). Seized by the command, it forked all 24
// times under a limit of 8. The run already holds pid 1 and the command,
// so at most Processes-2 forks may succeed; the assertion allows
// Processes.
func TestAttackS16BwrapInitForksPastProcessLimit(t *testing.T) {
	needPython(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the ptrace injection is written for amd64")
	}
	const limit = 8
	sb := engine(t, EngineBwrap)
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"python3", "-c", initForkScript, strconv.Itoa(3 * limit)},
		Limits: Limits{Timeout: time.Minute, Processes: limit},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end", "the attack did not run")
	m := regexp.MustCompile(`FORKED (\d+) OF`).FindSubmatch(out.Stdout)
	require.NotNil(t, m, "no count printed")
	n, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	assert.LessOrEqual(t, n, limit, "pid 1 forked past the run's process limit of %d", limit)
}
