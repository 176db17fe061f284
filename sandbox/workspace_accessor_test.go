package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Every engine reports the workspace it was given, cleaned, and "" without
// one, so a tool can tell before its first call that the engine works in
// another directory.
func TestEngineReportsItsWorkspace(t *testing.T) {
	dir := t.TempDir()
	p1, err := sandbox.NewProcess(sandbox.WithWorkspace(dir + "/."))
	require.NoError(t, err)
	l, err := sandbox.NewLandlock(sandbox.WithWorkspace(dir))
	require.NoError(t, err)
	b, err := sandbox.NewBwrap(sandbox.WithWorkspace(dir))
	require.NoError(t, err)
	g, err := sandbox.NewGVisor(sandbox.WithWorkspace(dir))
	require.NoError(t, err)
	for _, sb := range []interface{ Workspace() string }{p1, l, b, g} {
		assert.Equal(t, dir, sb.Workspace())
	}
	p, err := sandbox.NewProcess()
	require.NoError(t, err)
	assert.Empty(t, p.Workspace())
}
