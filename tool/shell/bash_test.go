package shell_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func mustWorkspace(t testing.TB, dir string) *sandbox.Workspace {
	t.Helper()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}

func bashCall(cmd string) tool.Call {
	return tool.Call{ID: "c", Name: "bash", Args: args(nil, map[string]string{"command": cmd})}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// A blocked command is refused before anything runs: the marker the
// command would create first never appears.
func TestBashBlockedCommandNeverRuns(t *testing.T) {
	dir := t.TempDir()
	b, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir))
	require.NoError(t, err)
	cmd := "touch marker; sudo rm -rf /"
	v := b.Assess(bashCall(cmd).Args)
	require.Equal(t, classify.Blocked, v.Level)
	assert.Equal(t, cmd, b.Subject(bashCall(cmd).Args))

	res, err := b.Run(context.Background(), bashCall(cmd))
	require.Error(t, err)
	te := tool.AsError(err)
	assert.Equal(t, tool.CodePolicyDenied, te.Code)
	for _, r := range v.Reasons {
		assert.Contains(t, te.Message, r, "the reasons are named")
	}
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.False(t, exists(filepath.Join(dir, "marker")), "the command did not run")
}

// Turning the refusal off takes an explicit option; the verdict is still
// reported.
func TestBashAllowBlockedIsExplicit(t *testing.T) {
	dir := t.TempDir()
	blockTouch := classify.AssessorFunc(func(cmd string) classify.Verdict {
		if strings.Contains(cmd, "touch") {
			return classify.Verdict{Level: classify.Blocked, Reasons: []string{"touch is forbidden here"}}
		}
		return classify.Verdict{Level: classify.Safe}
	})
	strict, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir), shell.WithAssessor(blockTouch))
	require.NoError(t, err)
	_, err = strict.Run(context.Background(), bashCall("touch marker"))
	assert.ErrorContains(t, err, "touch is forbidden here")
	assert.False(t, exists(filepath.Join(dir, "marker")))

	open, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir), shell.WithAssessor(blockTouch), shell.AllowBlocked())
	require.NoError(t, err)
	res, err := open.Run(context.Background(), bashCall("touch marker"))
	require.NoError(t, err)
	assert.True(t, exists(filepath.Join(dir, "marker")))
	assert.Equal(t, "blocked", res.Metadata[shell.MetaDanger])
}

func engines(t *testing.T, dir string) map[string]sandbox.Sandbox {
	out := map[string]sandbox.Sandbox{"process": processEngine(t, dir)}
	bw, err := sandbox.New("bwrap", sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	switch {
	case err == nil:
		out["bwrap"] = bw
	case os.Getenv("CI") != "":
		t.Fatalf("bwrap must be available in CI: %v", err)
	default:
		t.Logf("bwrap skipped: %v", err)
	}
	return out
}

func TestBashSafeCommandRunsInEngines(t *testing.T) {
	for name := range engines(t, t.TempDir()) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			sb := engines(t, dir)[name]
			ws := mustWorkspace(t, dir)
			b, err := shell.NewBash(sb, ws)
			require.NoError(t, err)
			reg := registry.New()
			require.NoError(t, reg.Register(b))
			ex := executor.MustNew(reg)

			call := bashCall("echo hello > f.txt && cat f.txt && pwd")
			call.Args = args(t, map[string]string{"command": "echo hello > f.txt && cat f.txt && pwd", "workdir": "sub"})
			res, err := ex.Execute(context.Background(), call)
			require.NoError(t, err)
			assert.Equal(t, "hello\n"+filepath.Join(ws.Dir(), "sub")+"\n", res.Text())
			assert.Equal(t, name, res.Metadata[shell.MetaEngine])
			assert.Equal(t, "warning", res.Metadata[shell.MetaDanger], "a redirect writes a file")
			data, err := os.ReadFile(filepath.Join(dir, "sub", "f.txt"))
			require.NoError(t, err)
			assert.Equal(t, "hello\n", string(data))
		})
	}
}

func TestBashWorkdirMustBeInsideWorkspace(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	b, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir))
	require.NoError(t, err)
	tests := []struct {
		workdir string
		code    tool.Code
	}{
		{"..", tool.CodeFilesystemPolicy},
		{outside, tool.CodeFilesystemPolicy},
		{"link", tool.CodeFilesystemPolicy},
		{"missing", tool.CodeInvalidArguments},
		{"file", tool.CodeInvalidArguments},
	}
	for _, tc := range tests {
		t.Run(tc.workdir, func(t *testing.T) {
			_, err := b.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"command": "touch escaped", "workdir": tc.workdir})})
			require.Error(t, err)
			assert.Equal(t, tc.code, tool.AsError(err).Code, "%v", err)
		})
	}
	assert.False(t, exists(filepath.Join(outside, "escaped")))
}

// pidGone waits until pid no longer names a live process (absent or a
// zombie waiting for init).
func pidGone(pid int) bool {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, os.ErrNotExist) || syscall.Kill(pid, 0) == syscall.ESRCH {
			return true
		}
		if err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(string(st[i+1:]), " Z") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// readPid waits for the command to write the pid of its background child.
func readPid(t *testing.T, p string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(p)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)
	return pid
}

// A timeout kills the whole tree: the background grandchild is gone too.
func TestBashTimeoutKillsTree(t *testing.T) {
	dir := t.TempDir()
	b, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(b))
	ex := executor.MustNew(reg)
	call := bashCall("sleep 30 & echo $! > pid; wait")
	call.Timeout = 500 * time.Millisecond
	start := time.Now()
	res, _ := ex.Execute(context.Background(), call)
	assert.Less(t, time.Since(start), 10*time.Second)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeTimeout, res.Error.Code)
	assert.Equal(t, tool.StatusTimedOut, res.Status)
	pid := readPid(t, filepath.Join(dir, "pid"))
	assert.True(t, pidGone(pid), "background sleep %d outlived the timeout", pid)
}

func TestBashCancellationStopsTree(t *testing.T) {
	dir := t.TempDir()
	b, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var res *tool.Result
	go func() {
		var err error
		res, err = b.Run(ctx, bashCall("sleep 30 & echo $! > pid; wait"))
		done <- err
	}()
	pid := readPid(t, filepath.Join(dir, "pid"))
	cancel()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Equal(t, tool.CodeCancelled, tool.AsError(err).Code)
		assert.Equal(t, tool.StatusCancelled, res.Status)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	assert.True(t, pidGone(pid), "background sleep %d outlived the cancellation", pid)
}
