package policy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// "**" spans directories to a doublestar tool, and doublestar follows
// symbolic links to directories while it does: "notes/**/key" reaches
// secrets/key through notes/a/b/x, a link to secrets. The policy judged
// notes as a directory read below (no forbidden pattern reaches into it)
// and globbed "**" as "*", one level, which does not find the link. Seen
// failing first: both were allowed.
func TestAttackS26ReviewGlobstarThroughALink(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"secrets/key", "notes/a/b/c.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600))
	}
	if err := os.Symlink("../../../secrets", filepath.Join(dir, "notes/a/b/x")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{"notes/**/key", dir + "/notes/**/x/*"} {
		pattern := path
		if !filepath.IsAbs(path) {
			pattern = filepath.Join(dir, path)
		}
		matches, err := doublestar.FilepathGlob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, matches, "%q reaches secrets/key, as a doublestar tool reads it", path)
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	// Without the link, the same glob is allowed.
	require.NoError(t, os.Remove(filepath.Join(dir, "notes/a/b/x")))
	args, err := json.Marshal(map[string]string{"path": "notes/**/*.txt"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}
