package policy_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bash expands "~+" to its working directory and "~-" to $OLDPWD, as it
// expands "~" to the home directory, in a path a tool writes into its
// command line (as it expands {a,b} there): "~+/secrets/key" is
// secrets/key, "~-/.env" OLDPWD/.env. The policy judged "~+" as a
// directory of that name (the home of a user "+"), and allowed both. Seen
// failing first: every case was allowed. "~+" is judged as the directory
// relative paths are taken from, "~-" as $OLDPWD when it is set.
func TestAttackS27TildePlusAndMinus(t *testing.T) {
	dir, p := optionProject(t)
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command(bash, "-c", "cat ~+/secrets/key")
		cmd.Dir = dir
		out, err := cmd.Output()
		require.NoError(t, err)
		require.Contains(t, string(out), sshSecret, "bash reads ~+/secrets/key")
	}
	t.Setenv("OLDPWD", dir)
	for _, path := range []string{"~+/secrets/key", "~+/.env", "~-/.env", "~-/secrets/key", "{~+,x}/.env", "--file=~+/.env"} {
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, "%q names a forbidden file to bash", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	for _, path := range []string{"~+/notes/a", "~-/notes/a"} {
		_, err := judgePath(t, p, path)
		assert.NoError(t, err, "%q", path)
	}
	require.NoError(t, os.Unsetenv("OLDPWD"))
	_, err := judgePath(t, p, "~-/.env") // literal to bash without OLDPWD
	assert.NoError(t, err)
}
