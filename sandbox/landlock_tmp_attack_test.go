package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A landlock run may not read another run's private TMPDIR. Every run is
// uid 65534 and Landlock lets a command read beneath every entry of the
// root but /dev, so a run directory made in the host's temporary directory
// was readable by any concurrent run. That is where they went when the
// host's temporary directory is a tmpfs, the default of Fedora and Arch
// (seen succeeding first with TMPDIR on a tmpfs: the second run read the
// first's file). They now go in /dev/shm whenever that is a tmpfs.
func TestAttackLandlockRunReadsAnotherRunsTmpdir(t *testing.T) {
	requireRoot(t)
	// The host's temporary directory is a tmpfs, traversable by 65534.
	tmp, err := os.MkdirTemp("", "toolbelt-tmpfs-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(tmp, 0o755))
	require.NoError(t, unix.Mount("tmpfs", tmp, "tmpfs", 0, "size=16m,mode=1777"))
	t.Cleanup(func() {
		_ = unix.Unmount(tmp, unix.MNT_DETACH)
		_ = os.Remove(tmp)
	})
	t.Setenv("TMPDIR", tmp)
	sb := landlockEngine(t)

	// The first run keeps a secret in its TMPDIR until it is cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := sb.Run(ctx, Spec{Argv: []string{"sh", "-c", `printf s3cret >"$TMPDIR/secret" && sleep 60`}})
		first <- err
	}()
	defer func() {
		cancel()
		<-first
	}()
	var secret string
	require.True(t, eventually(30*time.Second, func() bool {
		m, _ := filepath.Glob(filepath.Join(sb.tmpBase, landlockDirPrefix+"*", "secret"))
		if len(m) == 1 {
			secret = m[0]
		}
		return secret != ""
	}), "the first run did not write its secret")

	out, err := sb.Run(context.Background(), Spec{Argv: []string{"cat", secret}})
	require.NotNil(t, out, "%v", err)
	assert.NotContains(t, string(out.Stdout), "s3cret", "a run read another run's TMPDIR (%s)", secret)
	assert.Error(t, err, "cat of another run's file must fail")
}
