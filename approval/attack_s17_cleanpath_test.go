package approval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A path with ".." after a symlink leads two places: where the kernel
// takes it (the ".." applied to the link's target) and where a tool that
// cleans it first takes it (os.ReadFile(filepath.Clean(p)),
// filepath.Join(dir, p), Node's path.resolve). With out ->
// ROOT/elsewhere/deep and notes -> HOME/.ssh in the working directory,
// "out/../notes/id" is ROOT/elsewhere/notes/id to the kernel but
// HOME/.ssh/id to such a tool. The rules judged the cleaned path as
// written (project/notes/id) and the kernel's form, never the cleaned
// path's own resolution: deny rules on .ssh and HOME refused nothing, and
// read_any(**) approved the call without asking.
func TestAttackS17CleanedPathThroughASymlinkIsJudged(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project := filepath.Join(root, "project")
	for _, d := range []string{project, filepath.Join(root, "home", ".ssh"), filepath.Join(root, "elsewhere", "deep"), filepath.Join(root, "elsewhere", "notes")} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "home", ".ssh", "id"), []byte("key\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "elsewhere", "notes", "id"), []byte("harmless\n"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(root, "home", ".ssh"), filepath.Join(project, "notes")))
	require.NoError(t, os.Symlink(filepath.Join(root, "elsewhere", "deep"), filepath.Join(project, "out")))
	t.Chdir(project)
	// The kernel's form is the harmless file, the cleaned one the key.
	b, err := os.ReadFile("out/../notes/id")
	require.NoError(t, err)
	require.Equal(t, "harmless\n", string(b))
	b, err = os.ReadFile(filepath.Clean("out/../notes/id"))
	require.NoError(t, err)
	require.Equal(t, "key\n", string(b))

	type readArgs struct {
		Path string `json:"path" toolbelt:"path"`
	}
	tl := tool.Func("read_clean", "Read a file", func(context.Context, readArgs) (string, error) { return "", nil })
	judge := func(p *Policy, path string) Action {
		args, _ := json.Marshal(map[string]string{"path": path})
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_clean", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	paths := []string{"out/../notes/id", "./out/./../notes/id", "out/../out/../notes/id", project + "/out/../notes/id"}
	for _, deny := range []*Policy{
		MustPolicy(ModeAllowAll, DenyRules("read_clean(**/.ssh/**)")),
		MustPolicy(ModeAllowAll, DenyRules("read_clean("+root+"/home/**)")),
	} {
		for _, p := range paths {
			assert.Equal(t, ActionRefuse, judge(deny, p), "%q", p)
		}
		assert.Equal(t, ActionAllow, judge(deny, "out/../readme.md"), "a path no rule names still runs")
	}
	// in -> sub/deep stays in the directory as the kernel takes
	// "in/../notes/id" (sub/notes/id); cleaned, it leaves through notes.
	require.NoError(t, os.MkdirAll(filepath.Join(project, "sub", "deep"), 0o700))
	require.NoError(t, os.Symlink(filepath.Join("sub", "deep"), filepath.Join(project, "in")))
	ask := MustPolicy(ModeAlwaysAsk, AllowRules("read_clean(**)"))
	for _, p := range []string{"in/../notes/id", "./in/../in/../notes/id"} {
		assert.Equal(t, ActionAsk, judge(ask, p), "a link out of the directory is not approved: %q", p)
	}
	assert.Equal(t, ActionAllow, judge(ask, "in/../readme.md"), "a link in the directory still is")
}
