package builtin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// TestAttackS17GitToolsReadOnlyTheWorkspacesRepository: what .git is
// decides which repository git reads, and a hostile checkout (an archive
// unpacked in the workspace, a sandboxed shell) decides what .git is. A
// .git file ("gitdir: /elsewhere/.git"), a .git symlink, a .git directory
// whose commondir names another repository, or a workspace shaped as a
// bare repository with such a commondir: git_diff then compared another
// repository's index or HEAD with the workspace and showed each of its
// files, absent here, as a deletion with its whole content, and git_log
// its history. The git tools must refuse a repository outside the
// workspace, and still work in a linked worktree (git worktree add),
// whose .git file names a directory of the main repository that names it
// back.
func TestAttackS17GitToolsReadOnlyTheWorkspacesRepository(t *testing.T) {
	other := t.TempDir()
	git(t, other, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(other, "private.txt"), []byte("OTHER-REPO-SECRET\n"), 0o600))
	git(t, other, "add", ".")
	git(t, other, "commit", "-q", "-m", "private history")
	otherGit := filepath.Join(other, ".git")

	for _, c := range []struct {
		name  string
		plant func(t *testing.T, dir string)
	}{
		{"a .git file", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+otherGit+"\n"), 0o644))
		}},
		{"a .git symlink", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink(otherGit, filepath.Join(dir, ".git")))
		}},
		{"a commondir", func(t *testing.T, dir string) {
			git(t, dir, "init", "-q", "-b", "main")
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "commondir"), []byte(otherGit+"\n"), 0o644))
		}},
		{"a bare-shaped workspace", func(t *testing.T, dir string) {
			for _, d := range []string{"objects", "refs"} {
				require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "commondir"), []byte(otherGit+"\n"), 0o644))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			c.plant(t, e.dir)
			tools, err := builtin.Git(e.ws, processSandbox(t, e.dir))
			require.NoError(t, err)
			require.NoError(t, e.reg.Register(tools...))
			for _, call := range []struct {
				tool string
				args map[string]any
			}{{"git_diff", map[string]any{}}, {"git_diff", map[string]any{"staged": true}}, {"git_log", map[string]any{}}, {"git_status", map[string]any{}}} {
				res := e.call(t, call.tool, call.args)
				b, err := json.Marshal(res)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "OTHER-REPO-SECRET", "%s %v", call.tool, call.args)
				assert.NotContains(t, string(b), "private", "%s %v", call.tool, call.args)
				if assert.NotNil(t, res.Error, "%s %v: %s", call.tool, call.args, b) && c.name != "a bare-shaped workspace" {
					assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
					assert.Contains(t, res.Error.Message, "not its own")
				}
			}
		})
	}

	t.Run("a submodule works", func(t *testing.T) {
		super := t.TempDir()
		git(t, super, "init", "-q", "-b", "main")
		git(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", other, "sub")
		e := newEnvAt(t, filepath.Join(super, "sub"))
		tools, err := builtin.Git(e.ws, processSandbox(t, e.dir))
		require.NoError(t, err)
		require.NoError(t, e.reg.Register(tools...))
		res := e.call(t, "git_log", map[string]any{})
		require.Nil(t, res.Error, "%v", res.Error)
		assert.Contains(t, res.Text(), "private history")
	})

	t.Run("a linked worktree works", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "wt")
		git(t, other, "worktree", "add", "-q", "-b", "feature", wt)
		e := newEnvAt(t, wt)
		tools, err := builtin.Git(e.ws, processSandbox(t, e.dir))
		require.NoError(t, err)
		require.NoError(t, e.reg.Register(tools...))
		e.write(t, "private.txt", "changed\n")
		res := e.call(t, "git_diff", map[string]any{})
		require.Nil(t, res.Error, "%v", res.Error)
		assert.Contains(t, res.Text(), "+changed")
		res = e.call(t, "git_log", map[string]any{})
		require.Nil(t, res.Error, "%v", res.Error)
		assert.Contains(t, res.Text(), "private history")
	})
}

// newEnvAt is newEnv on an existing directory.
func newEnvAt(t *testing.T, dir string) *env {
	t.Helper()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	return &env{dir: ws.Dir(), ws: ws, ex: executor.MustNew(reg), reg: reg}
}
