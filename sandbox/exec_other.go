//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
	"syscall"
)

func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}

func waitExited(int) error { return errPlatform }

var errPlatform = errors.New("the sandbox engines need Linux (process groups, waitid, prlimit), not " + runtime.GOOS)

func platformSupported() error { return errPlatform }
