package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// userNamespaceScript tries to make a user namespace every way there is:
// unshare(2) (the unshare program, and python3), clone(2) and clone3(2)
// with CLONE_NEWUSER (from python3, whose child exits at once); in the one
// unshare made, together with a network namespace, it reads its effective
// capabilities and uses CAP_NET_ADMIN, the capability the kernel's
// netfilter and rtnetlink code asks for (it sets loopback up: SIOCSIFFLAGS).
// Then it checks that programs still fork, spawn and start threads (glibc
// falls back from clone3 to clone when clone3 fails with ENOSYS).
const userNamespaceScript = `unshare -U true 2>/dev/null && echo USERNS
python3 -c '
import ctypes, fcntl, os, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
NEWUSER, NEWNET, SIGCHLD = 0x10000000, 0x40000000, 17
def tried(name, r):
    if r == 0:
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)
        print(name)
tried("CLONE", libc.syscall(56, NEWUSER | SIGCHLD, 0, 0, 0, 0))
args = (ctypes.c_uint64 * 11)(NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0)
tried("CLONE3", libc.syscall(435, ctypes.byref(args), ctypes.sizeof(args)))
if libc.unshare(NEWUSER | NEWNET) == 0:
    print("UNSHARED")
    eff = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff:")][0]
    if int(eff, 16):
        print("CAPS", eff)
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", 1))  # SIOCSIFFLAGS lo up
        print("NETADMIN")
    except OSError:
        pass
' 2>&1
sh -c 'true' && echo FORKED
python3 -c 'import subprocess; subprocess.run(["true"], check=True); print("SPAWNED")' 2>&1
python3 -c 'import threading; t = threading.Thread(target=print, args=("THREAD",)); t.start(); t.join()' 2>&1
echo end`

// A landlock command may not make a user namespace. In one it is root with
// every capability, and kernel code that asks only for a capability there
// is within its reach: it held CapEff 000001ffffffffff there, and with the
// network on, in a network namespace of its own, it used CAP_NET_ADMIN (set
// loopback up), the capability the nf_tables exploits of recent years
// start from (seen succeeding first, as 65534 and as WithUser(1234, 1234):
// USERNS, CLONE, CLONE3, UNSHARED, CAPS and, network on, NETADMIN).
// bwrap refuses them with --disable-userns; the landlock engine's seccomp
// filter now refuses unshare and clone with CLONE_NEWUSER (EPERM) and
// clone3, whose flags sit in a structure the filter cannot read (ENOSYS,
// on which glibc falls back to clone).
func TestAttackLandlockUserNamespace(t *testing.T) {
	requireRoot(t)
	needPython(t)
	if !haveBinary("unshare") || !haveBinary("ip") {
		t.Skip("needs unshare (util-linux) and ip (iproute2)")
	}
	cases := []struct {
		name string
		opts []Option
	}{
		{"landlock network off", nil},
		{"landlock network on", []Option{WithNetwork(true)}},
		{"landlock network on, WithUser", []Option{WithNetwork(true), WithUser(1234, 1234)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := landlockEngine(t, append(c.opts, WithWorkspace(ws))...)
			out := sh(t, sb, userNamespaceScript)
			got := string(out.Stdout)
			require.Contains(t, got, "end", "the attack did not run")
			for _, bad := range []string{"USERNS", "UNSHARED", "CAPS", "NETADMIN", "CLONE\n", "CLONE3"} {
				assert.NotContains(t, got, bad, "a user namespace was made")
			}
			for _, ok := range []string{"FORKED", "SPAWNED", "THREAD"} {
				assert.Contains(t, got, ok, "ordinary programs must still run")
			}
		})
	}
	t.Run("bwrap", func(t *testing.T) {
		ws := workspaceDir(t)
		sb := engine(t, EngineBwrap, WithWorkspace(ws), WithNetwork(true))
		out := sh(t, sb, userNamespaceScript)
		got := string(out.Stdout)
		require.Contains(t, got, "end", "the attack did not run")
		for _, bad := range []string{"USERNS", "UNSHARED", "CAPS", "NETADMIN", "CLONE\n", "CLONE3"} {
			assert.NotContains(t, got, bad, "a user namespace was made")
		}
		for _, ok := range []string{"FORKED", "SPAWNED", "THREAD"} {
			assert.Contains(t, got, ok, "ordinary programs must still run")
		}
	})
}
