package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A user's runtime directory ($XDG_RUNTIME_DIR, /run/user/UID, mode 0700)
// holds what their session's daemons hand out: podman's registry login
// (containers/auth.json), the ssh-agent's and gpg-agent's sockets, the
// keyring's, the session bus (through which systemd-run --user starts a
// program outside any sandbox), gvfs' mounts of their remote shares. A
// landlock command runs as that user when the program does (a developer's)
// or WithUser names them, and read beneath /run: cat printed
// /run/user/UID/containers/auth.json (seen succeeding first). bwrap and
// gvisor mount a fresh /run. A runtime directory that lies elsewhere
// ($XDG_RUNTIME_DIR=/somewhere, mode 0700) is hidden from landlock
// commands too.
func TestAttackS29CommandReadsTheUsersRuntimeDir(t *testing.T) {
	requireRoot(t) // it writes under the host's /run; commands run as 65534
	run := filepath.Join("/run/user", "65534")
	if _, err := os.Lstat(run); err == nil {
		t.Skipf("%s exists on this host; the test makes its own", run)
	}
	require.NoError(t, os.MkdirAll("/run/user", 0o755))
	require.NoError(t, os.Mkdir(run, 0o700))
	t.Cleanup(func() { os.RemoveAll(run) })
	// Elsewhere, as on hosts without logind (XDG_RUNTIME_DIR=/tmp/runtime-USER,
	// WSLg's /mnt/wslg/runtime-dir): outside /tmp, which landlock reads too
	// but bwrap and gvisor replace, so that all three see it.
	other := filepath.Join(hostDir(t), "runtime")
	require.NoError(t, os.Mkdir(other, 0o700))
	var files []string
	for _, dir := range []string{run, other} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, "containers"), 0o700))
		f := filepath.Join(dir, "containers", "auth.json")
		require.NoError(t, os.WriteFile(f, []byte(`RUNTIMESECRET {"auths":{"`+dir+`":{"auth":"dXNlcjpwYXNz"}}}`+"\n"), 0o600))
		for _, p := range []string{dir, filepath.Dir(f), f} {
			require.NoError(t, os.Chown(p, 65534, 65534))
		}
		files = append(files, f)
	}
	t.Setenv("XDG_RUNTIME_DIR", other)

	script := `for f in "$@"; do cat "$f"; done; ls /run >/dev/null && echo listed; echo end`
	// The control: the process engine as 65534, which confines no file.
	o := sh(t, engine(t, EngineProcess, WithUser(65534, 65534)), script, files...)
	require.Equal(t, len(files), strings.Count(string(o.Stdout), "RUNTIMESECRET"), "the control did not read every file of %v", files)
	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithWorkspace(workspaceDir(t)), WithUser(65534, 65534)), script, files...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "RUNTIMESECRET", "a command read a file of the user's runtime directory")
			if eng == EngineLandlock { // gVisor's ls fails on statx (EINVAL), not on what it lists
				assert.Contains(t, string(o.Stdout), "listed", "a command could not list /run")
			}
		})
	}
}
