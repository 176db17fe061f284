package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// runDirSuffix ends the name of every directory makeRunDir makes, so that
// sweepRunDirs only ever removes directories of code that locks them: a
// program of an older version, which does not, may share the temporary
// directory.
const runDirSuffix = "-locked"

// runDir is a temporary directory of one run (gVisor's bundle and state,
// landlock's TMPDIR, the mount point of bwrap's idmapped workspace), locked
// (flock) while the run uses it. The kernel drops the lock when this
// process dies, however it dies: a directory nobody holds the lock of was
// left by a program killed during a run, and sweepRunDirs removes it.
type runDir struct {
	path string
	fd   int // holds the lock
}

// makeRunDir makes a fresh directory under base, named prefix, a random
// number and runDirSuffix, and locks it.
func makeRunDir(base, prefix string) (*runDir, error) {
	// Each try loses only to a sweep that found the directory in the
	// moment between its making and its lock: ten in a row happened when
	// two sweeps ran in a loop beside four makers under the race detector.
	for range 100 {
		path, err := os.MkdirTemp(base, prefix+"*"+runDirSuffix)
		if err != nil {
			return nil, err
		}
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil && !errors.Is(err, unix.ENOENT) {
			_ = os.Remove(path)
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		if err == nil {
			// Locked, or on a filesystem without locks, where no sweep
			// can lock it for removal either.
			if lerr := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); lerr != unix.EWOULDBLOCK && sameDir(fd, path) {
				return &runDir{path: path, fd: fd}, nil
			}
			unix.Close(fd)
		}
		// Another program's sweep took it, unlocked a moment, for a
		// leftover, and removes it: make another.
	}
	return nil, errors.New("making a run directory under " + base + ": removed by other programs' sweeps 100 times in a row")
}

// unlock releases the lock, once the directory is gone.
func (d *runDir) unlock() {
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// sameDir reports whether path still names the directory open as fd.
func sameDir(fd int, path string) bool {
	var a, b unix.Stat_t
	return unix.Fstat(fd, &a) == nil && unix.Lstat(path, &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// sweepRunDirs removes, with remove, the directories under base that
// makeRunDir made with prefix and that no live run holds the lock of: those
// of programs killed during a run. The lock is held while remove runs, so
// that a program making a directory of the same name meanwhile makes
// another.
func sweepRunDirs(base, prefix string, remove func(d *runDir)) {
	f, err := os.Open(base)
	if err != nil {
		return
	}
	ents, _ := f.ReadDir(-1)
	f.Close()
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, runDirSuffix) {
			continue
		}
		path := filepath.Join(base, name)
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil && sameDir(fd, path) {
			remove(&runDir{path: path, fd: fd})
		}
		unix.Close(fd)
	}
}

// removeAll removes the directory and everything beneath it, also what the
// command made read-only: a program that is not root cannot remove the
// entries of a directory it may not write (Go's module cache makes its
// directories 0555, and GOMODCACHE=$TMPDIR/mod is how a landlock command
// gets a writable one), and os.RemoveAll does not change modes. Then, and
// only for a program that is not root (whose commands run as its own user,
// and may change these modes themselves), the directories are made
// writable through an os.Root opened on this very directory, so a symbolic
// link that a process still running puts in the tree never leads outside
// it; root removes anything without that.
func (d *runDir) removeAll() {
	if os.RemoveAll(d.path) == nil || os.Geteuid() == 0 {
		return
	}
	_ = unix.Fchmod(d.fd, 0o700)
	root, err := os.OpenRoot(d.path)
	if err != nil {
		return
	}
	defer root.Close()
	var want unix.Stat_t
	fi, err := root.Lstat(".")
	if err != nil || unix.Fstat(d.fd, &want) != nil {
		return
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Dev != want.Dev || st.Ino != want.Ino {
		return // not the run's directory any more
	}
	_ = fs.WalkDir(root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			_ = root.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(d.path)
}
