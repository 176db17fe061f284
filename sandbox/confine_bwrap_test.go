package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("states what holds when the host process is root; run the tests as root")
	}
}

// WithUser(0, 0) asks for root's uid explicitly: the command keeps uid 0
// (and so DAC access to root's files) but still has no capabilities, and the
// mount, /proc and socket attacks still fail.
func TestBwrapExplicitRootStillConfined(t *testing.T) {
	requireRoot(t)
	want := map[string]bool{
		"no capabilities (CapEff, CapPrm, CapBnd are 0)":                                        true,
		"runs as a uid other than 0, by default":                                                false,
		"a root-only host file (0600 root) cannot be read":                                      false,
		"remounting / read-write does not make the host writable":                               true,
		"/proc/sys cannot be written":                                                           true,
		"its own /proc, also after umount -l /proc":                                             true,
		"host unix sockets (/run, /var/run, /tmp, /var/tmp, /dev/shm) unreachable, network off": true,
	}
	for _, row := range confineRows() {
		w, ok := want[row.name]
		if !ok {
			continue
		}
		t.Run(row.name, func(t *testing.T) {
			sb := engine(t, EngineBwrap, WithUser(0, 0))
			assert.Equal(t, w, row.held(t, EngineBwrap, sb))
		})
	}
	t.Run("sysrq-trigger cannot be written", func(t *testing.T) {
		sb := engine(t, EngineBwrap, WithUser(0, 0))
		// "h" only prints the sysrq help to the kernel log.
		out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo h > /proc/sysrq-trigger"}})
		require.ErrorIs(t, err, ErrNonZeroExit, "stderr: %s", out.Stderr)
	})
}

// As root, the command runs as 65534 and still writes in a workspace owned
// by someone else (root, 0700, or another user): the workspace is bound
// through an idmapped mount, and what the command creates belongs on the host
// to the workspace's owner. Files of a third user stay read-only for it.
func TestBwrapWorkspaceWritableAsNobody(t *testing.T) {
	requireRoot(t)
	for _, tc := range []struct {
		name       string
		owner      uint32
		opts       []Option
		commandUID string
		underRoot  bool // inside a 0700 root directory outside /tmp, like /root
	}{
		{"root-owned workspace, default user", 0, nil, "65534", false},
		{"workspace of uid 1000, default user", 1000, nil, "65534", false},
		{"root-owned workspace, WithUser(1234)", 0, []Option{WithUser(1234, 1234)}, "1234", false},
		{"root-owned workspace under a 0700 directory", 0, nil, "65534", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := ""
			if tc.underRoot {
				parent = hostDir(t)
				require.NoError(t, os.Chmod(parent, 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(parent, "beside.txt"), []byte("beside"), 0o644))
			}
			dir, err := os.MkdirTemp(parent, "toolbelt-ws-")
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(dir) })
			require.NoError(t, os.Chmod(dir, 0o700))
			require.NoError(t, os.Chown(dir, int(tc.owner), int(tc.owner)))
			// A file of a third user, readable by all.
			other := filepath.Join(dir, "other.txt")
			require.NoError(t, os.WriteFile(other, []byte("other\n"), 0o644))
			require.NoError(t, os.Chown(other, 4242, 4242))

			sb := engine(t, EngineBwrap, append(tc.opts, WithWorkspace(dir))...)
			out := mustRun(t, sb, Spec{Argv: []string{"sh", "-c",
				"id -u; echo hi > new.txt; mkdir sub; echo x > sub/f; cat other.txt; if echo y >> other.txt; then echo WROTE-OTHER; fi; cat ../beside.txt 2>/dev/null; true"}})
			lines := strings.Fields(string(out.Stdout))
			require.NotEmpty(t, lines)
			assert.Equal(t, tc.commandUID, lines[0])
			assert.Contains(t, lines, "other", "a third user's file is readable")
			assert.NotContains(t, lines, "WROTE-OTHER", "a third user's file is not writable")
			assert.NotContains(t, lines, "beside", "what the unsearchable parent holds stays out of reach")

			for _, p := range []string{"new.txt", "sub", "sub/f"} {
				fi, err := os.Stat(filepath.Join(dir, p))
				require.NoError(t, err, p)
				st := fi.Sys().(*syscall.Stat_t)
				assert.Equal(t, tc.owner, st.Uid, "%s belongs to the workspace's owner on the host", p)
				assert.Equal(t, tc.owner, st.Gid, p)
			}
			b, err := os.ReadFile(filepath.Join(dir, "new.txt"))
			require.NoError(t, err)
			assert.Equal(t, "hi\n", string(b))
			b, err = os.ReadFile(other)
			require.NoError(t, err)
			assert.Equal(t, "other\n", string(b))

			// The idmapped mount is gone once the run is over.
			mounts, err := os.ReadFile("/proc/self/mountinfo")
			require.NoError(t, err)
			assert.NotContains(t, string(mounts), "toolbelt-idmap-")
		})
	}
}

// A run's stop reaches processes that left the session and the group: the
// sandbox's pid namespace dies with bwrap.
func TestBwrapStopReachesNewSession(t *testing.T) {
	sb := engine(t, EngineBwrap)
	marker := "604." + strings.Repeat("1", 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, err := sb.Run(ctx, Spec{
		Argv:     []string{"sh", "-c", "setsid sh -c 'sleep " + marker + "' & echo up; wait"},
		OnOutput: func(string, []byte) { cancel() },
	})
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, out)
	assert.Empty(t, hostProcsWith(marker), "no process is left when Run returns")
}
