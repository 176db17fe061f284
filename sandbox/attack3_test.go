//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// needPython skips (or fails in CI) without python3, whose ctypes makes the
// raw system calls of these attacks.
func needPython(t *testing.T) {
	t.Helper()
	if !haveBinary("python3") {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 (the system-call client of these tests) must be installed in CI")
		}
		t.Skip("python3 (the system-call client of these tests) is not installed")
	}
}

// ipcKeyringScript attaches the System V shared memory segment whose id is
// argv[1] and writes into it, creates a segment of its own under the key
// argv[2], and adds a key described argv[3] to the user keyring; with
// argv[1] == "find" it looks for that key instead.
const ipcKeyringScript = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
nr = {"x86_64": (248, 250), "aarch64": (217, 219), "riscv64": (217, 219)}[os.uname().machine]
USER_KEYRING = ctypes.c_int(-4)
if sys.argv[1] == "find":
    k = libc.syscall(nr[1], 10, USER_KEYRING, b"user", sys.argv[3].encode(), 0)  # KEYCTL_SEARCH
    if k > 0:
        print("FOUND KEY")
        libc.syscall(nr[1], 3, ctypes.c_long(k))  # KEYCTL_REVOKE: leave nothing behind
    sys.exit(0)
p = libc.shmat(int(sys.argv[1]), None, 0)
if p and p != ctypes.c_void_p(-1).value:
    ctypes.memmove(p, b"SANDBOX-WROTE", 13)
    print("ATTACHED")
if libc.shmget(int(sys.argv[2]), 4096, 0o1666) >= 0:  # IPC_CREAT | 0666
    print("CREATED SEGMENT")
if libc.syscall(nr[0], b"user", sys.argv[3].encode(), b"left-behind", 11, USER_KEYRING) > 0:
    print("ADDED KEY")
print("end")
`

// A landlock run shares the host's System V IPC and the user keyring of its
// uid: there is no IPC namespace and Landlock (ABI 7) scopes neither. A
// command attached a host process's mode-666 shared memory segment and wrote
// into it (memory outside the workspace), left a segment of its own for a
// later run or any local user, and put a key in uid 65534's user keyring
// that the next run read back: state kept between runs, and a channel
// between concurrent ones. (Seen succeeding on all three before the
// filter refused those calls, with the network off and on.)
func TestAttackLandlockIPCAndKeyrings(t *testing.T) {
	needPython(t)
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			attackIPCAndKeyrings(t, landlockEngine(t, WithWorkspace(workspaceDir(t)), WithNetwork(network)))
		})
	}
}

func attackIPCAndKeyrings(t *testing.T, sb Sandbox) {
	host, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o666)
	require.NoError(t, err)
	defer unix.SysvShmCtl(host, unix.IPC_RMID, nil)
	mem, err := unix.SysvShmAttach(host, 0, 0)
	require.NoError(t, err)
	defer unix.SysvShmDetach(mem)

	key := 0x7b000000 + rand.IntN(1<<20)
	desc := fmt.Sprintf("toolbelt-attack3-%d", rand.Int64())
	out := sh(t, sb, `python3 -c "$1" "$2" "$3" "$4"`, ipcKeyringScript, fmt.Sprint(host), fmt.Sprint(key), desc)
	left, lerr := unix.SysvShmGet(key, 0, 0)
	if lerr == nil {
		_, _ = unix.SysvShmCtl(left, unix.IPC_RMID, nil)
	}
	again := sh(t, sb, `python3 -c "$1" find "" "$2"`, ipcKeyringScript, desc)

	require.Contains(t, string(out.Stdout), "end", "the attack did not run")
	assert.False(t, strings.HasPrefix(string(mem), "SANDBOX-WROTE"), "the command wrote into a host process's shared memory")
	assert.NotContains(t, string(out.Stdout), "ATTACHED")
	assert.Error(t, lerr, "the run left a System V segment behind")
	assert.NotContains(t, string(out.Stdout), "ADDED KEY")
	assert.NotContains(t, string(again.Stdout), "FOUND KEY", "a later run read the key an earlier run left in the user keyring")
}

// The in-memory directories of a bwrap or gvisor run (/tmp, /dev/shm, and
// bwrap's /var/tmp and /run) are tmpfs, whose pages count against no
// process's address space: with a 128 MiB memory limit a command kept
// 240 MiB in /tmp and as much in /dev/shm, and could have kept half the
// host's memory in each (bwrap's default tmpfs size; gVisor's had no bound)
// and so starved the host. Each now holds at most the memory limit. (Seen
// succeeding first.)
func TestAttackTmpfsOutgrowsMemoryLimit(t *testing.T) {
	const limit = 128 << 20
	const fill = `for d in "$@"; do
  for i in 1 2 3 4; do head -c 62914560 /dev/zero > "$d/fill$i" 2>/dev/null || break; done
  echo "$d $(cat "$d"/fill* | wc -c)"
  rm -f "$d"/fill*
done`
	for _, tc := range []struct {
		name string
		dirs []string
	}{
		{EngineBwrap, []string{"/tmp", "/var/tmp", "/run", "/dev/shm"}},
		{EngineGVisor, []string{"/tmp", "/dev/shm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := engine(t, tc.name, WithWorkspace(workspaceDir(t)))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   append([]string{"sh", "-c", fill, "sh"}, tc.dirs...),
				Limits: Limits{Timeout: 60 * time.Second, Memory: limit},
			})
			require.NoError(t, err, "%s", out.Stderr)
			t.Logf("stdout: %s", out.Stdout)
			lines := strings.Split(strings.TrimSpace(string(out.Stdout)), "\n")
			require.Len(t, lines, len(tc.dirs))
			for _, l := range lines {
				d, size, _ := strings.Cut(l, " ")
				n, err := strconv.ParseInt(size, 10, 64)
				require.NoError(t, err, l)
				assert.LessOrEqual(t, n, int64(limit), "%s held more than the memory limit", d)
			}
		})
	}
}

// A bwrap command may not create a user namespace of its own: in one it is
// root with every capability, and on a root-owned workspace (bound through
// an idmapped mount, on which the command's files are root's) it gave a
// copy of python3 the file capability cap_setuid=ep, which the kernel
// stored as a capability for the host's root. Any local user who ran that
// copy became root (seen: "uid=0(root)" and /etc/shadow, as nobody). The
// setuid filter does not see extended attributes. (Seen succeeding first.)
func TestAttackFileCapabilityFromNestedUserns(t *testing.T) {
	requireRoot(t)
	needPython(t)
	const script = `printf 'x' > prog && chmod 755 prog
unshare -U -r python3 -c '
import os, struct
os.setxattr("prog", "security.capability", struct.pack("<IIIII", 0x02000001, 1 << 7, 0, 0, 0))
print("SET")' 2>&1
echo end`
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t) // owned by root: bwrap binds it idmapped
			sb := engine(t, name, WithWorkspace(ws))
			out := sh(t, sb, script)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			buf := make([]byte, 64)
			n, err := unix.Getxattr(filepath.Join(ws, "prog"), "security.capability", buf)
			assert.Error(t, err, "a file capability %x was left in the workspace", buf[:max(n, 0)])
			assert.NotContains(t, string(out.Stdout), "SET")
		})
	}
}

// A landlock command run WithUser(0, 0) owned root's files in the workspace
// and needed no capability to chmod them: it left a root-owned setuid copy
// of a program there (-rwsr-xr-x root), which any local user who reaches the
// workspace runs as root; run as 65534 it leaves setuid-nobody programs.
// bwrap and gVisor refuse the bits by seccomp (TestAttackIdmappedSetuidRoot);
// landlock's filter now does too. (Seen succeeding first.) uid 0 is now
// refused altogether (TestAttackLandlockRootChmodsHostFiles); the filter
// still keeps other users' setuid programs out.
func TestAttackLandlockSetuidRoot(t *testing.T) {
	requireRoot(t)
	needPython(t)
	const script = `cp /bin/true ./suid && chmod 4755 ./suid; chmod g+s ./suid
python3 -c 'import os; os.close(os.open("made", os.O_CREAT | os.O_WRONLY, 0o4755))' 2>/dev/null
echo end`
	for _, opts := range [][]Option{{WithUser(1234, 1234)}, nil, {WithUser(1234, 1234), WithNetwork(true)}} {
		ws := workspaceDir(t)
		sb := landlockEngine(t, append(opts, WithWorkspace(ws))...)
		out := sh(t, sb, script)
		require.Contains(t, string(out.Stdout), "end", "the attack did not run")
		for _, f := range []string{"suid", "made"} {
			fi, err := os.Stat(filepath.Join(ws, f))
			if err == nil {
				assert.Zero(t, fi.Mode()&(os.ModeSetuid|os.ModeSetgid), "%s: %v", f, fi.Mode())
			}
		}
	}
}

// A descriptor the host program holds without close-on-exec (one it
// inherited: a supervisor's pipe, a socket-activated listener, a CI
// runner's pipe; this test's harness leaked one into every run) was open in
// the command too, on every engine but gVisor: through a connected TCP
// socket of the host the command talked to a 127.0.0.1 server with the
// network off. (Seen succeeding first on landlock and bwrap.)
func TestAttackInheritedDescriptor(t *testing.T) {
	needPython(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- ""
			return
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	f, err := conn.(*net.TCPConn).File()
	require.NoError(t, err)
	conn.Close()
	// As inherited: no close-on-exec.
	_, err = unix.FcntlInt(f.Fd(), unix.F_SETFD, 0)
	require.NoError(t, err)
	fd := fmt.Sprint(f.Fd())

	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		sb := engine(t, name, WithWorkspace(workspaceDir(t)))
		out := sh(t, sb, `python3 -c 'import os, sys; os.write(int(sys.argv[2]), b"LEAKED through " + sys.argv[1].encode())' "$1" "$2" 2>/dev/null && echo WROTE; echo end`, name, fd)
		require.Contains(t, string(out.Stdout), "end", "the attack did not run")
		assert.NotContains(t, string(out.Stdout), "WROTE", "%s: the command wrote to the host's socket", name)
	}
	f.Close()
	assert.NotContains(t, <-got, "LEAKED", "a 127.0.0.1 server heard from a command run with the network off")
}
