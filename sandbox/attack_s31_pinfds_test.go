package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bwrap binds the workspace's repository directories and the directories
// above masked paths by descriptor (--ro-bind-fd, --bind-fd), and reads
// its seccomp filter from one: none of them may stay open in the command,
// where /proc/self/fd/N would give the host's (writable, unmasked) view of
// that directory. The command lists its descriptors: only its stdio and
// the one the listing opens. Not an attack that worked: it passed on the
// code it was written against (gVisor's /proc/self/fd cannot be listed,
// and landlock takes no Spec.Mask).
func TestS31PinnedDescriptorsStayOutOfTheCommand(t *testing.T) {
	ws := workspaceDir(t)
	for _, d := range []string{".git/hooks", "conf/secret"} {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, d), 0o777))
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "conf/secret/token"), []byte("PINNEDSECRET\n"), 0o666))
	for _, opts := range [][]Option{{WithWorkspace(ws)}, {WithWorkspace(ws), WithNetwork(true)}, {WithWorkspace(ws), WithUser(s30User, s30User)}} {
		t.Run("bwrap", func(t *testing.T) {
			sb := engine(t, EngineBwrap, opts...)
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", `ls /proc/self/fd; for f in /proc/self/fd/*; do cat "$f/secret/token" "$f/conf/secret/token" 2>/dev/null; done; echo end`},
				Mask:   []string{"conf/secret"},
				Limits: Limits{Timeout: 30 * time.Second},
			})
			require.NoError(t, err)
			t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
			require.Contains(t, string(out.Stdout), "end")
			assert.NotContains(t, string(out.Stdout), "PINNEDSECRET", "a masked file was read through an inherited descriptor")
			fds := strings.Fields(strings.TrimSuffix(string(out.Stdout), "end\n"))
			assert.ElementsMatch(t, []string{"0", "1", "2", "3"}, fds, "the command holds descriptors besides its stdio and the listing's")
		})
	}
}
