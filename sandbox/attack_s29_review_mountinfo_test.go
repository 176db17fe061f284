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

// Attack: /proc/self/mountinfo escapes only a space, a tab, a newline and
// a backslash in a path (\040, \011, \012, \134) and separates its fields
// with single spaces; every other byte of a mount point is written as it
// is. mountTable split each line with strings.Fields, which also splits
// at a carriage return, a vertical tab, a form feed and, in UTF-8, at
// U+0085 and U+00A0 (a no-break space, typed by a Mac keyboard's
// Option-Space). A bind mount of the home at such a path was read as a
// mount at the path's first part, so the engines hid the stores at a
// place that does not exist and left them readable where the home is.
func TestAttackS29ReviewMountPointWithUnescapedSpaceShowsTheHome(t *testing.T) {
	requireRoot(t) // it mounts on the host
	home := hostDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".aws"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("HOMESECRET\n"), 0o644))
	var binds []string
	for _, name := range []string{"backup\u00a0disk", "h\rx", "h\vx"} {
		m := filepath.Join(hostDir(t), name)
		require.NoError(t, os.Mkdir(m, 0o755))
		require.NoError(t, unix.Mount(home, m, "", unix.MS_BIND, ""))
		t.Cleanup(func() { unix.Unmount(m, unix.MNT_DETACH) })
		binds = append(binds, filepath.Join(m, ".aws", "credentials"))
	}
	t.Setenv("HOME", home)

	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithWorkspace(workspaceDir(t))), `for p in "$@"; do cat "$p"; done; echo end`, binds...)
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the attack did not run")
			assert.Zero(t, strings.Count(out, "HOMESECRET"), "a store of the home was read through a bind mount whose path mountinfo does not escape")
		})
	}
}

// mountTable reads fields as the kernel writes them: split at single
// spaces, nothing else.
func TestAttackS29ReviewMountTableKeepsUnescapedWhitespace(t *testing.T) {
	info := filepath.Join(t.TempDir(), "mountinfo")
	require.NoError(t, os.WriteFile(info, []byte("26 1 254:0 / / rw - ext4 /dev/vda rw\n"+
		"41 26 254:0 /home/u /srv/a\u00a0b rw - ext4 /dev/vda rw\n"+
		"42 26 254:0 /home/u /srv/c\rd\ve\ff\u0085g rw shared:1 - ext4 /dev/vda rw\n"), 0o644))
	mountInfo = info
	t.Cleanup(func() { mountInfo = "/proc/self/mountinfo" })
	table := mountTable()
	require.Len(t, table, 3)
	assert.Equal(t, "/srv/a\u00a0b", table[1].point)
	assert.Equal(t, "/srv/c\rd\ve\ff\u0085g", table[2].point)
	assert.Equal(t, []string{"/srv/a\u00a0b/.aws", "/srv/c\rd\ve\ff\u0085g/.aws"}, otherPaths(table, []string{"/home/u/.aws"}))
}
