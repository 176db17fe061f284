package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runUserSecrets are the credential stores the tests below put in the home
// of the run's user.
var runUserSecrets = map[string]string{
	".ssh/id_ed25519":      "HOMESECRET-SSH",
	".aws/credentials":     "HOMESECRET-AWS",
	".config/gh/hosts.yml": "HOMESECRET-GH",
}

// testUser adds a user whose home is home, owned by it (mode 0700), with
// runUserSecrets in it, and removes the user when the test ends. It needs
// root (skipped otherwise, failed under CI) and useradd (the passwd
// package, on every Debian).
func testUser(t *testing.T, home string) (uid, gid uint32) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("adds a user to the host: run the tests as root in CI")
		}
		t.Skip("adds a user to the host: run the tests as root")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "tbs27" + hex.EncodeToString(b)
	out, err := exec.Command("useradd", "--no-create-home", "--home-dir", home, "--user-group", "--shell", "/usr/sbin/nologin", name).CombinedOutput()
	require.NoError(t, err, "useradd: %s", out)
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	u, err := user.Lookup(name)
	require.NoError(t, err)
	require.Equal(t, home, u.HomeDir)
	id, err := strconv.ParseUint(u.Uid, 10, 32)
	require.NoError(t, err)
	g, err := strconv.ParseUint(u.Gid, 10, 32)
	require.NoError(t, err)
	uid, gid = uint32(id), uint32(g)
	for p, data := range runUserSecrets {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte(data+"\n"), 0o600))
	}
	require.NoError(t, os.Chmod(home, 0o700))
	require.NoError(t, chownTree(home, int(uid), int(gid)))
	return uid, gid
}

// A run WithUser(uid) masked the credential stores under the program's
// HOME (/root for a root program) only, not under the home of the user the
// command runs as: run as dev, a command printed /home/dev/.ssh/id_ed25519,
// .aws/credentials and .config/gh/hosts.yml, dev's own, which it can read
// on the host's read-only root. The landlock and process engines mask no
// home's stores (they show the host's files as they are) and are not
// asked here.
func TestAttackS27CommandReadsTheRunUsersHomeSecrets(t *testing.T) {
	home := filepath.Join(hostDir(t), "home") // on the host's root, which the sandbox shows (its /tmp is its own)
	uid, gid := testUser(t, home)
	require.NotEqual(t, home, os.Getenv("HOME"))
	ws := filepath.Join(home, "project")
	require.NoError(t, os.Mkdir(ws, 0o755))
	require.NoError(t, os.Chown(ws, int(uid), int(gid)))
	var paths []string
	for p := range runUserSecrets {
		paths = append(paths, filepath.Join(home, p))
	}
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(ws), WithUser(uid, gid)), `id -u; for p in "$@"; do cat "$p"; done; echo end`, paths...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			require.True(t, strings.HasPrefix(string(o.Stdout), strconv.Itoa(int(uid))+"\n"), "the command did not run as the test's user")
			assert.NotContains(t, string(o.Stdout), "HOMESECRET", "a command read a credential store of its own user's home")
		})
	}
}

// The run's user's home in the workspace has its stores masked, and the
// directories above them pinned as HOME's are: a command that renamed
// home/.config (above .config/gh) and home/.aws left the stores under names
// no mask looks for, and the next command would read them there.
func TestAttackS27RenameAboveTheRunUsersHomeSecret(t *testing.T) {
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := hostDir(t)
			home := filepath.Join(ws, "home")
			uid, gid := testUser(t, home)
			require.NoError(t, os.Chown(ws, int(uid), int(gid)))
			sb := engine(t, name, WithWorkspace(ws), WithUser(uid, gid))
			o := sh(t, sb, `cat home/.config/gh/hosts.yml home/.aws/credentials home/.ssh/id_ed25519; mv home/.config home/cfg; mv home/.aws home/a; mv home/.ssh home/s; echo end`)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "HOMESECRET", "the first command read its user's credentials")
			o = sh(t, sb, `cat home/cfg/gh/hosts.yml home/a/credentials home/s/id_ed25519 home/.config/gh/hosts.yml home/.aws/credentials home/.ssh/id_ed25519; echo end`)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "HOMESECRET", "a command read its user's credentials under the name a rename gave them")
		})
	}
}
