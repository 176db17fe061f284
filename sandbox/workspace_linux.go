//go:build linux

package sandbox

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// oPath opens a file only to name it (no read, no side effect of opening
// a FIFO or a device): the resolver's directories, Stat's file.
const oPath = unix.O_PATH

// noOpenat2 is set when the kernel lacks openat2 (before Linux 5.6).
var noOpenat2 atomic.Bool

// noLinksOnTheWay reports, in one openat2 call, that no component of the
// clean relative path rel is a symlink (the last one not looked at when
// !followFinal), so rel is already canonical: the kernel refuses every link
// (RESOLVE_NO_SYMLINKS), and a component that does not exist ends the walk
// before any later one is looked at. Anything else — a link, an error, no
// openat2 — leaves the answer to the component walk.
func noLinksOnTheWay(rootFD int, rel string, followFinal bool) bool {
	if noOpenat2.Load() {
		return false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if !followFinal {
		how.Flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat2(rootFD, rel, &how)
	switch {
	case err == nil:
		unix.Close(fd)
		return true
	case errors.Is(err, unix.ENOSYS):
		noOpenat2.Store(true)
	}
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
}
