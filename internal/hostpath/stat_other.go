//go:build !unix

package hostpath

import (
	"io/fs"
	"os"
)

// isLink reports whether name is a symbolic link (os.Lstat), or the error
// that says why it cannot be looked at.
func isLink(name string) (bool, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return false, err
	}
	return fi.Mode()&fs.ModeSymlink != 0, nil
}

// IsDir reports whether name is a directory, following symbolic links
// (os.Stat).
func IsDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}
