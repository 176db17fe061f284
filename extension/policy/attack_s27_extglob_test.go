package policy_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// extglobProject is a base directory with secrets/key and notes/key.
func extglobProject(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, f := range []string{"secrets/key", "notes/key"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600))
	}
	return dir
}

// A shell with extglob on (bash -O extglob, or shopt -s extglob on an
// earlier line; ksh always) expands "@(secrets)/key", "!(notes)/key",
// "+(secret|x)s/key", "*(x)secrets/key" and "?(x)secrets/key" to
// secrets/key, as zsh expands "(secrets|x)/key" with no option at all.
// The policy read them as filepath.Glob does, where "(" is a literal
// character: they matched nothing, and were allowed. Seen failing first:
// every case was allowed. A path argument that holds such a group is
// refused now (paths.resolve), naming the argument and the fix.
func TestAttackS27ExtglobInAPathArgument(t *testing.T) {
	dir := extglobProject(t)
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	bashCases := []string{"@(secrets)/key", "!(notes)/key", "+(secret|x)s/key", "*(x)secrets/key", "?(x)secrets/key", "@(secrets)"}
	if bash, err := exec.LookPath("bash"); err == nil {
		// What bash does with each, the value unquoted in its command.
		for _, path := range bashCases {
			cmd := exec.Command(bash, "-O", "extglob", "-c", `printf '%s\n' $1`, "bash", path)
			cmd.Dir = dir
			out, err := cmd.Output()
			require.NoError(t, err)
			assert.Contains(t, string(out), "secrets", "bash -O extglob expands %q to the forbidden path", path)
		}
	}
	for _, path := range append(bashCases,
		dir+"/@(secrets)/key",     // absolute
		"{@(secrets),x}/key",      // inside braces
		"@{(,x}secrets)/key",      // made by braces: @(secrets)/key
		"notes/../@(secrets)/key", // after a ".."
		"(secrets|x)/key",         // zsh
		" @(secrets)/key",         // trimmed
	) {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		if assert.Error(t, err, "%q reaches secrets/key in a shell with extglob", path) {
			assert.Equal(t, "paths.resolve", rule, "%q", path)
			assert.Contains(t, err.Error(), `argument "path"`)
			assert.Contains(t, err.Error(), "extended glob")
		}
	}
	// A variable whose value is such a group is expanded by the shell too.
	t.Setenv("S27_GROUP", "@(secrets)")
	args, err := json.Marshal(map[string]string{"path": "$S27_GROUP/key"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.Error(t, err, "$S27_GROUP/key")
}

// Names with parentheses that are no extended glob stay allowed ("photo
// (1).jpg", "f(x)"), and the built-in file tools, whose workspace takes
// a path as written, may name a file "@(x)" (it is no glob to them).
func TestS27ParenthesesThatAreNoExtglob(t *testing.T) {
	dir := extglobProject(t)
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{"notes/photo (1).jpg", "notes/f(x)", "notes/a|b", "notes/(draft)", "notes/x)|(y"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		assert.NoError(t, err, "%q", path)
	}

	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	own, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`))
	require.NoError(t, err)
	assert.NoError(t, judgeOwn(t, own, ws, "notes/@(x)"))
	assert.Error(t, judgeOwn(t, own, ws, "secrets/key"))
}

// judgeOwn judges path as the argument of the built-in read_file tool of
// ws, whose own workspace it is: nil when allowed.
func judgeOwn(t *testing.T, p *policy.Policy, ws *sandbox.Workspace, path string) error {
	t.Helper()
	args, err := json.Marshal(map[string]string{"path": path})
	require.NoError(t, err)
	rf := builtin.ReadFile(ws)
	spec := rf.Spec()
	return p.JudgeArgs(tool.Call{Name: spec.Name, Args: args}, rf, &spec)
}
