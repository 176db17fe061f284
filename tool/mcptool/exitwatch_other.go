//go:build !linux

package mcptool

import "os/exec"

// watchExit does nothing here: a stdio server's death is seen when its
// stdout ends (see the Linux version).
func watchExit(*exec.Cmd) {}
