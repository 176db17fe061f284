package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A workspace that holds the home directory (HOME=/app in a container, an
// agent given the home itself) has the home's credential stores in it:
// bwrap and gvisor mount an empty, read-only file or directory over each
// (DefaultHomeSecrets), which no command can rename (a mount point). The
// directory above one could be: a command ran mv .config cfg (above
// .config/gh) and mv .docker dk (above .docker/config.json), the stores
// left their names, and the next command, whose masks look for them under
// those names, read cfg/gh/hosts.yml and dk/config.json.
func TestAttackS26RenameTheDirectoryAboveAHomeSecret(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			for p, data := range map[string]string{".config/gh/hosts.yml": "HOMESECRET-GH", ".docker/config.json": "HOMESECRET-DOCKER", ".ssh/id_rsa": "HOMESECRET-SSH"} {
				require.NoError(t, os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(ws, p), []byte(data), 0o644))
			}
			require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
			t.Setenv("HOME", ws)
			sb := engine(t, name, WithWorkspace(ws))
			o := sh(t, sb, `cat .config/gh/hosts.yml .docker/config.json .ssh/id_rsa; mv .config cfg; mv .docker dk; mv .ssh s; echo end`)
			t.Logf("first run: %s%s", o.Stdout, o.Stderr)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.False(t, strings.Contains(string(o.Stdout), "HOMESECRET"), "the first command read the home's credentials")
			o = sh(t, sb, `cat cfg/gh/hosts.yml dk/config.json s/id_rsa .config/gh/hosts.yml .docker/config.json .ssh/id_rsa; echo end`)
			t.Logf("second run: %s%s", o.Stdout, o.Stderr)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.False(t, strings.Contains(string(o.Stdout), "HOMESECRET"), "a command read the home's credentials under the name a rename gave them")
		})
	}
}
