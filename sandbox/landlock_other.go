//go:build !linux

package sandbox

import "os/exec"

func landlockABI() (int, error) { return 0, errPlatform }

func socketFilterArch() uint32 { return 0 }

type llStarter struct{}

func (landlockPolicy) prepare() (*llStarter, error) { return nil, errPlatform }
func (*llStarter) start(*exec.Cmd) error            { return errPlatform }
func (*llStarter) release()                         {}

func writableBy(string, uint32, uint32) error { return errPlatform }

func tmpBase() string { return "" }
