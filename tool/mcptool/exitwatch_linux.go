package mcptool

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// watchExit ends a stdio server's process group once the server has
// exited. A process the server started may hold its stdout open after
// it died; the client then never reads an end of file, so the session,
// the call in flight and Close would wait for ever, the dead server
// unreaped. Killing the group closes the pipe under the session.
//
// It waits without reaping (WNOWAIT): the transport's Wait still reaps
// the server. It waits through its own copy of pidfd, the server's
// pidfd, so that it never waits for another child given the same id
// once the server is reaped, and killGroup checks that the id is still
// the server's. It returns when the server exits or has been reaped.
func watchExit(cmd *exec.Cmd, pidfd int) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	fd := -1
	if pidfd >= 0 {
		if d, err := unix.FcntlInt(uintptr(pidfd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
			fd = d
		}
	}
	go func() {
		defer closePidfd(fd)
		var info unix.Siginfo
		for {
			var err error
			if fd >= 0 {
				err = unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOWAIT, nil)
			} else {
				err = unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil {
				killGroup(cmd, fd)
			}
			return
		}
	}()
}

// pidfdFor has cmd's start store a pidfd of its process in the int it
// returns (-1 until then, or where the kernel has none).
func pidfdFor(cmd *exec.Cmd) *int {
	fd := -1
	// A copy: the Command function may give its commands one
	// SysProcAttr, and another dial's start must not take this pidfd.
	var attr syscall.SysProcAttr
	if cmd.SysProcAttr != nil {
		attr = *cmd.SysProcAttr
	}
	attr.PidFD = &fd
	cmd.SysProcAttr = &attr
	return &fd
}

// closePidfd closes a pidfd from pidfdFor, if there is one.
func closePidfd(fd int) {
	if fd >= 0 {
		_ = unix.Close(fd)
	}
}

// idTaken reports whether pid, the id of pidfd's process, is another
// process's now: that process has been reaped and a live process has the
// id. Without a pidfd it cannot tell, and reports false.
func idTaken(pid, pidfd int) bool {
	if pidfd < 0 {
		return false
	}
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if !errors.Is(err, unix.ECHILD) {
		return false // not reaped: the id is still its own
	}
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}
