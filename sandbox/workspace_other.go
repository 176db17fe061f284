//go:build !linux

package sandbox

import "golang.org/x/sys/unix"

// oPath is O_PATH where there is one; elsewhere a read-only open that does
// not wait for a FIFO's writer.
const oPath = unix.O_RDONLY | unix.O_NONBLOCK

// noLinksOnTheWay needs Linux's openat2: elsewhere every path is settled by
// the component walk.
func noLinksOnTheWay(int, string, bool) bool { return false }
