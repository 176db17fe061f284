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

// A Go tool without a workspace opens a path from the process's working
// directory, through the symlinks on the way. The rules matched such a
// path as written (cleaned), so with notes -> HOME/.ssh, priv -> ROOT/private
// and s -> secrets in the working directory, deny rules on where those
// links lead refused none of these calls under allow_all, and
// read_any(**) approved a link out of the directory.
func TestAttackPathThroughASymlinkWithoutAWorkspace(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project := filepath.Join(root, "project")
	for _, d := range []string{filepath.Join(project, "secrets"), filepath.Join(project, "docs"), filepath.Join(root, "home", ".ssh"), filepath.Join(root, "private")} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	require.NoError(t, os.Symlink(filepath.Join(root, "home", ".ssh"), filepath.Join(project, "notes")))
	require.NoError(t, os.Symlink("../private", filepath.Join(project, "priv")))
	require.NoError(t, os.Symlink("secrets", filepath.Join(project, "s")))
	t.Chdir(project)

	type readArgs struct {
		Path string `json:"path" toolbelt:"path"`
	}
	tl := tool.Func("read_any", "Read a file", func(context.Context, readArgs) (string, error) { return "", nil })
	judge := func(p *Policy, path string) Action {
		args, _ := json.Marshal(map[string]string{"path": path})
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_any", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("read_any("+root+"/private/**)", "read_any(**/.ssh/**)", "read_any(secrets/**)"))
	for _, p := range []string{"notes/id", "./notes/./id", "priv/key", "s/key", project + "/priv/key", project + "/notes/id"} {
		assert.Equal(t, ActionRefuse, judge(deny, p), "%q", p)
	}
	assert.Equal(t, ActionAllow, judge(deny, "docs/a.md"), "a path no rule names still runs")
	here := MustPolicy(ModeAllowAll, DenyRules("read_any("+project+"/secrets/**)"))
	for _, p := range []string{"secrets/key", "s/key", "./docs/../secrets/key"} {
		assert.Equal(t, ActionRefuse, judge(here, p), "an absolute pattern names the working directory's secrets: %q", p)
	}
	assert.Equal(t, ActionAllow, judge(here, "docs/a.md"))

	ask := MustPolicy(ModeAlwaysAsk, AllowRules("read_any(**)"))
	for _, p := range []string{"notes/id", "priv/key"} {
		assert.Equal(t, ActionAsk, judge(ask, p), "a link out of the directory is not approved: %q", p)
	}
	assert.Equal(t, ActionAllow, judge(ask, "docs/a.md"))
	assert.Equal(t, ActionAllow, judge(ask, "s/key"), "a link inside the directory still is")

	docs := MustPolicy(ModeAlwaysAsk, AllowRules("read_any(docs/**)"))
	require.NoError(t, os.Symlink("../secrets", filepath.Join(project, "docs", "k")))
	assert.Equal(t, ActionAsk, judge(docs, "docs/k/key"), "docs/k leads to secrets")
	assert.Equal(t, ActionAllow, judge(docs, "docs/a.md"))
}
