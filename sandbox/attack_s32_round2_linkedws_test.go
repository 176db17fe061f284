package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A workspace given as a link (~/proj -> /srv/proj, /tmp/links/ws ->
// /tmp/ws) where the run hides the link: in a directory the command's user
// cannot search (/root, 0700), which bwrap replaces with an empty tmpfs, or
// in /tmp, which every run has fresh. bwrap bound the workspace at the
// link's own path there, while the masks (Spec.Mask), resolved through the
// link on the host, went where it leads: the command read the masked file
// (helper-261's finding; both layouts seen failing first). It must not
// read it, by the workspace's path or where the link leads, and must still
// write its workspace.
func TestAttackS32Round2LinkedWorkspaceMasks(t *testing.T) {
	requireRoot(t)
	const script = `cat secret.env; cat "$1/secret.env"; cat "$2/secret.env"
echo in > inside && echo WROTE-INSIDE
echo end`
	for _, layout := range []struct {
		name string
		real func(t *testing.T) string
		dir  func(t *testing.T) string
	}{
		{"link in an unsearchable directory", func(t *testing.T) string { return hostDir(t) }, func(t *testing.T) string {
			d := hostDir(t)
			require.NoError(t, os.Chmod(d, 0o700))
			return d
		}},
		{"link in /tmp", func(t *testing.T) string { return workspaceDir(t) }, func(t *testing.T) string {
			d, err := os.MkdirTemp("", "toolbelt-links-")
			require.NoError(t, err)
			require.NoError(t, os.Chmod(d, 0o755))
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}},
	} {
		for _, c := range []struct {
			name string
			opts []Option
		}{
			{"default user", nil},
			{"as 65534", []Option{WithUser(65534, 65534)}},
		} {
			t.Run(layout.name+"/"+c.name, func(t *testing.T) {
				real := layout.real(t)
				require.NoError(t, os.Chmod(real, 0o777))
				require.NoError(t, os.WriteFile(filepath.Join(real, "secret.env"), []byte("S32R2-MASKED-SECRET\n"), 0o644))
				link := filepath.Join(layout.dir(t), "proj")
				require.NoError(t, os.Symlink(real, link))
				sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(link)}, c.opts...)...)
				out, err := sb.Run(t.Context(), Spec{Mask: []string{"secret.env"}, Argv: []string{"sh", "-c", script, "sh", link, real}})
				require.NoError(t, err)
				t.Logf("stdout %q\nstderr %q", out.Stdout, out.Stderr)
				require.Contains(t, string(out.Stdout), "end", "the attack did not run")
				assert.NotContains(t, string(out.Stdout), "S32R2-MASKED-SECRET", "a masked file of the workspace was read")
				assert.Contains(t, string(out.Stdout), "WROTE-INSIDE", "the workspace is not writable")
				assert.FileExists(t, filepath.Join(real, "inside"))
			})
		}
	}
}
