//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A landlock command run WithUser(0, 0) kept uid 0 (without capabilities)
// and so owned every root-owned file of the host: Landlock does not restrict
// metadata, and chmod needs no capability from a file's owner. It made a
// root-only (0600) host file outside the workspace mode 0666, after which
// any local user could write it (/etc/passwd, /root/.ssh/authorized_keys);
// setfacl would have done the same. The engine now refuses uid 0. (Seen
// succeeding first.)
func TestAttackLandlockRootChmodsHostFiles(t *testing.T) {
	requireRoot(t)
	landlockEngine(t) // skips (or fails in CI) without Landlock
	victim := filepath.Join(hostDir(t), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("root-only"), 0o600))
	for _, opts := range [][]Option{{WithUser(0, 0)}, {WithUser(0, 65534)}, {WithUser(0, 0), WithNetwork(true)}} {
		sb, err := New(EngineLandlock, append(opts, WithWorkspace(workspaceDir(t)))...)
		if err == nil {
			out := sh(t, sb, `chmod 666 "$1"; setfacl -m u:65534:rw "$1" 2>/dev/null; echo end`, victim)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
		}
		fi, serr := os.Stat(victim)
		require.NoError(t, serr)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the command changed a root-owned host file's mode")
		require.NoError(t, os.Chmod(victim, 0o600))
		// The refusal names the option, the rule and the fix.
		require.ErrorIs(t, err, ErrCreateFailed)
		require.ErrorIs(t, err, ErrInvalidSpec)
		assert.ErrorContains(t, err, "WithUser(0, ")
		assert.ErrorContains(t, err, "chmod")
		assert.ErrorContains(t, err, "bwrap or gvisor")
	}
	// Another uid is still accepted.
	sb := landlockEngine(t, WithWorkspace(workspaceDir(t)), WithUser(1234, 1234))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"id", "-u"}})
	require.NoError(t, err)
	assert.Equal(t, "1234\n", string(out.Stdout))
}

// fchmodat2(2) (Linux 6.6) sets a mode like fchmodat, so every engine's
// filter refuses the setuid and setgid bits through it too. This runsc
// answers it ENOSYS (its kernel lacks the call) and skips a rule naming a
// call it does not know; a runsc that has it applies the rule, which the
// bundle's filter must so carry.
func TestFchmodat2CannotSetID(t *testing.T) {
	requireRoot(t)
	needPython(t)
	const script = `touch f && python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for mode in (0o4755, 0o2755, 0o755):
    r = libc.syscall(452, -100, b"f", mode, 0)  # fchmodat2(AT_FDCWD, ...), 452 everywhere
    print(oct(mode), r, os.strerror(ctypes.get_errno()) if r else "ok")
'; echo end`
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			out := sh(t, engine(t, name, WithWorkspace(ws)), script)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			fi, err := os.Stat(filepath.Join(ws, "f"))
			require.NoError(t, err)
			assert.Zero(t, fi.Mode()&(os.ModeSetuid|os.ModeSetgid), "%v", fi.Mode())
			if name != EngineGVisor { // the host kernel has fchmodat2
				assert.Contains(t, string(out.Stdout), "0o4755 -1 Operation not permitted")
				assert.Contains(t, string(out.Stdout), "0o2755 -1 Operation not permitted")
				assert.Contains(t, string(out.Stdout), "0o755 0 ok", "a plain mode must still be settable")
			}
		})
	}
	var got []string
	for _, sc := range gvisorSeccomp().Syscalls {
		if sc.Names[0] == "fchmodat2" {
			require.Len(t, sc.Args, 1)
			assert.Equal(t, uint(2), sc.Args[0].Index, "the mode is fchmodat2's third argument")
			got = append(got, fmt.Sprintf("%#o", sc.Args[0].Value))
		}
	}
	assert.Equal(t, []string{"04000", "02000"}, got, "gVisor's filter refuses both bits through fchmodat2")
}

// newerInterfaces tries, from inside a run, the kernel interfaces a command
// could use to reach past its confinement, printing one line per try:
// "<name> OK", "<name> refused: <error>", and "WROTE" when a write through a
// borrowed or ring-opened descriptor got through. argv[1] is the pid of a
// host process of the run's own uid holding a host file open for writing
// as descriptor 3; argv[2] a host path outside the workspace.
const newerInterfaces = `
import ctypes, fcntl, mmap, os, signal, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
host, outside = int(sys.argv[1]), sys.argv[2].encode()
AT = -100
nr = dict(fsopen=430, fspick=433, open_tree=428, move_mount=429, mount_setattr=442,
          pidfd_open=434, pidfd_getfd=438, pidfd_send_signal=424, io_uring_setup=425, io_uring_enter=426)
nr.update({"x86_64": dict(ptrace=101, process_vm_readv=310, perf_event_open=298, bpf=321,
                          name_to_handle_at=303, open_by_handle_at=304)}.get(os.uname().machine,
          dict(ptrace=117, process_vm_readv=270, perf_event_open=241, bpf=280,
               name_to_handle_at=264, open_by_handle_at=265)))
def sc(name, *args):
    return libc.syscall(nr[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
def say(name, r):
    print(name, "OK" if r >= 0 else "refused: " + os.strerror(ctypes.get_errno()), flush=True)
    return r
def wrote(fd):
    try:
        os.write(fd, b"WROTE\n")
        print("WROTE", flush=True)
    except OSError:
        pass

say("fsopen", sc("fsopen", b"tmpfs", 0))
say("fspick", sc("fspick", AT, b"/", 0))
say("open_tree_clone", sc("open_tree", AT, b"/", 1))
attr = struct.pack("QQQQ", 0, 1, 0, 0)  # attr_clr = MOUNT_ATTR_RDONLY
say("mount_setattr", sc("mount_setattr", AT, b"/", 0, attr, 32))
say("move_mount", sc("move_mount", AT, b"/proc", AT, b"/mnt", 0))
pidfd = sc("pidfd_open", host, 0)
if pidfd >= 0:
    fd = say("pidfd_getfd", sc("pidfd_getfd", pidfd, 3, 0))
    if fd >= 0:
        wrote(fd)
    say("pidfd_send_signal", sc("pidfd_send_signal", pidfd, 0, None, 0))
buf = ctypes.create_string_buffer(8)
iov = struct.pack("QQ", ctypes.addressof(buf), 8)
say("process_vm_readv", sc("process_vm_readv", host, iov, 1, struct.pack("QQ", 0x400000, 8), 1, 0))
say("ptrace_attach", sc("ptrace", 16, host, 0, 0))
try:
    os.open("/proc/%d/mem" % host, os.O_RDWR)
    print("proc_mem OK")
except OSError as e:
    print("proc_mem refused:", e.strerror)
pattr = struct.pack("IIQQQQQ", 1, 64, 0, 0, 0, 0, 1 << 5 | 1 << 6).ljust(64, b"\0")  # software cpu-clock, user only
say("perf_event_open_host", sc("perf_event_open", pattr, host, -1, -1, 0))
battr = struct.pack("IIII", 2, 4, 4, 1).ljust(72, b"\0")  # BPF_MAP_TYPE_ARRAY
say("bpf", sc("bpf", 0, battr, 72))
fh = ctypes.create_string_buffer(struct.pack("Ii", 128, 0) + b"\0" * 128)
mnt = ctypes.c_int()
if sc("name_to_handle_at", AT, b"/etc/passwd", fh, ctypes.byref(mnt), 0) == 0:
    say("open_by_handle_at", sc("open_by_handle_at", AT, fh, os.O_RDONLY))
r, w = os.pipe()
try:  # SIGIO, made SIGKILL, to the host process
    fcntl.fcntl(r, fcntl.F_SETOWN, host)
    fcntl.fcntl(r, 10, signal.SIGKILL)  # F_SETSIG
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(w, b"x")
except OSError as e:
    print("sigio refused:", e.strerror)
p = ctypes.create_string_buffer(120)
ring = say("io_uring_setup", sc("io_uring_setup", 4, p))
if ring >= 0:  # IORING_OP_OPENAT of a host file for writing, through the ring
    sqn, cqn = struct.unpack_from("II", p, 0)
    sq, cq = struct.unpack_from("7I", p, 40), struct.unpack_from("6I", p, 80)
    sqr = mmap.mmap(ring, sq[6] + sqn * 4, offset=0)
    cqr = mmap.mmap(ring, cq[5] + cqn * 16, offset=0x8000000)
    sqes = mmap.mmap(ring, sqn * 64, offset=0x10000000)
    path = ctypes.create_string_buffer(outside)
    sqes[0:64] = struct.pack("BBHiQQII", 18, 0, 0, AT, 0, ctypes.addressof(path), 0o644, os.O_WRONLY | os.O_CREAT).ljust(64, b"\0")
    struct.pack_into("I", sqr, sq[6], 0)
    struct.pack_into("I", sqr, sq[1], struct.unpack_from("I", sqr, sq[1])[0] + 1)
    if say("io_uring_enter", sc("io_uring_enter", ring, 1, 1, 1, None, 0)) >= 0:
        head, = struct.unpack_from("I", cqr, cq[0])
        res, = struct.unpack_from("i", cqr, cq[5] + (head & struct.unpack_from("I", cqr, cq[2])[0]) * 16 + 8)
        print("io_uring_openat", "OK" if res >= 0 else "refused: " + os.strerror(-res), flush=True)
        if res >= 0:
            wrote(res)
time.sleep(0.2)
print("end")
`

// The newer kernel interfaces through which a command could leave its
// confinement or reach the host, tried on landlock and bwrap with the
// network off and on: the new mount API, pidfd_getfd and
// process_vm_readv, ptrace and /proc/<pid>/mem, perf_event_open on a host
// process of the run's own uid, bpf (unless the host lets every user in:
// kernel.unprivileged_bpf_disabled=0), open_by_handle_at (the classic
// container escape), a SIGIO turned SIGKILL at a host process, and io_uring.
// Each is refused; none got through when written (Landlock ABI 7,
// bubblewrap 0.8.0). io_uring_setup worked under landlock with the network
// on (Landlock refused the ring's openat of a host file as it does
// open(2)), until the ring made setuid files in the workspace
// (TestAttackS19SetIDThroughOpenat2AndIoUring).
func TestNewerKernelInterfacesRefused(t *testing.T) {
	requireRoot(t)
	needPython(t)
	b, _ := os.ReadFile("/proc/sys/kernel/unprivileged_bpf_disabled")
	unprivilegedBPF := strings.TrimSpace(string(b)) == "0"
	for _, tc := range []struct {
		name    string
		network bool
	}{{EngineLandlock, false}, {EngineLandlock, true}, {EngineBwrap, false}, {EngineBwrap, true}} {
		t.Run(fmt.Sprintf("%s/network=%v", tc.name, tc.network), func(t *testing.T) {
			sb := engine(t, tc.name, WithWorkspace(workspaceDir(t)), WithNetwork(tc.network))
			if ll, ok := sb.(*Landlock); ok && ll.ABI() < 6 {
				t.Skip("signals are scoped from Landlock ABI 6 (Outcome.Unenforced says so before)")
			}
			out := openDir(t)
			held := filepath.Join(out, "held")
			require.NoError(t, os.WriteFile(held, []byte("host\n"), 0o644))
			require.NoError(t, os.Chown(held, nobody, nobody))
			f, err := os.OpenFile(held, os.O_RDWR, 0)
			require.NoError(t, err)
			defer f.Close()
			victim := exec.Command("sleep", "600")
			victim.ExtraFiles = []*os.File{f}
			victim.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			require.NoError(t, victim.Start())
			defer func() { _ = victim.Process.Kill(); _ = victim.Wait() }()

			o := sh(t, sb, `python3 -c "$1" "$2" "$3" 2>&1`, newerInterfaces, strconv.Itoa(victim.Process.Pid), filepath.Join(out, "ring"))
			got := string(o.Stdout)
			require.Contains(t, got, "end", "the probe did not run")
			for _, line := range strings.Split(got, "\n") {
				name, verdict, _ := strings.Cut(line, " ")
				switch {
				case name == "io_uring_enter":
					continue // a ring's operations are judged below
				case name == "bpf" && unprivilegedBPF:
					continue // the host lets every user in; no engine refuses it
				}
				assert.NotEqual(t, "OK", verdict, "%s got through", name)
				// EFAULT: past the permission check (process_vm_readv at an
				// address the host process does not map).
				assert.NotContains(t, verdict, "Bad address", name)
			}
			assert.NotContains(t, got, "WROTE")
			assert.False(t, dead(victim.Process.Pid), "a host process was killed")
			assert.NoFileExists(t, filepath.Join(out, "ring"), "a host file was made through io_uring")
			b, err := os.ReadFile(held)
			require.NoError(t, err)
			assert.Equal(t, "host\n", string(b))
		})
	}
}
