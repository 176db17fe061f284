package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Attack: a protected directory by its 8.3 short name. vfat (Linux looks
// a name up by its long and its short name) and NTFS give .git the short
// name GIT~1 (GIT~2 and so on when another name took it), so on a
// workspace there GIT~1/config and git~1/hooks/pre-commit are .git's, and
// a write there sets core.fsmonitor or a hook, run at the next git
// command on the host; git refuses such paths for the same reason
// (is_ntfs_dotgit). They were written. Names that only look alike stay
// writable.
func TestAttackS18ProtectedNameByItsShortName(t *testing.T) {
	dir := s18Tree(t, "GIT~1/config", "git~1/hooks/x", "Git~2/config", "HG~1/hgrc", "svn~1/entries", "sub/GIT~1/config")
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range []string{"GIT~1/config", "git~1/hooks/pre-commit", "Git~2/config", "HG~1/hgrc", "svn~1/entries", "sub/GIT~1/config"} {
		err := ws.WriteFile(f, []byte("[core]\n\tfsmonitor = sh -c 'id'\n"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrProtected, "%q was written", f)
	}
	for _, f := range []string{"git~", "git~x", "git~01", "digit~1", "gitx~1", "backup~1.txt", "notes~"} {
		assert.NoError(t, ws.WriteFile(f, []byte("x"), 0o644), f)
	}
}
