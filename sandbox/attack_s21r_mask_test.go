package sandbox

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A directory that held masked paths keeps them masked under its new name
// (a command renamed it: mv conf c2), and its masked names are judged by
// the rules again once it is back where they named them: a relaxed rule
// unmasks them there (TestAttackS21rBashRenamesTheParentOfAMaskedPath in
// tool/shell is the attack through bash).
func TestWorkspaceMaskedFollowsARenamedDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"conf/secrets/key", "conf/app.yaml", "x/y/prod.yaml", "x/y/dev.yaml"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644))
	}
	var relaxed atomic.Bool
	hide := func(rel, _ string) string {
		if !relaxed.Load() && (rel == "conf/secrets" || rel == "x/y/prod.yaml") {
			return "rule"
		}
		return ""
	}
	ws, err := OpenWorkspace(dir, WithHide(hide))
	require.NoError(t, err)
	defer ws.Close()
	masked := func() []string {
		t.Helper()
		got, err := ws.Masked()
		require.NoError(t, err)
		return got
	}
	mv := func(from, to string) {
		t.Helper()
		require.NoError(t, os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)))
	}
	assert.Equal(t, []string{"conf/secrets", "x/y/prod.yaml"}, masked())

	mv("conf", "c2")
	mv("x", "z")
	mv("z/y", "w")
	assert.Equal(t, []string{"c2/secrets", "w/prod.yaml"}, masked(), "renamed directories keep their masked names")
	mv("c2", "c3")
	assert.Equal(t, []string{"c3/secrets", "w/prod.yaml"}, masked(), "and again")

	mv("c3", "conf")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "x"), 0o755))
	mv("w", "x/y")
	assert.Equal(t, []string{"conf/secrets", "x/y/prod.yaml"}, masked(), "back where the rules named them")
	relaxed.Store(true)
	assert.Empty(t, masked(), "there, a relaxed rule unmasks them")
	mv("conf", "c2")
	assert.Empty(t, masked(), "and they are forgotten")
}
