package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMountTableAndOtherPaths(t *testing.T) {
	info := filepath.Join(t.TempDir(), "mountinfo")
	require.NoError(t, os.WriteFile(info, []byte(`26 1 254:0 / / rw,relatime - ext4 /dev/vda rw
23 26 0:6 / /dev rw - devtmpfs devtmpfs rw
25 23 0:23 / /dev/pts rw - devpts devpts rw
40 26 0:50 /@home /home rw - btrfs /dev/sdb rw
41 26 0:50 /@home/dev /srv/dev\040home rw - btrfs /dev/sdb rw
42 26 0:50 / /mnt/pool rw - btrfs /dev/sdb rw
43 26 0:50 /@home/dev/.ssh /srv/ssh rw - btrfs /dev/sdb rw
44 26 0:23 / /chroot/dev/pts rw - devpts devpts rw
45 26 254:0 /root /mnt/h rw - ext4 /dev/vda rw
46 45 0:60 / /mnt/h rw - tmpfs tmpfs rw
`), 0o644))
	mountInfo = info
	t.Cleanup(func() { mountInfo = "/proc/self/mountinfo" })
	table := mountTable()
	require.Len(t, table, 10)
	assert.Equal(t, mountEntry{dev: "0:50", root: "/@home/dev", point: "/srv/dev home"}, table[4], "an escaped space")

	for _, tc := range []struct {
		name  string
		paths []string
		want  []string
	}{
		{"a store in a subvolume mounted three more times", []string{"/home/dev/.ssh"},
			[]string{"/srv/dev home/.ssh", "/mnt/pool/@home/dev/.ssh", "/srv/ssh"}},
		{"a store not made yet", []string{"/home/dev/.aws"}, []string{"/srv/dev home/.aws", "/mnt/pool/@home/dev/.aws"}},
		{"a mount below a path", []string{"/dev"}, []string{"/chroot/dev/pts"}},
		// /mnt/h shows the tmpfs mounted over the bind, not /root: hiding it
		// costs nothing that was readable through it before the tmpfs.
		{"on the root filesystem", []string{"/root/.ssh"}, []string{"/mnt/h/.ssh"}},
		{"a path with no other mount", []string{"/etc/shadow"}, nil},
		// Nothing at or below a path given; below another path returned,
		// a path is returned too (hiding it again costs nothing).
		{"paths that hold one another", []string{"/home/dev", "/srv/dev home/.ssh"},
			[]string{"/srv/dev home", "/mnt/pool/@home/dev", "/srv/ssh", "/mnt/pool/@home/dev/.ssh"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, otherPaths(table, tc.paths))
		})
	}
}
