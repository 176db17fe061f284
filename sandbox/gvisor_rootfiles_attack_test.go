package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Run by root, a gVisor command may not read the host's root-only files:
// /etc/shadow, /root/.ssh, /root/.aws and any other 0600 file of root's.
// The command ran as uid 0 of gVisor's kernel, whose gofer reads the host
// as root, and cat printed such a file outside the workspace, also in a
// 0700 directory (seen succeeding first). bwrap and landlock run the
// command as 65534 there. The run itself must work: a world-readable file
// beside the secret is read, and the workspace is written.
func TestAttackGVisorReadsRootOnlyHostFiles(t *testing.T) {
	requireRoot(t)
	dir := hostDir(t)
	secret := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("root-only-secret\n"), 0o600))
	// Like /root/.ssh: a 0700 directory of root's holding a 0600 key.
	ssh := filepath.Join(dir, "ssh")
	require.NoError(t, os.Mkdir(ssh, 0o700))
	key := filepath.Join(ssh, "id_ed25519")
	require.NoError(t, os.WriteFile(key, []byte("root-only-key\n"), 0o600))
	public := filepath.Join(dir, "public")
	require.NoError(t, os.WriteFile(public, []byte("world-readable\n"), 0o644))

	ws := workspaceDir(t)
	sb := engine(t, EngineGVisor, WithWorkspace(ws))
	out := mustRun(t, sb, Spec{Argv: []string{"sh", "-c",
		`cat "$1" "$2" "$3" 2>&1; echo made > made.txt; true`, "sh", secret, key, public}})
	t.Logf("stdout: %s", out.Stdout)
	assert.NotContains(t, string(out.Stdout), "root-only-secret", "a 0600 root-owned host file was read")
	assert.NotContains(t, string(out.Stdout), "root-only-key", "a 0600 file in a 0700 root directory was read")
	assert.Contains(t, string(out.Stdout), "world-readable", "the run reads what any user may read")
	b, err := os.ReadFile(filepath.Join(ws, "made.txt"))
	require.NoError(t, err, "the command writes in its workspace")
	assert.Equal(t, "made\n", string(b))
}

// As root, the gVisor command runs as 65534 and still writes in a workspace
// owned by someone else (root, 0700, or another user): the workspace is
// handed to runsc through an idmapped mount, and what the command creates
// belongs on the host to the workspace's owner. Files of a third user stay
// read-only for it.
func TestGVisorWorkspaceWritableAsNobody(t *testing.T) {
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
			other := filepath.Join(dir, "other.txt")
			require.NoError(t, os.WriteFile(other, []byte("other\n"), 0o644))
			require.NoError(t, os.Chown(other, 4242, 4242))
			// And one only that user may read. The mount shows a third
			// user's ids as the overflow id, 65534, so gVisor's kernel
			// takes both for the command's; the host's kernel, which sees
			// them unmapped on the mount, is what keeps them.
			private := filepath.Join(dir, "private.txt")
			require.NoError(t, os.WriteFile(private, []byte("private-of-4242\n"), 0o600))
			require.NoError(t, os.Chown(private, 4242, 4242))

			// The owner's own file, which the command may change and remove.
			mine := filepath.Join(dir, "mine.txt")
			require.NoError(t, os.WriteFile(mine, []byte("mine\n"), 0o644))
			require.NoError(t, os.Chown(mine, int(tc.owner), int(tc.owner)))

			sb := engine(t, EngineGVisor, append(tc.opts, WithWorkspace(dir))...)
			out := mustRun(t, sb, Spec{Argv: []string{"sh", "-c", `id -u; echo hi > new.txt; mkdir sub; echo x > sub/f
cat other.txt; if echo y >> other.txt; then echo WROTE-OTHER; fi; chmod 666 other.txt; cat private.txt
cat ../beside.txt 2>/dev/null
echo more >> mine.txt && chmod 600 mine.txt && mv mine.txt moved.txt && ln -s moved.txt link && rm new.txt && echo hi > new.txt && echo OWN-OK
echo t > /tmp/t && echo s > /dev/shm/s && echo n > /dev/null && echo TMP-OK
true`}})
			t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
			lines := strings.Fields(string(out.Stdout))
			require.NotEmpty(t, lines)
			assert.Equal(t, tc.commandUID, lines[0])
			assert.Contains(t, lines, "other", "a third user's file is readable")
			assert.NotContains(t, lines, "WROTE-OTHER", "a third user's file is not writable")
			assert.NotContains(t, lines, "private-of-4242", "a third user's 0600 file is not readable")
			assert.NotContains(t, lines, "beside", "what the unsearchable parent holds stays out of reach")
			assert.Contains(t, lines, "OWN-OK", "the owner's files are the command's")
			assert.Contains(t, lines, "TMP-OK", "/tmp and /dev/shm are writable")
			b, err := os.ReadFile(filepath.Join(dir, "moved.txt"))
			require.NoError(t, err)
			assert.Equal(t, "mine\nmore\n", string(b))
			for _, p := range []string{"new.txt", "sub", "sub/f", "moved.txt", "link"} {
				var st syscall.Stat_t
				require.NoError(t, syscall.Lstat(filepath.Join(dir, p), &st), p)
				assert.Equal(t, tc.owner, st.Uid, "%s belongs to the workspace's owner on the host", p)
				assert.Equal(t, tc.owner, st.Gid, p)
			}
			b, err = os.ReadFile(other)
			require.NoError(t, err)
			assert.Equal(t, "other\n", string(b))
			fi, err := os.Stat(other)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "a third user's file keeps its mode on the host")
			mounts, err := os.ReadFile("/proc/self/mountinfo")
			require.NoError(t, err)
			assert.NotContains(t, string(mounts), "toolbelt-idmap-")
		})
	}
}

// WithUser(0, 0) asks for root's uid explicitly, as on bwrap: the command
// keeps uid 0 of gVisor's kernel (root's files are readable) but no
// capability, and the host's root stays read-only, so the mount and /proc
// attacks still fail. Landlock refuses uid 0 because there it could chmod
// root's host files; here the root is a read-only mount.
func TestGVisorExplicitRootStillConfined(t *testing.T) {
	requireRoot(t)
	want := map[string]bool{
		"no capabilities (CapEff, CapPrm, CapBnd are 0)":          true,
		"runs as a uid other than 0, by default":                  false,
		"a root-only host file (0600 root) cannot be read":        false,
		"remounting / read-write does not make the host writable": true,
		"/proc/sys cannot be written":                             true,
		"its own /proc, also after umount -l /proc":               true,
	}
	seen := 0
	for _, row := range confineRows() {
		w, ok := want[row.name]
		if !ok {
			continue
		}
		seen++
		t.Run(row.name, func(t *testing.T) {
			sb := engine(t, EngineGVisor, WithUser(0, 0))
			assert.Equal(t, w, row.held(t, EngineGVisor, sb))
		})
	}
	assert.Equal(t, len(want), seen, "every row named here is in the engine table")
}
