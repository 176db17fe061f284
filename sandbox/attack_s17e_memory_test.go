package sandbox

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryHoldAttack keeps memory that counts against no process's address
// space (RLIMIT_AS, Limits.Memory): argv[1] "memfd" writes into anonymous
// memory files (memfd_create) without mapping them, "sysv" fills System V
// shared memory segments one at a time, detaching each (its pages stay with
// the segment), "msg" fills System V message queues. It tries $3 pieces of
// $2 MiB (msg: as much in all) and prints how many MiB it held.
const memoryHoldAttack = `import ctypes, os, sys
mode, per, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held, keep = 0, []
chunk = b"x" * (1 << 20)
try:
    if mode == "memfd":
        for i in range(n):
            fd = os.memfd_create("m%d" % i)
            keep.append(fd)
            for j in range(per):
                os.write(fd, chunk)
                held += 1
    elif mode == "msg":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.msgget.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.msgsnd.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        msg = ctypes.create_string_buffer(8 + 8192)
        ctypes.c_long.from_buffer(msg).value = 1
        sent = 0
        while sent < (per * n) << 20:
            qid = libc.msgget(0, 0o1600)
            if qid < 0:
                raise OSError(ctypes.get_errno(), "msgget")
            while sent < (per * n) << 20 and libc.msgsnd(qid, msg, 8192, 0o4000) == 0:  # IPC_NOWAIT
                sent += 8192
                held = sent >> 20
            if sent < (per * n) << 20 and ctypes.get_errno() != 11:  # EAGAIN: this queue is full
                raise OSError(ctypes.get_errno(), "msgsnd")
    else:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
        libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        libc.shmat.restype = ctypes.c_void_p
        libc.shmdt.argtypes = [ctypes.c_void_p]
        for i in range(n):
            sid = libc.shmget(0, per << 20, 0o1600)
            if sid < 0:
                raise OSError(ctypes.get_errno(), "shmget")
            addr = libc.shmat(sid, None, 0)
            if addr is None or addr == ctypes.c_void_p(-1).value:
                raise OSError(ctypes.get_errno(), "shmat")
            ctypes.memset(addr, 120, per << 20)
            libc.shmdt(addr)
            held += per
except OSError as e:
    print("refused:", e, file=sys.stderr)
print(held)
`

// TestAttackS17EMemoryOutsideTheAddressSpace: a run under Limits.Memory
// cannot keep three times its limit in memory that no address space
// counts, as it could not in bwrap's and gVisor's tmpfs directories since
// TestAttackTmpfsOutgrowsMemoryLimit. process and landlock are left out:
// the first bounds nothing but rlimits and shares the host's System V IPC;
// landlock refuses System V IPC, and its private TMPDIR, on the host's
// /dev/shm, holds as much as a memfd (docs/sandbox.md, "Memory").
func TestAttackS17EMemoryOutsideTheAddressSpace(t *testing.T) {
	needPython(t)
	const limitMiB, per, n = 128, 64, 6 // 384 MiB tried
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name, WithWorkspace(workspaceDir(t)))
			for _, mode := range []string{"memfd", "sysv", "msg"} {
				out, err := sb.Run(context.Background(), Spec{
					Argv:   []string{"python3", "-c", memoryHoldAttack, mode, strconv.Itoa(per), strconv.Itoa(n)},
					Limits: Limits{Timeout: 60 * time.Second, Memory: limitMiB << 20},
				})
				require.NoError(t, err, "%s %s: %s %s", name, mode, out.Stdout, out.Stderr)
				held, err := strconv.Atoi(strings.TrimSpace(string(out.Stdout)))
				require.NoError(t, err, "%s %s: stdout %q stderr %q", name, mode, out.Stdout, out.Stderr)
				t.Logf("%s %s: held %d MiB under a %d MiB limit (%s)", name, mode, held, limitMiB, strings.TrimSpace(string(out.Stderr)))
				assert.LessOrEqual(t, held, limitMiB, "%s: %s held %d MiB outside the address space under a %d MiB limit", name, mode, held, limitMiB)
			}
		})
	}
}
