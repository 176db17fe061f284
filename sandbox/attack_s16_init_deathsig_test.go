package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initDeathsigScript clears the parent-death signal of pid 1 of its pid
// namespace, the way initForkScript makes it fork: it seizes pid 1 (the
// run's shell, of the command's uid), interrupts it and has it call
// prctl(PR_SET_PDEATHSIG, 0) (157 on amd64), then lets it go. Then it
// starts "sleep argv[1]" (the run's marker) and waits for ever.
const initDeathsigScript = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
SEIZE, INTERRUPT, GETREGS, SETREGS, SINGLESTEP, DETACH = 0x4206, 0x4207, 12, 13, 9, 17
RAX, RSI, RDI, ORIG_RAX, RIP = 10, 13, 14, 15, 16
def call(req, data=None):
    if libc.ptrace(req, 1, None, data) < 0:
        raise OSError(ctypes.get_errno(), "ptrace %d" % req)
try:
    call(SEIZE)
    call(INTERRUPT)
    os.waitpid(1, 0x40000000)
    saved = (ctypes.c_ulong * 27)()
    call(GETREGS, ctypes.addressof(saved))
    regs = (ctypes.c_ulong * 27)()
    ctypes.memmove(regs, saved, ctypes.sizeof(saved))
    regs[RIP] = saved[RIP] - 2
    regs[ORIG_RAX] = ctypes.c_ulong(-1).value
    regs[RAX], regs[RDI], regs[RSI] = 157, 1, 0
    call(SETREGS, ctypes.addressof(regs))
    while True:
        call(SINGLESTEP)
        _, st = os.waitpid(1, 0x40000000)
        if os.WIFSTOPPED(st) and os.WSTOPSIG(st) == 5 and st >> 16 == 0:
            break
    call(GETREGS, ctypes.addressof(regs))
    print("CLEARED %d" % ctypes.c_long(regs[RAX]).value)
    call(SETREGS, ctypes.addressof(saved))
    call(DETACH)
except OSError as e:
    print("ptrace refused:", e)
if os.fork() == 0:
    os.execvp("sleep", ["sleep", sys.argv[1]])
print("up", flush=True)
while True:
    time.sleep(60)
`

// A bwrap run stopped by its timeout leaves no process, even when the
// command has cleared the death signal of the run's first process (its
// shell, which it can ptrace): that process dies with the run because the
// run is killed as a pid namespace (bwrap is the first process of one of
// the run's own), not through bwrap's --die-with-parent alone. Held when
// tried on b87f3ec; with the plan's pidns off (only the death signal
// between the run's end and pid 1), pid 1, the command and the sleep
// outlived the run and this failed.
func TestAttackS16InitWithoutDeathSignalDiesWithTheRun(t *testing.T) {
	needPython(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the ptrace injection is written for amd64")
	}
	sb := engine(t, EngineBwrap)
	marker := fmt.Sprintf("7%05d.%04d", rand.IntN(100000), rand.IntN(10000))
	t.Cleanup(func() { killAll(procsWithAny([]string{marker})) })
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"python3", "-c", initDeathsigScript, marker},
		Limits: Limits{Timeout: 10 * time.Second},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "CLEARED 0\n", "the attack did not run")
	require.Contains(t, string(out.Stdout), "up\n")
	assert.True(t, out.TimedOut, "the run was stopped by its timeout: %v", err)
	// A process SIGKILLed as Run returned may still be exiting.
	assert.Eventually(t, func() bool { return len(procsWithAny([]string{marker})) == 0 }, 10*time.Second, 10*time.Millisecond,
		"processes of the run outlived it: %s", describe(procsWithAny([]string{marker})))
}
