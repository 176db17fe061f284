package loader_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
)

// LoadFS reads what its fs holds, and a pattern cannot name a file outside
// it: "..", an absolute path or a rooted pattern matches nothing (fs.Glob
// and fs.ValidPath), so a tool file beside the directory is not loaded.
// It held; it would fail if LoadFS joined the pattern to a directory of
// its own.
func TestAttackS17LoadFSPatternStaysInTheFS(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outside.yaml"), []byte(remoteTools), 0o600))
	inner := filepath.Join(dir, "tools")
	require.NoError(t, os.Mkdir(inner, 0o700))
	fsys := os.DirFS(inner)
	for _, pattern := range []string{"../*.yaml", "../outside.yaml", filepath.Join(dir, "*.yaml"), "/*.yaml", "./../*.yaml", "tools/../../*.yaml"} {
		reg := registry.New()
		err := newLoader(nil).LoadFS(reg, fsys, pattern)
		require.Error(t, err, pattern)
		assert.Empty(t, reg.Names(), "%s loaded a file outside the fs", pattern)
	}
}
