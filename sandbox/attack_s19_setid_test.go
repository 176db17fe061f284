package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setIDByNewerCalls creates files with the setuid bit through the calls
// that take a mode the older filters do not look at: openat2(2), whose mode
// sits in a structure (struct open_how), and io_uring's IORING_OP_OPENAT
// and IORING_OP_OPENAT2, which no system call filter sees. It prints one
// line per try and "end".
const setIDByNewerCalls = `
import ctypes, mmap, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT = -100
def sc(n, *args):
    return libc.syscall(n, *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
how = struct.pack("QQQ", os.O_WRONLY | os.O_CREAT, 0o4755, 0)
r = sc(437, AT, b"openat2", how, len(how))
print("openat2", "OK" if r >= 0 else "refused: " + os.strerror(ctypes.get_errno()), flush=True)
p = ctypes.create_string_buffer(120)
ring = sc(425, 4, p)
print("io_uring_setup", "OK" if ring >= 0 else "refused: " + os.strerror(ctypes.get_errno()), flush=True)
if ring >= 0:
    sqn, cqn = struct.unpack_from("II", p, 0)
    sq, cq = struct.unpack_from("7I", p, 40), struct.unpack_from("6I", p, 80)
    sqr = mmap.mmap(ring, sq[6] + sqn * 4, offset=0)
    cqr = mmap.mmap(ring, cq[5] + cqn * 16, offset=0x8000000)
    sqes = mmap.mmap(ring, sqn * 64, offset=0x10000000)
    path = ctypes.create_string_buffer(b"ring")
    # IORING_OP_OPENAT (18): fd, addr = path, len = mode, open_flags.
    sqes[0:64] = struct.pack("BBHiQQII", 18, 0, 0, AT, 0, ctypes.addressof(path), 0o4755, os.O_WRONLY | os.O_CREAT).ljust(64, b"\0")
    struct.pack_into("I", sqr, sq[6], 0)
    struct.pack_into("I", sqr, sq[1], struct.unpack_from("I", sqr, sq[1])[0] + 1)
    if sc(426, ring, 1, 1, 1, None, 0) >= 0:
        head, = struct.unpack_from("I", cqr, cq[0])
        res, = struct.unpack_from("i", cqr, cq[5] + (head & struct.unpack_from("I", cqr, cq[2])[0]) * 16 + 8)
        print("io_uring_openat", "OK" if res >= 0 else "refused: " + os.strerror(-res), flush=True)
print("end")
`

// Attack: every engine's filter refuses the setuid and setgid bits at a
// file's creation through open, openat and creat (setIDBlocks), so that a
// command leaves no program in the workspace that runs as its user for
// whoever else runs it (TestAttackLandlockSetuidRoot: a landlock command
// run WithUser(1234, 1234) leaves -rwsr-xr-x 1234 programs). bwrap's and
// gVisor's filters also refuse openat2(2) and io_uring_setup(2), whose
// modes no filter can read; landlock's did not: openat2 made a setuid file
// in the workspace on every landlock run, and with the network on (where
// io_uring was allowed) so did the ring's IORING_OP_OPENAT.
func TestAttackS19SetIDThroughOpenat2AndIoUring(t *testing.T) {
	requireRoot(t)
	needPython(t)
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{EngineLandlock, []Option{WithUser(1234, 1234)}},
		{EngineLandlock, []Option{WithUser(1234, 1234), WithNetwork(true)}},
		{EngineLandlock, nil},
		{EngineBwrap, nil},
		{EngineBwrap, []Option{WithNetwork(true)}},
		{EngineGVisor, nil},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.name, len(tc.opts)), func(t *testing.T) {
			ws := workspaceDir(t)
			out := sh(t, engine(t, tc.name, append(tc.opts, WithWorkspace(ws))...), `python3 -c "$1" 2>&1`, setIDByNewerCalls)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			for _, f := range []string{"openat2", "ring"} {
				fi, err := os.Stat(filepath.Join(ws, f))
				if err == nil {
					assert.Zero(t, fi.Mode()&(os.ModeSetuid|os.ModeSetgid), "%s was made %v", f, fi.Mode())
				}
			}
		})
	}
}
