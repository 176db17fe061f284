//go:build darwin || freebsd

package approval

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// discardTypeAhead drops what was typed on the terminal in and not read
// yet (TIOCFLUSH of FREAD, which tcflush with TCIFLUSH is), so that a
// line typed before a prompt does not answer it. Input that is no
// terminal (a pipe, a file, a reader of scripted answers) is left alone.
func discardTypeAhead(in io.Reader) {
	if sc, ok := in.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) {
				_ = unix.IoctlSetPointerInt(int(fd), unix.TIOCFLUSH, 1) // FREAD; ENOTTY: no terminal
			})
		}
	}
}
