package sandbox

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// setnsScript tries to join, for each pid in argv, its user namespace (and
// then its network namespace) through /proc/PID/ns and through a pidfd.
const setnsScript = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
NEWUSER, NEWNET = 0x10000000, 0x40000000
for pid in sys.argv[1:]:
    for how in ("proc", "pidfd"):
        try:
            if how == "proc":
                fd = os.open("/proc/%s/ns/user" % pid, os.O_RDONLY)
            else:
                fd = libc.syscall(434, int(pid), 0)
                if fd < 0:
                    raise OSError(ctypes.get_errno(), "pidfd_open")
        except OSError as e:
            print("no fd", how, pid, e)
            continue
        if libc.setns(fd, NEWUSER) == 0:
            print("SETNS", how, pid)
            eff = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff:")][0]
            print("CAPS", eff)
        else:
            print("refused", how, pid, os.strerror(ctypes.get_errno()))
print("end")
`

// A landlock command may not join the user namespace of another process
// either: a concurrent bwrap run's, made by uid 65534, in which uid 65534
// holds every capability.
func TestReviewS13LandlockSetnsIntoBwrapUserns(t *testing.T) {
	requireRoot(t)
	needPython(t)
	bw := engine(t, EngineBwrap)
	ll := landlockEngine(t)
	marker := "9" + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = bw.Run(ctx, Spec{Argv: []string{"sleep", marker}, Limits: Limits{Timeout: time.Minute}})
	}()
	defer func() { cancel(); <-done }()
	var pids []int
	require.True(t, eventually(20*time.Second, func() bool {
		pids = hostProcsWith(marker)
		return len(pids) >= 2
	}), "the bwrap run did not start")
	args := []string{"-c", setnsScript}
	for _, p := range pids {
		args = append(args, strconv.Itoa(p))
	}
	out, _ := ll.Run(context.Background(), Spec{Argv: append([]string{"python3"}, args...), Limits: Limits{Timeout: 30 * time.Second}})
	require.NotNil(t, out)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end")
	assert.NotContains(t, string(out.Stdout), "SETNS")
}

// The first process of a landlock run (as root) is a shell; the command
// can neither kill it nor make the run report something other than its
// own exit.
func TestReviewS13LandlockInitSignals(t *testing.T) {
	requireRoot(t)
	ll := landlockEngine(t)
	out := sh(t, ll, `kill -KILL 1 2>&1; kill -TERM 1 2>&1; kill -STOP 1 2>&1; echo alive; exit 3`)
	assert.Contains(t, string(out.Stdout), "alive")
	assert.Equal(t, 3, out.ExitCode)
	assert.Zero(t, out.Signal)
}

// initMmapScript maps 1 GiB itself, then makes pid 1 of its pid namespace
// (the landlock run's shell, same uid, same Landlock domain) map 1 GiB: it
// seizes it with ptrace, interrupts its wait4, points it at its own
// syscall instruction with mmap's arguments, single-steps it, reads the
// result and puts it back as it was.
const initMmapScript = `
import ctypes, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
GIB = 1 << 30
try:
    mmap.mmap(-1, GIB)
    print("SELF-MAPPED")
except OSError as e:
    print("self refused:", e)
SEIZE, INTERRUPT, GETREGS, SETREGS, SINGLESTEP, DETACH = 0x4206, 0x4207, 12, 13, 9, 17
RAX, RDX, RSI, RDI, ORIG_RAX, RIP, R10, R8, R9 = 10, 12, 13, 14, 15, 16, 7, 9, 8
def call(req, data=None):
    r = libc.ptrace(req, 1, None, data)
    if r < 0:
        raise OSError(ctypes.get_errno(), "ptrace %d" % req)
try:
    call(SEIZE)
    call(INTERRUPT)
    os.waitpid(1, 0x40000000)
    saved = (ctypes.c_ulong * 27)()
    call(GETREGS, ctypes.addressof(saved))
    regs = (ctypes.c_ulong * 27)(*saved)
    regs[RIP] = saved[RIP] - 2
    regs[ORIG_RAX] = ctypes.c_ulong(-1).value
    regs[RAX], regs[RDI], regs[RSI], regs[RDX], regs[R10], regs[R8], regs[R9] = 9, 0, GIB, 3, 0x22, ctypes.c_ulong(-1).value, 0
    call(SETREGS, ctypes.addressof(regs))
    call(SINGLESTEP)
    os.waitpid(1, 0x40000000)
    call(GETREGS, ctypes.addressof(regs))
    res = ctypes.c_long(regs[RAX]).value
    call(SETREGS, ctypes.addressof(saved))
    call(DETACH)
    if 0 < res < (1 << 47):
        print("INIT-MAPPED", hex(res))
    else:
        print("init refused:", res)
except OSError as e:
    print("ptrace refused:", e)
print("end")
`

// A landlock command run by root must not get a process of its run to
// map memory past its limit. The run's first process, the shell that
// starts the command (pid namespace init), ran without the run's
// rlimits, as uid 65534 in the same Landlock domain as the command: the
// command seized it with ptrace and had it map 1 GiB under a 256 MiB
// memory limit (and so, the same way, use CPU and write files past
// theirs).
func TestAttackReviewS13LandlockInitEscapesLimits(t *testing.T) {
	requireRoot(t)
	needPython(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the ptrace injection is written for amd64")
	}
	ll := landlockEngine(t)
	out, err := ll.Run(context.Background(), Spec{
		Argv:   []string{"python3", "-c", initMmapScript},
		Limits: Limits{Timeout: 30 * time.Second, Memory: 256 << 20},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end", "the attack did not run")
	require.NotContains(t, string(out.Stdout), "SELF-MAPPED", "the memory limit does not hold for the command itself")
	assert.NotContains(t, string(out.Stdout), "INIT-MAPPED", "the run's first process mapped memory past the run's limit")
}

// The same holds for bwrap, whose first process in the run's pid
// namespace is bwrap's own init, of the command's uid and ptraceable by
// it: started without the run's rlimits (prlimit ran inside, for the
// command only), it mapped 1 GiB for the command under a 256 MiB limit.
func TestAttackReviewS13BwrapInitEscapesLimits(t *testing.T) {
	needPython(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the ptrace injection is written for amd64")
	}
	sb := engine(t, EngineBwrap)
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"python3", "-c", initMmapScript},
		Limits: Limits{Timeout: 30 * time.Second, Memory: 256 << 20},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	require.Contains(t, string(out.Stdout), "end", "the attack did not run")
	require.NotContains(t, string(out.Stdout), "SELF-MAPPED", "the memory limit does not hold for the command itself")
	assert.NotContains(t, string(out.Stdout), "INIT-MAPPED", "the run's first process mapped memory past the run's limit")
}

// Through gVisor's idmapped workspace the command may create nothing that
// the host sees as root's (for a workspace of another user), nor anything
// owned by the ids the mount uses for root (65534, 65533), nor setuid,
// setgid or file-capability files; it may not write outside it.
func TestReviewS13GVisorIdmapOwners(t *testing.T) {
	requireRoot(t)
	needPython(t)
	outside := openDir(t)
	for _, owner := range []int{1000, 0} {
		t.Run(strconv.Itoa(owner), func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.Chown(ws, owner, owner))
			require.NoError(t, os.Chmod(ws, 0o755))
			sb := engine(t, EngineGVisor, WithWorkspace(ws))
			script := `cd "$1"
id
echo a > file; mkdir -p d/e; mkfifo fifo; ln -s /etc/passwd sym; ln file hard; cp /bin/true exe
python3 -c '
import os, socket, struct
s = socket.socket(socket.AF_UNIX); s.bind("sock")
try:
    fd = os.open("suid", os.O_CREAT | os.O_WRONLY, 0o4755); os.close(fd); print("SUIDCREATE")
except OSError as e: print("suid", e)
try:
    os.mkdir("sgid", 0o2777); print("made sgid dir")
except OSError as e: print("mkdir", e)
try:
    os.chmod("exe", 0o4755); print("CHMOD")
except OSError as e: print("chmod", e)
try:
    os.setxattr("exe", "security.capability", struct.pack("<IIIII", 0x02000001, 0xffffffff, 0, 0xffffffff, 0)); print("FCAP")
except OSError as e: print("fcap", e)
try:
    os.chown("file", 0, 0); print("CHOWN")
except OSError as e: print("chown", e)
try:
    os.mknod("node", 0o100644 | 0o4000); print("MKNOD")
except OSError as e: print("mknod", e)
' 2>&1
ln -s "$2" out; echo esc > out/escaped 2>&1; ls -ln
echo end`
			out := mustRun(t, sb, Spec{Argv: []string{"sh", "-c", script, "sh", ws, outside}})
			t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
			require.Contains(t, string(out.Stdout), "end")
			_, err := os.Stat(filepath.Join(outside, "escaped"))
			assert.True(t, os.IsNotExist(err), "wrote outside the workspace")
			err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
				require.NoError(t, err)
				var st unix.Stat_t
				require.NoError(t, unix.Lstat(p, &st))
				assert.Equal(t, uint32(owner), st.Uid, "%s uid", p)
				assert.Equal(t, uint32(owner), st.Gid, "%s gid", p)
				assert.Zero(t, st.Mode&(syscall.S_ISUID|syscall.S_ISGID), "%s mode %o", p, st.Mode)
				if st.Mode&syscall.S_IFMT == syscall.S_IFREG {
					sz, _ := unix.Lgetxattr(p, "security.capability", nil)
					assert.LessOrEqual(t, sz, 0, "%s has file capabilities", p)
				}
				return nil
			})
			require.NoError(t, err)
			mi, err := os.ReadFile("/proc/self/mountinfo")
			require.NoError(t, err)
			assert.NotContains(t, string(mi), idmapDirPrefix, "the idmapped workspace is mounted in this process's namespace")
		})
	}
}
