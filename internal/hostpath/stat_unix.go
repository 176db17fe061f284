//go:build unix

package hostpath

import "syscall"

// isLink reports whether name is a symbolic link (lstat), or the error
// that says why it cannot be looked at: os.Lstat's answer without the
// FileInfo and *PathError it allocates (256 of its 304 bytes), since
// resolveIn asks it of every component of every path a rule judges. The
// error is the bare errno, which errors.Is reads as it reads os.Lstat's.
func isLink(name string) (bool, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(name, &st)
		if err == syscall.EINTR {
			continue // as os.Lstat retries it
		}
		if err != nil {
			return false, err
		}
		return st.Mode&syscall.S_IFMT == syscall.S_IFLNK, nil
	}
}

// IsDir reports whether name is a directory, following symbolic links
// (stat), as os.Stat(name) and FileInfo.IsDir tell, without allocating a
// FileInfo.
func IsDir(name string) bool {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(name, &st)
		if err == syscall.EINTR {
			continue // as os.Stat retries it
		}
		return err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	}
}
