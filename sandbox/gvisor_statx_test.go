package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGVisorStatx pins a limitation of Debian's runsc (docs/sandbox.md):
// statx fails with EINVAL, so coreutils' stat fails, while fstatat (test
// -f, -s) works. It fails when a runsc without the bug is installed, so
// that the docs are updated.
func TestGVisorStatx(t *testing.T) {
	dir := workspaceDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi"), 0o644))
	sb := engine(t, EngineGVisor, WithWorkspace(dir))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", `test -f a.txt && test -s a.txt && echo "a.txt: a file, not empty"; stat a.txt`}})
	require.NotNil(t, out, "%v", err)
	assert.Contains(t, string(out.Stdout), "a.txt: a file, not empty", "fstatat works: test -f and -s see the file")
	assert.Contains(t, string(out.Stderr), "cannot statx 'a.txt': Invalid argument", "statx still fails; if this changed, update docs/sandbox.md")
}
