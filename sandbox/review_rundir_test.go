package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantRunDir makes, under base, a directory named like a run directory of
// prefix that nobody locks: what another local user can leave in a shared
// temporary directory for a root program's sweep.
func plantRunDir(t *testing.T, base, prefix string) string {
	t.Helper()
	d := filepath.Join(base, prefix+"7"+runDirSuffix)
	require.NoError(t, os.Mkdir(d, 0o755))
	return d
}

// A sweep removes a directory it has checked (opened without following
// links, locked, compared with the path) by its path. An attacker who owns
// the planted directory moves it away in between and puts a symbolic link
// to a victim's directory in its place: nothing of the victim's may go.
// (In a sticky /tmp, fs.protected_symlinks=1 stops root following the
// link; it is 0 on some hosts, this one among them, and a private TMPDIR
// is not sticky.)
func TestReviewSweepSwappedForSymlinkRemovesNothingOutside(t *testing.T) {
	sweepers := map[string]struct {
		prefix string
		remove func(*runDir)
	}{
		"idmap":    {idmapDirPrefix, removeIdmapDir},
		"landlock": {landlockDirPrefix, (*runDir).removeAll},
		"gvisor":   {gvisorDirPrefix, removeGVisorDir},
	}
	for name, s := range sweepers {
		t.Run(name, func(t *testing.T) {
			base, victim := t.TempDir(), t.TempDir()
			for _, f := range []string{"ws", "state", "bundle", "file"} {
				require.NoError(t, os.WriteFile(filepath.Join(victim, f), []byte("precious"), 0o600))
			}
			require.NoError(t, os.Mkdir(filepath.Join(victim, "dir"), 0o755))
			planted := plantRunDir(t, base, s.prefix)
			require.NoError(t, os.Symlink(victim, filepath.Join(planted, "link")))
			swept := 0
			sweepRunDirs(base, s.prefix, func(d *runDir) {
				swept++
				// The attacker wins the race: the checked directory
				// becomes a link to the victim's.
				require.NoError(t, os.Rename(d.path, filepath.Join(base, "moved")))
				require.NoError(t, os.Symlink(victim, d.path))
				s.remove(d)
			})
			assert.Equal(t, 1, swept)
			for _, f := range []string{"ws", "state", "bundle", "file", "dir"} {
				_, err := os.Lstat(filepath.Join(victim, f))
				assert.NoError(t, err, "the victim's %s was removed through the swapped link", f)
			}
		})
	}
}

// gVisor's sweep kills the processes of a leftover directory, found by
// their command lines. A local user who plants /tmp/toolbelt-runsc-N-locked
// must not make a root program kill the live sandbox of a program whose
// temporary directory is elsewhere (/var/tmp, ~/tmp) and whose run's
// directory has the same name: its command line holds the planted path as
// a substring.
func TestReviewGVisorSweepKillsOnlyTheLeftoversProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reapLeftovers is Linux's")
	}
	base := t.TempDir()
	planted := plantRunDir(t, base, gvisorDirPrefix)
	// Another program's live runsc, its TMPDIR ending in the same path:
	// its directory /var<planted> is locked and is not ours to touch.
	other := "/var" + planted
	victim := exec.Command("sh", "-c", "sleep 60; :", "runsc", "--root="+other+"/state", "run", "--bundle", other+"/bundle")
	require.NoError(t, victim.Start())
	exited := make(chan error, 1)
	go func() { exited <- victim.Wait() }()
	defer func() {
		_ = victim.Process.Kill()
		<-exited
	}()
	time.Sleep(100 * time.Millisecond) // sh has started
	sweepRunDirs(base, gvisorDirPrefix, removeGVisorDir)
	_, err := os.Lstat(planted)
	assert.ErrorIs(t, err, os.ErrNotExist, "the leftover was not swept")
	select {
	case err := <-exited:
		exited <- err
		t.Fatalf("the sweep killed another program's live sandbox: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
}
