package mcptool

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// watchExit ends a stdio server's process group once the server has
// exited. A process the server started may hold its stdout open after
// it died; the client then never reads an end of file, so the session,
// the call in flight and Close would wait for ever, the dead server
// unreaped. Killing the group closes the pipe under the session.
//
// It waits without reaping (WNOWAIT): the transport's Wait still reaps
// the server, and until then its id cannot be reused, so the kill
// reaches only its group. It returns when the server exits or has been
// reaped.
func watchExit(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil {
				killGroup(cmd)
			}
			return
		}
	}()
}
