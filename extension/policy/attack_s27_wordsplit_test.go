package policy_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
)

// A tool whose script takes the argument unquoted (cat $1, for f in $1)
// has the shell split it at blanks: "notes/a secrets/key" is two files to
// it, notes/a and secrets/key. The policy judged it as one name, a file
// "secrets/key" under a directory "notes/a ", and allowed it. Seen
// failing first: every case was allowed. Each blank-separated word is
// judged as a path argument too.
func TestAttackS27PathArgumentSplitIntoWords(t *testing.T) {
	dir, p := optionProject(t)
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command(bash, "-c", `cat $1`, "bash", "notes/a secrets/key")
		cmd.Dir = dir
		out, err := cmd.Output()
		require.NoError(t, err)
		require.Contains(t, string(out), sshSecret, "cat $1 reads both words")
	}
	for _, path := range []string{
		"notes/a secrets/key", "notes/a\tsecrets/key", "notes/a\n.env", "x  .env  y",
		dir + "/notes/a " + dir + "/.env",
		"notes/a secre*/key",     // each word a glob too
		"notes/a --file=.env",    // and an option
		"{notes/a .env,x}",       // in a brace's alternative
		"notes/a @(secrets)/key", // still refused as an extended glob
	} {
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, "%q names a forbidden file to a shell that splits it", path)
		assert.Contains(t, []string{"global.forbidden_paths", "paths.resolve"}, rule, "%q", path)
	}
	for _, path := range []string{"notes/Meeting notes.md", "notes/a b", dir + "/notes/My Documents/x"} {
		_, err := judgePath(t, p, path)
		assert.NoError(t, err, "%q", path)
	}
	// Words are judged up to a bound, past which the argument is refused.
	rule, err := judgePath(t, p, strings.Repeat("notes/ ", 500))
	assert.Error(t, err)
	assert.Equal(t, "paths.resolve", rule)
}

// The built-in file tools take a path as written: "notes/a .env" is one
// name to them.
func TestS27BlanksInAPathToABuiltinFileTool(t *testing.T) {
	dir, _ := optionProject(t)
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", ".env"]}`))
	require.NoError(t, err)
	assert.NoError(t, judgeOwn(t, p, ws, "notes/a .env"))
}
