package policy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
)

// optionProject is a base directory with secrets/key and .env (the
// secret) and notes/a, under a policy forbidding secrets/** and .env.
func optionProject(t *testing.T) (string, *policy.Policy) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for f, text := range map[string]string{"secrets/key": sshSecret + "\n", ".env": sshSecret + "\n", "notes/a": "note\n"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600))
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", ".env"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	return dir, p
}

// A path argument handed to a program as one of its arguments names a
// file in an option's value or as a response file too: diff
// --from-file=secrets/key, tar -fsecrets/key, gcc @.env (which prints the
// file's words in its errors). The policy judged "--from-file=secrets/key"
// as a file of that name in the base directory and allowed it. Seen
// failing first: every case was allowed. The value after "=", after a
// one-letter option and after "@" is judged as a path argument too.
func TestAttackS27PathInAnOptionValueOrResponseFile(t *testing.T) {
	dir, p := optionProject(t)
	if diff, err := exec.LookPath("diff"); err == nil {
		cmd := exec.Command(diff, "--from-file=secrets/key", "notes/a")
		cmd.Dir = dir
		out, _ := cmd.Output() // exit 1: the files differ
		require.Contains(t, string(out), sshSecret, "diff --from-file reads the file")
	}
	for _, path := range []string{
		"--from-file=secrets/key", "--file=.env", "--directory=secrets",
		"-fsecrets/key", "-f.env", "-Csecrets", "-C secrets", "-f=.env",
		"@secrets/key", "@.env", "@./secrets/../.env",
		"--file=" + dir + "/.env", "--file=~/../../" + dir + "/.env",
		"--file=secre*/key", " --file=.env",
	} {
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, "%q names a forbidden file to the program", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	// Other option values and response files stay allowed, and a value
	// is judged once: "-f@.env" is a file named "@.env" to tar -f.
	for _, path := range []string{"--file=notes/a", "-fnotes/a", "@notes/a", "-", "--", "@", "--file=", "-f@.env"} {
		_, err := judgePath(t, p, path)
		assert.NoError(t, err, "%q", path)
	}
}

// The built-in file tools take a path as written, in their own
// workspace: "@.env" there is a file of that name, not .env, and stays
// allowed.
func TestS27OptionFormsToABuiltinFileTool(t *testing.T) {
	dir, _ := optionProject(t)
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", ".env"]}`))
	require.NoError(t, err)
	assert.NoError(t, judgeOwn(t, p, ws, "@.env"))
	assert.NoError(t, judgeOwn(t, p, ws, "--file=.env"))
	assert.Error(t, judgeOwn(t, p, ws, ".env"))
}

// An operand of the form NAME=FILE names FILE to the program that reads
// it: dd if=secrets/key prints the file (the test runs it), dd of=.env
// writes it, and bash expands a ~ after the "=" of such a word. The
// policy judged "if=secrets/key" as a file of that name and allowed it.
// Seen failing first: every case was allowed. The value after the "=" of
// a first name without "/" is judged as a path argument too.
func TestAttackS27PathInAnOperandAssignment(t *testing.T) {
	dir, p := optionProject(t)
	if dd, err := exec.LookPath("dd"); err == nil {
		cmd := exec.Command(dd, "if=secrets/key", "status=none")
		cmd.Dir = dir
		out, err := cmd.Output()
		require.NoError(t, err)
		require.Contains(t, string(out), sshSecret, "dd if= reads the file")
	}
	for _, path := range []string{"if=secrets/key", "of=.env", "if=" + dir + "/.env", "FILE=secre*/key"} {
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, "%q names a forbidden file to the program", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	for _, path := range []string{"if=notes/a", "notes/x=.env", "a=b", "=.env/../notes/a"} {
		_, err := judgePath(t, p, path)
		assert.NoError(t, err, "%q", path)
	}
}
