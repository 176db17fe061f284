//go:build linux

package hostpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestAttackS17LinkBelowARealPathLongerThanPathMax: two short symlinks
// lead into a directory whose real path is longer than PATH_MAX (each
// link's target is shorter, so the kernel follows both), and a link there
// leads to the secret. The kernel opens the short path; a resolver that
// builds the real path and lstat's it gets ENAMETOOLONG there and must not
// take the rest "as written": the link to the secret would go unseen, and
// a rule on the secret's directory with it.
func TestAttackS17LinkBelowARealPathLongerThanPathMax(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	secret := filepath.Join(root, "home", ".ssh")
	require.NoError(t, os.MkdirAll(secret, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(secret, "id_rsa"), []byte("KEY"), 0o600))

	// root/d/<name>x20, made from descriptors: its path is over PATH_MAX.
	name := strings.Repeat("x", 250)
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	open := func(dirfd int, n string) int {
		require.NoError(t, unix.Mkdirat(dirfd, n, 0o755))
		fd, err := unix.Openat(dirfd, n, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		require.NoError(t, err)
		fds = append(fds, fd)
		return fd
	}
	rootFD, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	fds = append(fds, rootFD)
	fd := open(rootFD, "d")
	var mid int
	for i := range 20 {
		fd = open(fd, name)
		if i == 9 {
			mid = fd
		}
	}
	ten := strings.TrimSuffix(strings.Repeat(name+"/", 10), "/")
	require.NoError(t, unix.Symlinkat("d/"+ten, rootFD, "s1"))
	require.NoError(t, unix.Symlinkat(ten, mid, "s2"))
	require.NoError(t, unix.Symlinkat(secret, fd, "link"))

	short := root + "/s1/s2/link/id_rsa"
	data, err := os.ReadFile(short)
	require.NoError(t, err, "the kernel follows the links")
	require.Equal(t, "KEY", string(data))

	got, ok := Resolve(short)
	if ok {
		assert.Equal(t, filepath.ToSlash(filepath.Join(secret, "id_rsa")), got,
			"Resolve must name the file the kernel opens, or say it cannot (ok false)")
	}
}
