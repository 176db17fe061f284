package policy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// procProject is a base directory with secrets/key (the secret), notes/key
// and .env (the secret too), and a policy forbidding secrets/** and the
// one file DIR/.env.
func procProject(t *testing.T) (string, *policy.Policy) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for f, text := range map[string]string{"secrets/key": sshSecret, "notes/key": "note", ".env": sshSecret} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600))
	}
	gov := fmt.Sprintf(`global: {forbidden_paths: ["secrets/**", %q]}`, dir+"/.env")
	p, err := policy.Parse([]byte(gov), policy.WithBaseDir(dir))
	require.NoError(t, err)
	return dir, p
}

func judgePath(t *testing.T, p *policy.Policy, path string) (string, error) {
	t.Helper()
	args, err := json.Marshal(map[string]string{"path": path})
	require.NoError(t, err)
	spec := readAnySpec(t)
	return p.Evaluate(tool.ModeNormal, &spec, args)
}

// The spellings of a forbidden path through /proc of the policy's own
// process, which a Go tool in it opens: its root, its cwd, an open file's
// descriptor (/proc/self/fd/N, /dev/fd/N, /proc/PID/fd/N, a thread's),
// each is refused as the path it leads to. A guard: these were refused
// before this session too.
func TestS27ProcSpellingsOfAForbiddenPath(t *testing.T) {
	dir, p := procProject(t)
	f, err := os.Open(filepath.Join(dir, "secrets", "key"))
	require.NoError(t, err)
	defer f.Close()
	wd, err := os.Getwd()
	require.NoError(t, err)
	up := strings.Repeat("../", strings.Count(wd, "/"))
	pid, fd := os.Getpid(), f.Fd()
	for _, path := range []string{
		"/proc/self/root" + dir + "/secrets/key",
		fmt.Sprintf("/proc/%d/root%s/secrets/key", pid, dir),
		"/proc/thread-self/root" + dir + "/secrets/key",
		"/proc/self/root/proc/self/root" + dir + "/secrets/key",
		"/proc/self/cwd/" + up + dir[1:] + "/secrets/key",
		fmt.Sprintf("/proc/%d/cwd/%s%s/secrets/key", pid, up, dir[1:]),
		fmt.Sprintf("/proc/self/fd/%d", fd),
		fmt.Sprintf("/dev/fd/%d", fd),
		fmt.Sprintf("/proc/%d/fd/%d", pid, fd),
		fmt.Sprintf("/proc/thread-self/fd/%d", fd),
		fmt.Sprintf("/proc/%d/task/%d/fd/%d", pid, pid, fd),
	} {
		b, err := os.ReadFile(path)
		require.NoError(t, err, path)
		require.Equal(t, sshSecret, string(b), "%s reads the secret", path)
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, path)
		assert.Equal(t, "global.forbidden_paths", rule, path)
	}
}

// A file the process holds open after its name is gone (an editor saved
// .env by renaming a new file over it, or it was removed) is still read
// through /proc/self/fd/N, whose link the kernel spells "DIR/.env
// (deleted)": the policy judged that name, which "DIR/.env" does not
// match, and let the old .env be read. Seen failing first: all three
// were allowed. The name the file had is judged now.
func TestAttackS27DescriptorOfARemovedForbiddenFile(t *testing.T) {
	dir, p := procProject(t)
	f, err := os.Open(filepath.Join(dir, ".env"))
	require.NoError(t, err)
	defer f.Close()
	// Replaced as an editor saves it: the open file has no name now.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new"), []byte("new"), 0o600))
	require.NoError(t, os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, ".env")))
	for _, path := range []string{
		fmt.Sprintf("/proc/self/fd/%d", f.Fd()),
		fmt.Sprintf("/dev/fd/%d", f.Fd()),
		fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), f.Fd()),
	} {
		b, err := os.ReadFile(path)
		require.NoError(t, err, path)
		require.Equal(t, sshSecret, string(b), "%s reads the old .env", path)
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, "%s reads the old .env", path)
		assert.Equal(t, "global.forbidden_paths", rule, path)
	}
}

// Another process's /proc/PID/root and /proc/PID/cwd lead into its own
// mount namespace (a sandboxed command's, a container's), where a path
// may be another file than on the host: with DIR/secrets bound over
// DIR/notes there, /proc/PID/root/DIR/notes/key reads secrets/key. The
// kernel spells that root "/", so the policy judged DIR/notes/key and
// allowed it. Seen failing first: both were allowed. A path through
// another mount namespace's /proc links cannot be judged: refused
// (paths.resolve).
func TestAttackS27ProcRootOfAnotherMountNamespace(t *testing.T) {
	dir, p := procProject(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	cmd := exec.Command(unshare, "-Urm", "sh", "-c",
		`mount --bind "$1/secrets" "$1/notes" && echo ready && exec cat`, "sh", dir)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close() // cat ends
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Skipf("no mount namespace of its own here: %q %v", line, err)
	}
	pid := cmd.Process.Pid
	for _, path := range []string{
		fmt.Sprintf("/proc/%d/root%s/notes/key", pid, dir),
		fmt.Sprintf("/proc/%d/task/%d/root%s/notes/key", pid, pid, dir),
	} {
		b, err := os.ReadFile(path)
		require.NoError(t, err, path)
		require.Equal(t, sshSecret, string(b), "%s reads secrets/key", path)
		rule, err := judgePath(t, p, path)
		if assert.Error(t, err, "%s reads secrets/key", path) {
			assert.Equal(t, "paths.resolve", rule, path)
		}
	}
	// The same process's files as the host has them are judged as ever.
	_, err = judgePath(t, p, fmt.Sprintf("/proc/%d/root%s/notes/key", os.Getpid(), dir))
	assert.NoError(t, err)
}
