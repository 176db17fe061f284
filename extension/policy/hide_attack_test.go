package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// hideFixture is a project with a key under .ssh, the built-in file tools
// over it, and a policy forbidding **/.ssh/**; opts open the workspace.
func hideFixture(t *testing.T, opts func(*policy.Policy) []sandbox.WorkspaceOption) *executor.Executor {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".ssh", "id"), []byte(sshSecret), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("hello"), 0o644))
	pol, err := policy.Parse([]byte(sshGovernance))
	require.NoError(t, err)
	ws, err := sandbox.OpenWorkspace(dir, opts(pol)...)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	return executor.MustNew(reg, executor.WithExtensions(pol))
}

// The attack: the policy forbids **/.ssh/**, and the file tools' workspace
// was opened without sandbox.WithHide(pol.Hide), a line easy to forget.
// The policy judges the path arguments, "." here, and the search read the
// key's contents and the listing showed it: the rule held for read_file
// alone. A call of a tool whose workspace does not hide is now refused,
// saying how to open it.
func TestAttackForbiddenPathsReachedThroughAWorkspaceThatDoesNotHide(t *testing.T) {
	ex := hideFixture(t, func(*policy.Policy) []sandbox.WorkspaceOption { return nil })
	search := callRaw(t, ex, "search_files", `{"pattern":"SSH-PRIVATE","path":"."}`)
	assert.NotContains(t, search.Text(), sshSecret, "the search read the forbidden key")
	require.NotNil(t, search.Error)
	assert.Equal(t, tool.CodePolicyDenied, search.Error.Code)
	assert.Contains(t, search.Error.Message, "sandbox.WithHide", "the refusal says how to open the workspace")

	list := callRaw(t, ex, "list_directory", `{"path":".ssh/.."}`)
	assert.NotContains(t, list.Text(), ".ssh", "the listing showed the forbidden directory")
	require.NotNil(t, list.Error)
}

// Opened as the policy's doc says, the same calls run and leave the key out.
func TestAWorkspaceThatHidesServesTheCalls(t *testing.T) {
	ex := hideFixture(t, func(pol *policy.Policy) []sandbox.WorkspaceOption {
		return []sandbox.WorkspaceOption{sandbox.WithHide(pol.Hide)}
	})
	search := callRaw(t, ex, "search_files", `{"pattern":"SSH-PRIVATE","path":"."}`)
	require.Nil(t, search.Error, "%+v", search.Error)
	assert.NotContains(t, search.Text(), sshSecret)
	list := callRaw(t, ex, "list_directory", `{"path":"."}`)
	require.Nil(t, list.Error, "%+v", list.Error)
	assert.Contains(t, list.Text(), "README")
	assert.NotContains(t, list.Text(), ".ssh/")
}
