//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking flock on f, held until f is
// closed. flock locks belong to the open file, so a second Open in the same
// process is refused as well as one in another process.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
