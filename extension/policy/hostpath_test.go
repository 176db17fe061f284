package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/toolbelt/sandbox"
)

func TestHostPattern(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	target := filepath.Join(root, "real [1]")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "sub"), 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(root, "abs")))
	require.NoError(t, os.Symlink("real [1]/sub", filepath.Join(root, "rel")))
	require.NoError(t, os.Symlink("loop2", filepath.Join(root, "loop1")))
	require.NoError(t, os.Symlink("loop1", filepath.Join(root, "loop2")))

	for in, want := range map[string]string{
		root + "/abs/**":       sandbox.EscapeGlob(target) + "/**",
		root + "/abs":          sandbox.EscapeGlob(target),
		root + "/rel/*.key":    sandbox.EscapeGlob(target) + "/sub/*.key",
		root + "/real [1]/**":  "",
		"/**":                  "",
		root + "/missing/**/x": "",
	} {
		assert.Equal(t, want, hostPattern(in), in)
	}
	g, err := compileGlob(root + "/abs/**")
	require.NoError(t, err)
	assert.True(t, g.within(target+"/sub/key"), "a resolved path matches the pattern written through the link")
	assert.False(t, g.within(root+"/real [2]/sub/key"))
}
