package pgtest

import "syscall"

// serverAttr starts postgres as cred in a group of its own, and has the
// kernel stop it when the test binary dies.
func serverAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
