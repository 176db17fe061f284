package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Walk walks the tree under name in lexical order, calling fn with
// canonical workspace-relative slash paths, like [fs.WalkDir]: it does not
// follow symlinks below name, skips what the rules refuse, and honours
// [fs.SkipDir] and [fs.SkipAll]. name itself is resolved ([Workspace.Resolve]).
// A directory it cannot read is passed to fn with the error, as by
// fs.WalkDir: one of more than 65,536 entries, one whose entries would
// make the walk hold more than 131,072 entries of the directories it is
// inside of at once, or one more than 256 directories below name, with
// [ErrTooLarge]; one swapped for a symlink or a file after its parent was
// listed (the link is not followed).
//
// Each directory below name is opened from its parent's descriptor, never
// following a symlink, so a symlink swapped in during the walk cannot lead
// it elsewhere, and a directory costs one lookup however deep it lies.
func (w *Workspace) Walk(name string, fn fs.WalkDirFunc) error {
	_, err := w.WalkHidden(name, fn)
	return err
}

// WalkHidden is Walk that also returns how many entries of the directories
// it listed the rules left out (see [Workspace.ReadDirHidden]).
func (w *Workspace) WalkHidden(name string, fn fs.WalkDirFunc) (hidden int, err error) {
	rel, err := w.check("list", name, false)
	if err != nil {
		return 0, err
	}
	w.lookedUp(rel)
	fi, err := w.root.Lstat(filepath.FromSlash(rel))
	c := &walkCount{}
	if err != nil {
		err = fn(rel, nil, w.rootErr("list", name, err))
	} else {
		err = w.walkStart(rel, fs.FileInfoToDirEntry(fi), fn, c)
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return c.hidden, nil
	}
	return c.hidden, err
}

// maxWalkHeld bounds the entries a walk holds at once: those of every
// directory it is inside of, each read whole before the walk goes down
// into it. Each may hold maxDirEntries, and a command can nest such
// directories as deep as it likes: seven held 133 MB at once
// (TestAttackS14NestedFullDirectoriesHeldByOneWalk).
const maxWalkHeld = 2 * maxDirEntries

// maxWalkDepth bounds how many directories below its start a walk goes
// down (and how many a directory Rename moves may nest): each holds a
// descriptor for every directory it is inside of, and a command can nest
// directories as deep as it likes. Change tracking stops at the same
// depth (MaxTrackedDepth).
const maxWalkDepth = 256

// walkCount is what a walk counts: the entries the rules left out, and
// those it holds.
type walkCount struct{ hidden, held int }

// walkStart walks the directory the walk starts at, rel, whose entry is d.
// It is opened by its path (resolved and judged again on what was really
// opened, as by ReadDirHidden); everything below it from its parent's
// descriptor.
func (w *Workspace) walkStart(rel string, d fs.DirEntry, fn fs.WalkDirFunc, c *walkCount) error {
	if err := fn(rel, d, nil); err != nil || !d.IsDir() {
		if err == fs.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	f, real, err := w.openChecked("list", rel, true)
	if err != nil {
		return skippedDir(fn(rel, d, err))
	}
	return w.walkDir(f, rel, real, d, 0, fn, c)
}

// walkDir walks the entries of the directory open as f, rel (as fn is
// told it; real, its real path, the rules judge its entries on: the two
// differ only when a symlink was swapped in for the start of the walk),
// depth directories below the start, and closes f.
func (w *Workspace) walkDir(f *os.File, rel, real string, d fs.DirEntry, depth int, fn fs.WalkDirFunc, c *walkCount) error {
	defer f.Close()
	entries, n, err := w.readDirAt(f, rel, real)
	c.hidden += n
	if err == nil && c.held+len(entries) > maxWalkHeld {
		entries, err = nil, &PathError{Op: "list", Path: rel, Rule: fmt.Sprintf("a walk holds at most %d entries of the directories it is inside of at once; walk a subdirectory, or list it with a command", maxWalkHeld), Err: ErrTooLarge}
	}
	held := len(entries)
	c.held += held
	defer func() { c.held -= held }()
	if err != nil {
		return skippedDir(fn(rel, d, err))
	}
	fd := int(f.Fd())
	for _, e := range entries {
		if err := w.walkEntry(fd, joinRel(rel, e.Name()), joinRel(real, e.Name()), e, depth+1, fn, c); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// walkEntry walks the entry e of the directory open as dirfd: rel and
// real are its paths (see walkDir), depth how far below the start it is.
func (w *Workspace) walkEntry(dirfd int, rel, real string, e fs.DirEntry, depth int, fn fs.WalkDirFunc, c *walkCount) error {
	if err := fn(rel, e, nil); err != nil || !e.IsDir() {
		if err == fs.SkipDir && e.IsDir() {
			err = nil
		}
		return err
	}
	if depth > maxWalkDepth {
		return skippedDir(fn(rel, e, &PathError{Op: "list", Path: rel, Rule: fmt.Sprintf("a walk goes at most %d directories down from where it starts; walk a subdirectory, or list it with a command", maxWalkDepth), Err: ErrTooLarge}))
	}
	f, err := w.openDirAt(dirfd, e.Name(), rel)
	if err != nil {
		return skippedDir(fn(rel, e, err))
	}
	return w.walkDir(f, rel, real, e, depth, fn, c)
}

// skippedDir is what fn's answer to a directory's error means for the
// walk: fs.SkipDir goes on beside it.
func skippedDir(err error) error {
	if err == fs.SkipDir {
		return nil
	}
	return err
}

// joinRel is dir/name for a workspace-relative dir ("." for the
// workspace) and a name read from it (see joinName).
func joinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// openDirAt opens the directory name, rel in the workspace, from the
// directory open as dirfd, never following a symlink: one swapped in since
// the listing is refused.
func (w *Workspace) openDirAt(dirfd int, name, rel string) (*os.File, error) {
	w.lookedUp(name)
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
		return nil, &PathError{Op: "list", Path: rel, Rule: "a symlink or a file appeared at " + strconv.Quote(rel) + " while the walk was listing it; it is not followed", Err: ErrDeniedByRule}
	case err != nil:
		return nil, &os.PathError{Op: "openat", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// readDirAt is ReadDirHidden of the directory open as f, rel in the
// workspace, whose entries are judged under real: its entries, sorted by
// name, with what the rules refuse left out and counted. Each entry is
// stat'ed from f's descriptor (not following a symlink), so its Info is
// what was there when it was listed.
func (w *Workspace) readDirAt(f *os.File, rel, real string) ([]fs.DirEntry, int, error) {
	names, err := f.Readdirnames(maxDirEntries + 1)
	switch {
	case err == io.EOF:
		return nil, 0, nil
	case err != nil:
		return nil, 0, err
	case len(names) > maxDirEntries:
		return nil, 0, &PathError{Op: "list", Path: rel, Rule: fmt.Sprintf("a directory of more than %d entries is not read; give a smaller directory, or list it with a command", maxDirEntries), Err: ErrTooLarge}
	}
	slices.Sort(names)
	fd := int(f.Fd())
	out := make([]fs.DirEntry, 0, len(names))
	hidden := 0
	for _, name := range names {
		fi := &statInfo{name: name}
		if err := unix.Fstatat(fd, name, &fi.st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
			continue // gone since it was listed
		} else if err != nil {
			return nil, 0, &os.PathError{Op: "fstatat", Path: joinRel(rel, name), Err: err}
		}
		if w.rules("list", rel, joinRel(real, name), false, fi.IsDir()) == nil {
			out = append(out, fs.FileInfoToDirEntry(fi))
		} else {
			hidden++
		}
	}
	return out, hidden, nil
}

// statInfo is the fs.FileInfo of an fstatat.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (fi *statInfo) Name() string       { return fi.name }
func (fi *statInfo) Size() int64        { return fi.st.Size }
func (fi *statInfo) Mode() fs.FileMode  { return fileMode(uint32(fi.st.Mode)) }
func (fi *statInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *statInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *statInfo) Sys() any           { return &fi.st }
