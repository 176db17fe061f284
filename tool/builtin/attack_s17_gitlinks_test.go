package builtin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// TestAttackS17GitDirectoryLinksOut: a .git directory of the workspace's
// own, whose parts lead to another repository: objects and refs symlinked
// to its, or an alternates file naming its objects with refs symlinked to
// its refs. git reads that repository's history and files through them,
// and git_diff --staged (an empty index against its HEAD) showed each of
// its files as a deletion with its whole content. A git directory's
// objects, refs and alternates must stay in the workspace.
func TestAttackS17GitDirectoryLinksOut(t *testing.T) {
	other := t.TempDir()
	git(t, other, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(other, "private.txt"), []byte("OTHER-REPO-SECRET\n"), 0o600))
	git(t, other, "add", ".")
	git(t, other, "commit", "-q", "-m", "private history")
	otherGit := filepath.Join(other, ".git")

	for _, c := range []struct {
		name  string
		plant func(t *testing.T, gitdir string)
	}{
		{"objects and refs are symlinks", func(t *testing.T, gitdir string) {
			for _, d := range []string{"objects", "refs"} {
				require.NoError(t, os.RemoveAll(filepath.Join(gitdir, d)))
				require.NoError(t, os.Symlink(filepath.Join(otherGit, d), filepath.Join(gitdir, d)))
			}
		}},
		{"alternates and a symlinked refs", func(t *testing.T, gitdir string) {
			require.NoError(t, os.WriteFile(filepath.Join(gitdir, "objects", "info", "alternates"), []byte(filepath.Join(otherGit, "objects")+"\n"), 0o644))
			require.NoError(t, os.RemoveAll(filepath.Join(gitdir, "refs")))
			require.NoError(t, os.Symlink(filepath.Join(otherGit, "refs"), filepath.Join(gitdir, "refs")))
		}},
		{"a fan-out directory of objects is a symlink", func(t *testing.T, gitdir string) {
			entries, err := os.ReadDir(filepath.Join(otherGit, "objects"))
			require.NoError(t, err)
			for _, e := range entries {
				if len(e.Name()) == 2 {
					require.NoError(t, os.Symlink(filepath.Join(otherGit, "objects", e.Name()), filepath.Join(gitdir, "objects", e.Name())))
				}
			}
			require.NoError(t, os.RemoveAll(filepath.Join(gitdir, "refs")))
			require.NoError(t, os.Symlink(filepath.Join(otherGit, "refs"), filepath.Join(gitdir, "refs")))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			git(t, e.dir, "init", "-q", "-b", "main")
			c.plant(t, filepath.Join(e.dir, ".git"))
			tools, err := builtin.Git(e.ws, processSandbox(t, e.dir))
			require.NoError(t, err)
			require.NoError(t, e.reg.Register(tools...))
			for _, call := range []struct {
				tool string
				args map[string]any
			}{{"git_diff", map[string]any{"staged": true}}, {"git_log", map[string]any{}}} {
				res := e.call(t, call.tool, call.args)
				b, err := json.Marshal(res)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "OTHER-REPO-SECRET", "%s %v", call.tool, call.args)
				assert.NotContains(t, string(b), "private history", "%s %v", call.tool, call.args)
				if assert.NotNil(t, res.Error, "%s %v: %s", call.tool, call.args, b) {
					assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
				}
			}
		})
	}
}
