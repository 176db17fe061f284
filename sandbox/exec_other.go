//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

func sysProcAttr(p *plan) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: p.cred}
}

func idmapDir(string, idMap, func() error) (string, func(*exec.Cmd) error, func(), func(string) (*os.File, error), error) {
	return "", nil, nil, nil, errPlatform
}

func openBeneathDir(string, string) (*os.File, error) { return nil, errPlatform }

func privateMountNS() error { return errPlatform }

func attachPinned(func(string) (*os.File, error), []pinnedMount) error { return errPlatform }

func threadStart(func() error) (func(*exec.Cmd) error, func()) {
	return func(*exec.Cmd) error { return errPlatform }, func() {}
}

func scopeAbstractUnix() error { return errPlatform }

func ownerOf(string) (uint32, uint32, error) { return 0, 0, errPlatform }

func waitExited(int) error { return errPlatform }

func killSession(int) {}

var errPlatform = errors.New("the sandbox engines need Linux (process groups, waitid, prlimit), not " + runtime.GOOS)

func platformSupported() error { return errPlatform }
func closeOnExecAll() error    { return errPlatform }

type streams struct{ w [2]*os.File }

func openStreams() (*streams, error) { return nil, errPlatform }
func (s *streams) closeWrite()       {}
func (s *streams) closeRead()        {}
func (s *streams) pump(int, *group, [2]*capture, func(string, []byte)) (error, bool, error) {
	return errPlatform, false, errPlatform
}

func reapLeftovers(string, time.Duration) {}

func bwrapFilterFile(bool) (*os.File, error) { return nil, errPlatform }
