package shell_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// maskedEngine returns engine name over a workspace holding files (path:
// content) and the *sandbox.Workspace on it hiding what hide names; it
// skips when the engine is missing outside CI.
func maskedEngine(t *testing.T, name string, files map[string]string, hide sandbox.HideFunc) (sandbox.Sandbox, *sandbox.Workspace) {
	t.Helper()
	dir := t.TempDir()
	for p, data := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644))
	}
	sb, err := sandbox.New(name, sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 60 * time.Second}))
	require.NoError(t, err)
	if err := sb.Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s must be available in CI: %v", name, err)
		}
		t.Skipf("%s: %v", name, err)
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(hide))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return sb, ws
}

// hideSecrets is a governance policy's forbidden_paths: [secrets/**].
func hideSecrets(rel, _ string) string {
	if rel == "secrets" || strings.HasPrefix(rel, "secrets/") {
		return "policy rule global.forbidden_paths[0]"
	}
	return ""
}

// printable is out without NUL bytes (a tar stream is mostly padding),
// cut to a length a failure message can show.
func printable(out string) string {
	out = strings.ReplaceAll(out, "\x00", "")
	if len(out) > 400 {
		out = out[:400] + "..."
	}
	return out
}

// A governance policy's forbidden_paths were masked from bash commands
// only: a shell.Command tool with a fixed argv, grep -rn -- {pattern} .,
// searched the whole workspace, hidden directory included, and printed
// secrets/key; the policy judges a Command's declared path arguments, and
// "." names no hidden path. The same from a tool file (shell.Kind: tar
// -cf - -- {dir} with dir "."). Seen failing first: bwrap and gvisor
// printed the key for both tools, and the process engine ran them. A
// Command given shell.WithWorkspace now passes what the workspace hides as
// the run's mask, as bash does; the process and landlock engines, which
// cannot mask, refuse the run.
func TestAttackS22CommandReadsWhatThePolicyHides(t *testing.T) {
	files := map[string]string{"secrets/key": "TOPSECRET-KEY", "notes.txt": "public TOPnotes"}
	for _, name := range []string{sandbox.EngineBwrap, sandbox.EngineGVisor, sandbox.EngineLandlock, sandbox.EngineProcess} {
		t.Run(name, func(t *testing.T) {
			sb, ws := maskedEngine(t, name, files, hideSecrets)
			search, err := shell.NewCommand("search", "Search the workspace", sb,
				[]string{"grep", "-rn", "--", "{pattern}", "."}, shell.WithWorkspace(ws), shell.AllowBlocked())
			require.NoError(t, err)
			archive, err := shell.Kind(shell.WithSandbox(sb), shell.WithWorkspace(ws), shell.AllowBlocked())(
				tool.Spec{Name: "archive", Description: "Archive a directory"},
				json.RawMessage(`{"command": "tar -cf - -- {dir}"}`))
			require.NoError(t, err)

			for _, c := range []struct {
				tool tool.Tool
				args string
			}{
				{search, `{"pattern": "TOP"}`},
				{archive, `{"dir": "."}`},
			} {
				res, err := c.tool.Run(context.Background(), tool.Call{ID: "c", Name: c.tool.Spec().Name, Args: json.RawMessage(c.args)})
				if name == sandbox.EngineLandlock || name == sandbox.EngineProcess {
					require.Error(t, err, "%s cannot hide paths: it must refuse, not run: %s", name, printable(res.Text()))
					assert.Contains(t, err.Error(), "cannot hide paths from a command")
					assert.Contains(t, err.Error(), "bwrap or gvisor")
					continue
				}
				require.NoError(t, err, "%s", printable(res.Text()))
				out := res.Text()
				assert.False(t, strings.Contains(out, "TOPSECRET"), "%s read what the policy hides: %s", c.tool.Spec().Name, printable(out))
				assert.True(t, strings.Contains(out, "public TOPnotes"), "what is not hidden stays readable: %s", printable(out))
			}
		})
	}
}

// A Command given a workspace that hides nothing, or nothing that is
// there, runs as before, on any engine: the process engine refuses a run
// only when there is something to mask.
func TestCommandWithWorkspaceHidingNothingRuns(t *testing.T) {
	for _, hide := range []sandbox.HideFunc{nil, hideSecrets} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("public notes"), 0o644))
		var opts []sandbox.WorkspaceOption
		if hide != nil {
			opts = append(opts, sandbox.WithHide(hide))
		}
		ws, err := sandbox.OpenWorkspace(dir, opts...)
		require.NoError(t, err)
		t.Cleanup(func() { ws.Close() })
		c, err := shell.NewCommand("search", "Search the workspace", processEngine(t, dir),
			[]string{"grep", "-rn", "--", "{pattern}", "."}, shell.WithWorkspace(ws))
		require.NoError(t, err)
		res, err := c.Run(context.Background(), tool.Call{ID: "c", Name: "search", Args: args(t, map[string]string{"pattern": "public"})})
		require.NoError(t, err)
		assert.Equal(t, "./notes.txt:1:public notes\n", res.Text())
	}
}

// The mask names paths relative to the engine's workspace: a Command whose
// engine works in another directory, or in none, would mask the wrong
// paths or none, so it is refused at construction, naming the fix; and so
// is WithWorkspace(nil). The same directory through a symlink is the same
// workspace.
func TestCommandWithWorkspaceMustBeTheEngines(t *testing.T) {
	engineDir, wsDir := t.TempDir(), t.TempDir()
	ws := mustWorkspace(t, wsDir)
	noWorkspace, err := sandbox.New(sandbox.EngineProcess)
	require.NoError(t, err)
	argv := []string{"grep", "-rn", "--", "{pattern}", "."}
	for _, c := range []struct {
		name string
		sb   sandbox.Sandbox
		ws   *sandbox.Workspace
		want string
	}{
		{"another directory", processEngine(t, engineDir), ws, "sandbox.WithWorkspace(ws.Dir())"},
		{"no workspace", noWorkspace, ws, "has no workspace"},
		{"nil", processEngine(t, wsDir), nil, "the workspace is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := shell.NewCommand("search", "Search", c.sb, argv, shell.WithWorkspace(c.ws))
			require.Error(t, err)
			var ce *tool.ConfigError
			require.True(t, errors.As(err, &ce), "not a *tool.ConfigError: %v", err)
			assert.Contains(t, err.Error(), "shell.WithWorkspace")
			assert.Contains(t, err.Error(), c.want)

			_, err = shell.Kind(shell.WithSandbox(c.sb), shell.WithWorkspace(c.ws))(
				tool.Spec{Name: "search", Description: "Search"}, json.RawMessage(`{"command": "grep -rn -- {pattern} ."}`))
			require.Error(t, err, "a tool file's command was built on the wrong workspace")
			assert.Contains(t, err.Error(), c.want)
		})
	}

	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(wsDir, link))
	_, err = shell.NewCommand("search", "Search", processEngine(t, link), argv, shell.WithWorkspace(ws))
	require.NoError(t, err)
}

// A Command with something to mask takes the same turn as the bash
// commands of its workspace: while a masked bash command runs (held
// here on a FIFO), a Command does not start; it waits until its context
// ends, and says why. Seen failing with the Command's turn taken out (its
// mask listed, no turn): it started, and failed as a cancelled run.
func TestCommandWithWorkspaceWaitsForTheWorkspacesBashTurn(t *testing.T) {
	sb, ws := maskedEngine(t, sandbox.EngineBwrap, map[string]string{"secrets/key": "TOPSECRET-KEY", "notes.txt": "public notes"}, hideSecrets)
	for _, f := range []string{"started", "release"} {
		require.NoError(t, syscall.Mkfifo(filepath.Join(ws.Dir(), f), 0o666))
	}
	b, err := shell.NewBash(sb, ws, shell.AllowBlocked())
	require.NoError(t, err)
	c, err := shell.NewCommand("notes", "Show the notes", sb, []string{"cat", "notes.txt"}, shell.WithWorkspace(ws))
	require.NoError(t, err)

	bashDone := make(chan error, 1)
	go func() {
		_, err := b.Run(context.Background(), bashCall(`echo up > started; read x < release`))
		bashDone <- err
	}()
	started := make(chan error, 1)
	go func() {
		f, err := os.Open(filepath.Join(ws.Dir(), "started")) // until bash opens it
		if err == nil {
			_, err = io.ReadAll(f)
			f.Close()
		}
		started <- err
	}()
	select {
	case err := <-started:
		require.NoError(t, err)
	case err := <-bashDone:
		// Unblock the reader, then fail.
		if f, ferr := os.OpenFile(filepath.Join(ws.Dir(), "started"), os.O_WRONLY, 0); ferr == nil {
			f.Close()
		}
		t.Fatalf("the bash command ended before it held its turn: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cmdDone := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, tool.Call{ID: "c", Name: "notes", Args: json.RawMessage(`{}`)})
		cmdDone <- err
	}()
	cancel()
	err = <-cmdDone
	require.Error(t, err, "the Command ran while a masked bash command held the workspace's turn")
	assert.Contains(t, err.Error(), "waited for the workspace's other shell commands")

	f, err := os.OpenFile(filepath.Join(ws.Dir(), "release"), os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("go\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, <-bashDone)

	res, err := c.Run(context.Background(), tool.Call{ID: "c", Name: "notes", Args: json.RawMessage(`{}`)})
	require.NoError(t, err, "the Command did not run once the bash command had ended")
	assert.Equal(t, "public notes", res.Text())
}
