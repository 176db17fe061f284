package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s31HostTmpdir makes a temporary directory of the run's user outside the
// host's /tmp (as a user's TMPDIR=$HOME/tmp, pam_tmpdir's, a CI runner's
// RUNNER_TEMP), makes it the program's TMPDIR for the test, and leaves in
// it what the user's other programs leave in their temporary directory: a
// Kerberos ticket cache, a file in ssh-agent's directory, another run's
// private temporary directory (where runs make theirs in the host's
// temporary directory). Each is 0600 (directories 0700) and owned by the
// run's user, so that only the sandbox stands in the way. It returns the
// directory and the files.
func s31HostTmpdir(t *testing.T) (string, []string) {
	t.Helper()
	base, err := os.MkdirTemp("/srv", "toolbelt-test-usertmp-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	var files []string
	own := func(p string, mode os.FileMode) {
		require.NoError(t, os.Chmod(p, mode))
		require.NoError(t, os.Chown(p, s30User, s30User))
	}
	own(base, 0o700)
	file := func(dir, name string) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("TMPDIRSECRET of "+p+"\n"), 0o600))
		own(p, 0o600)
		files = append(files, p)
	}
	file(base, fmt.Sprintf("krb5cc_%d", s30User))
	for _, d := range []string{"ssh-agent", landlockDirPrefix + "other-run-locked"} {
		require.NoError(t, os.Mkdir(filepath.Join(base, d), 0o700))
		own(filepath.Join(base, d), 0o700)
		file(filepath.Join(base, d), "secret")
	}
	t.Setenv("TMPDIR", base)
	require.Equal(t, base, os.TempDir())
	return base, files
}

// The last session hid the host's /tmp, /var/tmp and /dev/shm from
// landlock commands (TestAttackS30LandlockReadsCredentialsLeftInTmp), but
// the program's temporary directory need not be there: with TMPDIR set
// elsewhere ($HOME/tmp, a CI runner's temporary directory), what the
// user's other programs leave in it stayed readable to a command of that
// user (WithUser(23456) stands in for a program that is not root), and
// where /dev/shm is not a tmpfs the runs make their private TMPDIRs there,
// so another run's was readable too. bwrap and gvisor bind the host's root
// read-only, that directory with it.
func TestAttackS31CommandReadsTheProgramsTmpdir(t *testing.T) {
	requireRoot(t) // it plants files owned by another user
	ws := workspaceDir(t)
	base, files := s31HostTmpdir(t)
	require.False(t, strings.HasPrefix(ws, base+"/"))
	script := `for f in "$@"; do cat "$f"; done; ls -a "$(dirname "$1")"
echo "own $(echo t > "${TMPDIR:-/tmp}/t" && cat "${TMPDIR:-/tmp}/t")"
echo end`

	// The control: the process engine as that user reads every file.
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, files...)
	require.Equal(t, len(files), strings.Count(string(o.Stdout), "TMPDIRSECRET"), "the control did not read every file of %v", files)

	// listed: whether the directory stays listable (on landlock every
	// directory does: a rule that lets a command list / lets it list
	// everything beneath).
	check := func(t *testing.T, sb Sandbox, listed bool) {
		t.Helper()
		o := sh(t, sb, script, files...)
		require.Contains(t, string(o.Stdout), "end", "the attack did not run")
		n := strings.Count(string(o.Stdout), "TMPDIRSECRET")
		assert.Zero(t, n, "a command read %d of the %d files in the program's TMPDIR %s", n, len(files), base)
		if !listed {
			assert.NotContains(t, string(o.Stdout), "krb5cc_", "a command listed the program's TMPDIR %s", base)
		}
		assert.Contains(t, string(o.Stdout), "own t\n", "the command's own TMPDIR is not writable")
	}
	t.Run("landlock", func(t *testing.T) {
		check(t, landlockEngine(t, WithWorkspace(ws), WithUser(s30User, s30User)), true)
	})
	t.Run("landlock, runs' TMPDIRs there", func(t *testing.T) {
		// Where /dev/shm is not a tmpfs (tmpBase).
		sb := landlockEngine(t, WithWorkspace(ws), WithUser(s30User, s30User), WithNetwork(true))
		sb.tmpBase = base
		check(t, sb, true)
	})
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			check(t, engine(t, name, WithWorkspace(ws), WithUser(s30User, s30User)), false)
		})
	}
	// A workspace inside that directory (Go tests' t.TempDir) stays the
	// command's: landlock keeps its rule, bwrap and gvisor bind it into an
	// empty directory there (TestAttackS31ReviewWorkspaceInsideTheProgramsTmpdir).
	inner, err := os.MkdirTemp(base, "ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chown(inner, s30User, s30User))
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name+", workspace inside", func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(inner), WithUser(s30User, s30User)), `echo ok > made && cat made`)
			assert.Equal(t, "ok\n", string(o.Stdout))
		})
	}
}
