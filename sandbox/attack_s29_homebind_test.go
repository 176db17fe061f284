package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The home's credential stores were out of reach only by the home's own
// path. A host that also mounts the home, or a directory above it,
// elsewhere (a bind mount in fstab, /home's partition mounted at /srv/data
// too, a chroot's or container's bind of /home) showed them there: the
// engines masked, and landlock left out of its rules, only
// $HOME/.ssh and the like. Landlock judges a file by the directories above
// it on the path it is reached by, and granted read beneath the mount's
// directory; a bind mount that was itself an entry of / got a rule on the
// home's own directory, which granted the stores by either path. bwrap and
// gvisor bind the host's mounts with the root and masked none of them
// there. Seen succeeding first on all three. The engines now look up, in
// /proc/self/mountinfo, every other place a hidden path's filesystem shows
// it, and hide it there too.
//
// Paths through /proc (/proc/self/root$HOME, /proc/PID/cwd of a process in
// the home) lead to the same mount and directories, which Landlock judges
// alike: they are checked here too, as a hard link to a store the command
// would make in the workspace (Landlock refuses it, EXDEV: the link would
// gain rights the store's directory does not have).
func TestAttackS29CommandReadsTheHomeThroughAnotherMount(t *testing.T) {
	requireRoot(t)     // it mounts on the host; hostDir is readable by 65534 only for root
	home := hostDir(t) // 0755, files 0644: only the engine stands in the way
	stores := []string{".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml"}
	for _, p := range stores {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte("HOMESECRET "+p+"\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("ORDINARY\n"), 0o644))
	// The home bound at a path below another directory, and at an entry of
	// / (whose rule, before, landed on the home's own directory).
	nested := filepath.Join(hostDir(t), "srv", "h")
	require.NoError(t, os.MkdirAll(nested, 0o755))
	top := hostDir(t)
	for _, m := range []string{nested, top} {
		require.NoError(t, unix.Mount(home, m, "", unix.MS_BIND, ""))
		t.Cleanup(func() { unix.Unmount(m, unix.MNT_DETACH) })
	}
	t.Setenv("HOME", home)

	var paths []string
	for _, p := range stores {
		paths = append(paths, filepath.Join(nested, p), filepath.Join(top, p), filepath.Join(home, p),
			"/proc/self/root"+filepath.Join(home, p))
	}
	script := `ws=$PWD; for p in "$@"; do cat "$p"; done
(cd "$HOME/.config" && cat /proc/self/cwd/gh/hosts.yml /proc/$$/cwd/gh/hosts.yml)
ln "$HOME/.ssh/id_ed25519" "$ws/key" 2>/dev/null && cat "$ws/key"
cat "$HOME/.gitconfig" "` + top + `/.gitconfig"; echo end`
	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithWorkspace(workspaceDir(t))), script, paths...)
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the attack did not run")
			assert.NotContains(t, out, "HOMESECRET", "a command read a credential store of the home through another path")
			assert.Equal(t, 2, strings.Count(out, "ORDINARY"), "a command could not read an ordinary file of the home by both paths")
		})
	}
}
