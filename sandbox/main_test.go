package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(cttyHelperEnv); name != "" {
		os.Exit(cttyHelper(name))
	}
	if name := os.Getenv(orphanHelperEnv); name != "" {
		os.Exit(orphanHelper(name))
	}
	if name := os.Getenv(keyringHelperEnv); name != "" {
		os.Exit(keyringHelper(name))
	}
	goleak.VerifyTestMain(m)
}

// installHint names the Debian package that provides an engine's binary.
var installHint = map[string]string{
	EngineProcess: "util-linux (prlimit)",
	EngineBwrap:   "bubblewrap",
	EngineGVisor:  "runsc",
}

// engine returns the named engine, skipping the test when it is not
// installed, except under CI, where a missing engine fails the test.
func engine(t testing.TB, name string, opts ...Option) Sandbox {
	t.Helper()
	sb, err := New(name, opts...)
	if errors.Is(err, ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("engine %s unavailable in CI (install %s): %v", name, installHint[name], err)
		}
		t.Skipf("engine %s unavailable, install the %s package: %v", name, installHint[name], err)
	}
	require.NoError(t, err)
	return sb
}

// workspaceDir returns a fresh directory that any user can enter and write,
// so runs under WithUser can use it too.
func workspaceDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "toolbelt-ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o777))
	t.Cleanup(func() { os.RemoveAll(dir) })
	dir, err = evalDir(dir)
	require.NoError(t, err)
	return dir
}

func evalDir(dir string) (string, error) {
	ws, err := OpenWorkspace(dir)
	if err != nil {
		return "", err
	}
	defer ws.Close()
	return ws.Dir(), nil
}

// dead reports whether pid is gone (or a zombie: dead, not yet reaped by
// whoever inherited it).
func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// hostProcsWith returns the pids of live host processes whose command line
// contains marker.
func hostProcsWith(marker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), marker) || dead(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// eventually polls cond for up to d.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func haveBinary(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// baseOf returns the shared part of an engine, for building its command line.
func baseOf(sb Sandbox) *base {
	return sb.(interface{ engineBase() *base }).engineBase()
}
