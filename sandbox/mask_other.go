//go:build !linux

package sandbox

import "golang.org/x/sys/unix"

// fileStat is Linux's (mask_linux.go) through fstatat, which gives no
// birth time here: born is 0, which Masked reads as unknown.
func fileStat(fd int, name string, flags int) (id dirID, nlink uint64, born int64, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, flags); err != nil || uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return id, 0, 0, false
	}
	return dirID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, uint64(st.Nlink), 0, true
}
