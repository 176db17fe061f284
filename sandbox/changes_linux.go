//go:build linux

package sandbox

import (
	"io/fs"
	"syscall"
)

// statIDs returns the inode number and change time of fi.
func statIDs(fi fs.FileInfo) (uint64, int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ino, st.Ctim.Nano()
}

// walkOpenFlag is the flag the walk opens directories with: what is no
// longer a directory when it is opened (a FIFO swapped in, whose opening
// would wait for a writer for ever) is refused at once.
const walkOpenFlag = syscall.O_DIRECTORY
