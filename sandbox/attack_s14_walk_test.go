package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A directory the host may list but not enter (mode 0644) does not hide
// what a command changes inside it. The walk took every entry it could
// not stat for one deleted meanwhile and left it out, before the run and
// after: a command of the program's own user (landlock or process, run by
// a program that is not root) that made a directory 0644, and in a later
// run opened it, rewrote a file there and made it 0644 again, changed
// nothing by the outcome, which said nothing either. Root enters every
// directory, so as root the test runs itself again as nobody.
func TestAttackS14UnsearchableDirectoryHidesChanges(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t)
		return
	}
	ws := t.TempDir()
	sb := engine(t, EngineLandlock, WithWorkspace(ws))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "mkdir d && echo old > d/f && chmod 644 d"}})
	require.NoError(t, err, "%s", out.Stderr)
	t.Cleanup(func() { os.Chmod(filepath.Join(ws, "d"), 0o755) })

	out, err = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "chmod 755 d && echo new > d/f && chmod 644 d"}, TrackChanges: true})
	require.NoError(t, err, "%s", out.Stderr)
	if out.ChangesUntracked == "" {
		assert.Equal(t, []Change{{"d/f", ChangeModified}}, out.Changes, "d/f was rewritten, and neither listed nor said to be untracked")
	} else {
		assert.Contains(t, out.ChangesUntracked, "cannot read the directory d")
	}
}
