//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// fileStat stats the entry name of the directory open as fd (flags:
// AT_SYMLINK_NOFOLLOW, or 0 to follow a link) and returns, for a regular
// file, its identity, its number of hard links and its birth time (0 where
// the file system keeps none); ok is false for anything else. The birth
// time tells a remembered file from a new one that took its inode: ext4
// gives a deleted file's inode to the next file made, and that innocent
// file was masked, and remembered, in place of notes.txt
// (TestAttackS33ReviewReusedInodeMasksAnInnocentFile).
func fileStat(fd int, name string, flags int) (id dirID, nlink uint64, born int64, ok bool) {
	var st unix.Statx_t
	err := unix.Statx(fd, name, flags, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_NLINK|unix.STATX_BTIME, &st)
	if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return id, 0, 0, false
	}
	if st.Mask&unix.STATX_BTIME != 0 {
		born = st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
	}
	return dirID{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino}, uint64(st.Nlink), born, true
}
