//go:build !linux

package pgtest

import "syscall"

// serverAttr starts postgres as cred in a group of its own. Without Linux's
// Pdeathsig, a test binary that dies leaves it to Close or to a person.
func serverAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
