package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run's directory inside the workspace that is a symlink out of it (to
// /, or to a host directory the command's user may write as far as file
// modes go) passes workDir's check, which is lexical, and the command
// starts there; but the engine's confinement is on the real paths, so the
// command can write nothing there: bwrap and gvisor see the host root
// read-only, landlock's domain grants writes in the workspace alone. The
// command also writes through the link from the workspace and through ".."
// of the link. A workspace given as a symlink confines the command to the
// directory it leads to (the writable one), and ".." of it is not
// writable. (Safe on every engine when written; a test that fails if an
// engine ever resolves a run's directory on the host and binds it.)
func TestAttackS23SymlinkedRunDirectory(t *testing.T) {
	requireRoot(t) // hostDir is outside /tmp only for root
	const script = `echo x > escaped && echo WROTE-HERE
echo x > ../escaped && echo WROTE-PARENT
cd "$1" && echo x > out/escaped && echo WROTE-THROUGH
echo end`
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			outside := openDir(t)
			require.NoError(t, os.Symlink("/", filepath.Join(ws, "root")))
			require.NoError(t, os.Symlink(outside, filepath.Join(ws, "out")))
			sb := engine(t, name, WithWorkspace(ws))
			for _, dir := range []string{"root", "out"} {
				out, err := sb.Run(t.Context(), Spec{Dir: dir, Argv: []string{"sh", "-c", script, "sh", ws}})
				require.NoError(t, err, "%s: the run did not start in the linked directory: %+v", dir, out)
				t.Logf("Dir %s: stdout %q stderr %q", dir, out.Stdout, out.Stderr)
				assert.Contains(t, string(out.Stdout), "end", "the attack did not run")
				assert.NotContains(t, string(out.Stdout), "WROTE", "Dir %s: the command wrote outside the workspace", dir)
			}
			ents, err := os.ReadDir(outside)
			require.NoError(t, err)
			assert.Empty(t, ents, "the command wrote in the host directory")
			assert.NoFileExists(t, "/escaped")
			assert.NoFileExists(t, filepath.Join(filepath.Dir(outside), "escaped"))
		})
	}
}

// A workspace given as a symlink (a developer's ~/proj pointing at the real
// checkout): the command writes where the link leads, and nowhere beside
// it. The link is outside /tmp, which the namespaced engines replace.
func TestAttackS23SymlinkedWorkspace(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			real := openDir(t)
			links := hostDir(t)
			link := filepath.Join(links, "ws")
			// Relative: bwrap resolves an absolute link in a mount's
			// destination outside the new root, and fails to start
			// ("Can't bind mount ...: No such file or directory").
			rel, err := filepath.Rel(links, real)
			require.NoError(t, err)
			require.NoError(t, os.Symlink(rel, link))
			sb := engine(t, name, WithWorkspace(link))
			out := sh(t, sb, `echo x > inside && echo WROTE-INSIDE
echo x > ../escaped && echo WROTE-PARENT
echo x > "$1/escaped" && echo WROTE-LINKS
echo end`, links)
			stdout := string(out.Stdout)
			require.Contains(t, stdout, "end", "the attack did not run")
			assert.Contains(t, stdout, "WROTE-INSIDE", "the workspace the link leads to is writable")
			assert.FileExists(t, filepath.Join(real, "inside"))
			assert.NotContains(t, stdout, "WROTE-PARENT")
			assert.NotContains(t, stdout, "WROTE-LINKS")
			assert.NoFileExists(t, filepath.Join(filepath.Dir(real), "escaped"))
			assert.NoFileExists(t, filepath.Join(links, "escaped"))
		})
	}
}
