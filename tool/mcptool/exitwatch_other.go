//go:build !linux

package mcptool

import "os/exec"

// watchExit does nothing here: a stdio server's death is seen when its
// stdout ends (see the Linux version).
func watchExit(*exec.Cmd, int) {}

// pidfdFor returns -1: there are no pidfds here, and killGroup signals
// the group by its id as it always did.
func pidfdFor(*exec.Cmd) *int {
	fd := -1
	return &fd
}

// closePidfd does nothing here.
func closePidfd(int) {}

// idTaken reports false here: without a pidfd it cannot tell.
func idTaken(int, int) bool { return false }
