package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A workspace given as a symlink in /tmp (macOS's /tmp is one, and a
// program may make its own there): bwrap and gVisor give the command a
// fresh /tmp, where the link is not. gVisor mounted the workspace where the
// link leads but looked for the command's directory at the link's name,
// and failed to start ("failed to find initial working directory").
func TestSymlinkedWorkspaceInTmp(t *testing.T) {
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			real := workspaceDir(t)
			require.NoError(t, os.Mkdir(filepath.Join(real, "sub"), 0o777))
			require.NoError(t, os.Chmod(filepath.Join(real, "sub"), 0o777))
			links, err := os.MkdirTemp("", "toolbelt-links-")
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(links) })
			link := filepath.Join(links, "ws")
			require.NoError(t, os.Symlink(real, link))
			sb := engine(t, name, WithWorkspace(link))
			out := sh(t, sb, `echo x > inside && echo WROTE-INSIDE`)
			assert.Contains(t, string(out.Stdout), "WROTE-INSIDE")
			assert.FileExists(t, filepath.Join(real, "inside"))
			// A directory of the run inside the workspace, too.
			out, err = sb.Run(t.Context(), Spec{Argv: []string{"sh", "-c", "echo x > here && echo WROTE-SUB"}, Dir: "sub"})
			require.NoError(t, err, "%+v", out)
			assert.Contains(t, string(out.Stdout), "WROTE-SUB")
			assert.FileExists(t, filepath.Join(real, "sub", "here"))
		})
	}
}
