package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// tarSpec is a tool that runs tar -C {dir} -cf - {file}: two declared
// path arguments, the second taken from the first.
func tarSpec(t *testing.T) tool.Spec {
	t.Helper()
	type in struct {
		Dir  string `json:"dir" toolbelt:"path"`
		File string `json:"file" toolbelt:"path"`
	}
	return tool.Func("archive", "Archive a file", func(context.Context, in) (string, error) { return "", nil }).Spec()
}

// A program that changes directory to one argument takes the relative
// paths after it from there: tar -C DIR, git -C DIR, make -C DIR, a
// script's cd "$1". tar -C / -cf - tmp/.../secrets/key archives the
// secret (the test runs it), while the policy judged "tmp/.../secrets/key"
// in its base directory, where it names nothing forbidden, and "/", and
// allowed both; so too "~" with ".ssh/id", and "-C / tmp/..." as the
// words of one argument. Seen failing first: every case was allowed.
// Each relative path of a call is judged also under each other path of
// the call that is a directory on the host.
func TestAttackS27RelativePathTakenFromAnotherArgument(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	home := filepath.Join(dir, "home")
	for f, text := range map[string]string{"project/secrets/key": sshSecret, "project/notes/a": "note", "home/.ssh/id": sshSecret} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600))
	}
	t.Setenv("HOME", home)
	project := filepath.Join(dir, "project")
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", "~/.ssh/**"]}`), policy.WithBaseDir(project))
	require.NoError(t, err)
	rel := project[1:] + "/secrets/key" // from "/"
	if tar, err := exec.LookPath("tar"); err == nil {
		cmd := exec.Command(tar, "-C", "/", "-cf", "-", rel)
		cmd.Dir = project
		out, err := cmd.Output()
		require.NoError(t, err)
		require.Contains(t, string(out), sshSecret, "tar -C / reads the file")
	}
	spec := tarSpec(t)
	judge := func(args map[string]any) (string, error) {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		return p.Evaluate(tool.ModeNormal, &spec, raw)
	}
	for _, args := range []map[string]any{
		{"dir": "/", "file": rel},
		{"dir": "/" + filepath.Dir(rel[:len(rel)-len("/secrets/key")]), "file": filepath.Base(project) + "/secrets/key"},
		{"dir": "~", "file": ".ssh/id"},
		{"dir": home, "file": ".ssh/id"},
		{"file": []string{"/", rel}},     // both in one list
		{"file": "-C / " + rel},          // words of one argument
		{"file": "--directory=/ " + rel}, // an option's value
	} {
		rule, err := judge(args)
		assert.Error(t, err, "%v reaches a forbidden file", args)
		assert.Equal(t, "global.forbidden_paths", rule, "%v", args)
	}
	for _, args := range []map[string]any{
		{"dir": "notes", "file": "a"},
		{"dir": "/", "file": "notes/a"},
		{"dir": project, "file": "notes/a"},
		{"dir": "missing", "file": "secrets-not"},
	} {
		_, err := judge(args)
		assert.NoError(t, err, "%v", args)
	}
}

// The paths judged under other paths of a call are bounded: a call naming
// 40 directories (1,600 pairs) is refused, one naming 20 (400) judged.
func TestS27PathsUnderOtherPathsAreBounded(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	var dirs []string
	for i := range 40 {
		d := filepath.Join("d", strconv.Itoa(i))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
		dirs = append(dirs, d)
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	raw, err := json.Marshal(map[string]any{"path": dirs[:20]})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, raw)
	assert.NoError(t, err)
	raw, err = json.Marshal(map[string]any{"path": dirs})
	require.NoError(t, err)
	rule, err := p.Evaluate(tool.ModeNormal, &spec, raw)
	assert.Error(t, err)
	assert.Equal(t, "paths.resolve", rule)
}
