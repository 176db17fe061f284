//go:build linux

package sandbox

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the command in its own process group, kills it if this
// process dies, and sets its user when one is configured.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred, Pdeathsig: syscall.SIGKILL}
}

// waitExited blocks until pid has exited, leaving it unreaped, so its pid
// (the group id) cannot be recycled while the rest of the group is killed.
func waitExited(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}

func platformSupported() error { return nil }
