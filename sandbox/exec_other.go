//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}

func waitExited(int) error { return errPlatform }

var errPlatform = errors.New("the sandbox engines need Linux (process groups, waitid, prlimit), not " + runtime.GOOS)

func platformSupported() error { return errPlatform }

type streams struct{ w [2]*os.File }

func openStreams() (*streams, error) { return nil, errPlatform }
func (s *streams) closeWrite()       {}
func (s *streams) closeRead()        {}
func (s *streams) pump(int, *group, [2]*capture, func(string, []byte)) (error, bool, error) {
	return errPlatform, false, errPlatform
}
