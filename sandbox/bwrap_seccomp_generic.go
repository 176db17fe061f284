//go:build linux && !amd64

package sandbox

import "golang.org/x/sys/unix"

// modeCalls are the system calls that set a file's mode, with the argument
// that holds it (and the flags argument that says whether it is used).
// Architectures other than amd64 have only the *at calls.
func modeCalls() []modeArg {
	return []modeArg{
		{unix.SYS_FCHMOD, 1, -1}, {unix.SYS_FCHMODAT, 2, -1}, {unix.SYS_FCHMODAT2, 2, -1},
		{unix.SYS_MKNODAT, 2, -1}, {unix.SYS_OPENAT, 3, 2},
	}
}
