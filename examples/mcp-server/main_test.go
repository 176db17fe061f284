package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestServerOverStdio builds the example, starts it as an MCP client would
// (command + args), and calls its tools through mcptool.
func TestServerOverStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644))

	ctx := context.Background()
	trailPath := filepath.Join(t.TempDir(), "audit.jsonl")
	c, err := mcptool.Connect(ctx, mcptool.Stdio(bin, "-workspace", dir, "-engine", "process", "-audit", trailPath),
		mcptool.WithPrefix("ws_"), mcptool.WithTerminateTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()
	tools, err := c.Tools(ctx)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	assert.ElementsMatch(t, []string{"ws_read_file", "ws_list_directory", "ws_write_file", "ws_edit_file",
		"ws_delete_file", "ws_search_files", "ws_bash"}, reg.Names())
	ex := executor.MustNew(reg)
	call := func(name, args string) *tool.Result {
		res, _ := ex.Execute(ctx, tool.Call{ID: name, Name: name, Args: json.RawMessage(args)})
		return res
	}

	res := call("ws_read_file", `{"path":"notes.txt"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, string(res.Output)+res.Text(), "hello")

	res = call("ws_list_directory", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, string(res.Output)+res.Text(), "notes.txt")

	res = call("ws_read_file", `{"path":"../etc/passwd"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code)

	// write_file is medium risk: the approval extension asks, this client
	// cannot answer an elicitation, so the call is denied and nothing is
	// written.
	res = call("ws_write_file", `{"path":"new.txt","content":"x"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, res.Error.Message)
	_, err = os.Stat(filepath.Join(dir, "new.txt"))
	assert.True(t, os.IsNotExist(err))

	// bash is high risk: also asked, also denied, nothing runs.
	res = call("ws_bash", `{"command":"touch ran.txt"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, res.Error.Message)
	_, err = os.Stat(filepath.Join(dir, "ran.txt"))
	assert.True(t, os.IsNotExist(err))

	pid := c.PID()
	require.NotZero(t, pid)
	require.NoError(t, c.Close())
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the server process is gone after Close")

	// Every call left an intent and an outcome in an unbroken chain.
	rep, err := audit.Verify(trailPath)
	require.NoError(t, err)
	assert.Equal(t, 10, rep.Records, "5 calls, 2 records each")
}

func TestNeedsWorkspace(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "-workspace is required")
}

// Without -audit the trail goes to the user's state directory, one per
// workspace, never to the directory the server was started from.
func TestDefaultAuditPathIsNotTheWorkingDirectory(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	a, err := defaultAuditPath("/srv/project-a")
	require.NoError(t, err)
	b, err := defaultAuditPath("/home/x/project-a")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(state, "toolbelt"), filepath.Dir(a))
	assert.NotEqual(t, a, b, "two workspaces with one name keep separate trails")
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.NotEqual(t, wd, filepath.Dir(a))
}

// An MCP client shows a stdio server's stderr to its user for every
// session: by default the server says nothing there unless something is
// wrong; -v brings the information lines back.
func TestStdioServerIsQuiet(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	for _, verbose := range []bool{false, true} {
		args := []string{"-workspace", t.TempDir(), "-engine", "process", "-audit", filepath.Join(t.TempDir(), "a.jsonl")}
		if verbose {
			args = append(args, "-v")
		}
		cmd := exec.Command(bin, args...)
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdoutPipe, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		_, err = io.WriteString(stdin, session)
		require.NoError(t, err)
		sc := bufio.NewScanner(stdoutPipe)
		sc.Buffer(nil, 1<<20)
		listed := false
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"id":2`) {
				listed = strings.Contains(sc.Text(), `"read_file"`)
				break
			}
		}
		require.NoError(t, stdin.Close())
		_, _ = io.Copy(io.Discard, stdoutPipe)
		require.NoError(t, cmd.Wait(), "stderr: %s", stderr.String())
		assert.True(t, listed, "the session worked")
		if verbose {
			assert.Contains(t, stderr.String(), "audit trail", "-v logs")
		} else {
			assert.Empty(t, stderr.String(), "quiet by default")
		}
	}
}
