//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A program's session keyring is inherited by everything it starts, across
// setuid and into new user namespaces, and whoever has it possesses its
// keys: a command reads the keys the program (or the systemd service it
// runs in, whose KeyringMode=shared links the service user's keyring into
// it) keeps there, and plants keys of its own for later runs.

// keyringHelperEnv names the engine a re-executed test binary runs
// keyringAttack through, from a fresh session keyring holding a key (see
// TestMain); keyringDescEnv is that key's description.
const (
	keyringHelperEnv = "TOOLBELT_TEST_KEYRING_ENGINE"
	keyringDescEnv   = "TOOLBELT_TEST_KEYRING_DESC"
)

// keyringNrs is the python expression for this machine's add_key and keyctl
// system call numbers.
const keyringNrs = `{"x86_64": (248, 250), "aarch64": (217, 219), "riscv64": (217, 219)}[os.uname().machine]`

// keyringJoin joins a new anonymous session keyring, adds the key argv[1]
// ("HOST-KEY-SECRET") to it, and execs argv[2:].
const keyringJoin = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr = ` + keyringNrs + `
if libc.syscall(nr[1], 1, None) < 0:  # KEYCTL_JOIN_SESSION_KEYRING
    sys.exit("join: " + os.strerror(ctypes.get_errno()))
if libc.syscall(nr[0], b"user", sys.argv[1].encode(), b"HOST-KEY-SECRET", 15, ctypes.c_long(-3)) < 0:
    sys.exit("add_key: " + os.strerror(ctypes.get_errno()))
os.execv(sys.argv[2], sys.argv[2:])
`

// keyringAttack reads the key argv[1] from the session keyring and adds
// argv[1]-planted to it.
const keyringAttack = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr = ` + keyringNrs + `
k = libc.syscall(nr[1], 10, ctypes.c_long(-3), b"user", sys.argv[1].encode(), 0)  # KEYCTL_SEARCH
if k > 0:
    buf = ctypes.create_string_buffer(64)
    n = libc.syscall(nr[1], 11, ctypes.c_long(k), buf, 64)  # KEYCTL_READ
    if n > 0:
        print("READ", buf.raw[:n].decode())
if libc.syscall(nr[0], b"user", (sys.argv[1] + "-planted").encode(), b"x", 1, ctypes.c_long(-3)) > 0:
    print("PLANTED")
print("end")
`

// keyringHelper runs keyringAttack through the named engine (the process
// engine as 65534 when root, as the other engines run by default), prints
// its output, and says PLANTED-SEEN when the key the command planted is in
// its own session keyring afterwards.
func keyringHelper(name string) int {
	var opts []Option
	if name == EngineProcess && os.Geteuid() == 0 {
		opts = append(opts, WithUser(65534, 65534))
	}
	sb, err := New(name, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine:", err)
		return 3
	}
	desc := os.Getenv(keyringDescEnv)
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"python3", "-c", keyringAttack, desc}, Limits: Limits{Timeout: 30 * time.Second}})
	if out == nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 4
	}
	fmt.Printf("stdout: %s\nstderr: %s\n", out.Stdout, out.Stderr)
	if _, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc+"-planted", 0); err == nil {
		fmt.Println("PLANTED-SEEN")
	}
	return 0
}

// keyringHeld runs keyringHelper for engine name from a fresh session
// keyring holding a key, and reports whether the command neither read that
// key nor added one to the keyring.
func keyringHeld(t *testing.T, name string) bool {
	t.Helper()
	needPython(t)
	desc := fmt.Sprintf("toolbelt-keyring-%d", rand.Int64())
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("python3", "-c", keyringJoin, desc, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), keyringHelperEnv+"="+name, keyringDescEnv+"="+desc)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "helper: %s %s", stdout.String(), stderr.String())
	got := stdout.String()
	t.Logf("%s: %s", name, got)
	require.Contains(t, got, "end", "the attack did not run")
	return !strings.Contains(got, "HOST-KEY-SECRET") && !strings.Contains(got, "PLANTED")
}
