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
	"sync"
	"syscall"
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
// listed, or moved (or one it is inside of) while the walk held it, with
// [ErrDeniedByRule] (the link is not followed, the moved directory not
// read under its old name).
//
// Each directory below name is opened from its parent's descriptor, never
// following a symlink, so a symlink swapped in during the walk cannot lead
// it elsewhere, and a directory costs one lookup however deep it lies.
// Its real path (/proc/self/fd) is checked once it is listed, so one moved
// meanwhile under a hidden directory or out of the workspace, whose
// descriptor follows it there, is not read as if it were still where it
// was listed; as by Open, a path /proc cannot name (longer than PATH_MAX)
// is refused. A
// caller that opens the files fn is given does so with
// [Workspace.OpenEntry], which opens them the same way.
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
	if err == nil {
		if err = w.movedAway("list", rel, real, f); err != nil {
			entries, n = nil, 0 // not even how many it hides
		}
	}
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
		if err := w.walkChild(fd, joinRel(rel, e.Name()), joinRel(real, e.Name()), e, depth+1, fn, c); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// walkChild walks the entry e of the directory open as dirfd: rel and
// real are its paths (see walkDir), depth how far below the start it is.
func (w *Workspace) walkChild(dirfd int, rel, real string, e fs.DirEntry, depth int, fn fs.WalkDirFunc, c *walkCount) error {
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

// movedAway refuses f, rel to the walk's function, when it is no longer
// at real, the path the walk judges it and its entries under: a directory
// (or one it is inside of) moved while the walk holds it, under a hidden
// directory or out of the workspace, would have what is now there listed
// and opened under its old name. One readlink of /proc/self/fd, however
// deep f lies. Where it is now is not said (it may be a hidden or an
// outside path). Without /proc it is nil; a path /proc cannot name
// (longer than PATH_MAX) is refused, as by Open.
func (w *Workspace) movedAway(op, rel, real string, f *os.File) error {
	if w.isAt(f, real) {
		return nil
	}
	now, ok, err := w.realRel(op, rel, f)
	if errors.Is(err, ErrOutsideWorkspace) || err == nil && ok && now != real {
		return &PathError{Op: op, Path: rel, Rule: "it was moved or removed while the walk was inside it, and is not read under its old name; walk or open it again", Err: ErrDeniedByRule}
	}
	return err
}

// isAt reports whether /proc/self/fd names f as real in the workspace:
// the walk's question for every directory and file it opens, asked
// without the allocations of realRel, which answers the rest (false here:
// no /proc, a path too long for it, elsewhere).
func (w *Workspace) isAt(f *os.File, real string) bool {
	fds := procSelfFD()
	if fds < 0 {
		return false
	}
	var buf [unix.PathMax]byte
	n, err := unix.Readlinkat(fds, strconv.Itoa(int(f.Fd())), buf[:])
	if err != nil || n >= len(buf) {
		return false
	}
	t := buf[:n]
	if real == "." {
		return string(t) == w.dir
	}
	d := len(w.dir)
	return len(t) == d+1+len(real) && string(t[:d]) == w.dir && t[d] == '/' && string(t[d+1:]) == real
}

// procSelfFD is a descriptor of /proc/self/fd, opened once and kept for
// the life of the process (-1 without /proc): isAt reads a link there for
// every directory and file a walk opens, and looking up the whole path
// each time cost a flat walk of 2,250 directories 2-3 ms more (15 ms,
// against 13 this way and 10.5 with no check; BenchmarkWalkDeepTree).
var procSelfFD = sync.OnceValue(func() int {
	fd, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
})

// readDirAt is ReadDirHidden of the directory open as f, rel in the
// workspace, whose entries are judged under real: its entries, sorted by
// name, with what the rules refuse left out and counted. Each entry is
// stat'ed from f's descriptor (not following a symlink), so its Info is
// what was there when it was listed, and knows f, for OpenEntry.
func (w *Workspace) readDirAt(f *os.File, rel, real string) ([]fs.DirEntry, int, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, 0, err
	}
	dir := &walkDir{w: w, rel: rel, real: real, conn: conn}
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
		e := &walkEntry{name: name, dir: dir}
		if err := unix.Fstatat(fd, name, &e.st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
			continue // gone since it was listed
		} else if err != nil {
			// The directory, not the entry: the rules have not judged
			// its name yet (it may be hidden).
			return nil, 0, &os.PathError{Op: "fstatat (an entry of the directory)", Path: rel, Err: err}
		}
		if w.rules("list", rel, joinRel(real, name), false, e.IsDir()) == nil {
			out = append(out, e)
		} else {
			hidden++
		}
	}
	return out, hidden, nil
}

// walkDir is a directory a walk holds open: its entries' OpenEntry opens
// them from it while it is open.
type walkDir struct {
	w    *Workspace
	rel  string          // as the walk's fn is told it
	real string          // its real path, its entries were judged under
	conn syscall.RawConn // of the open directory; refused once it is closed
}

// walkEntry is an entry a walk lists: both its fs.DirEntry and its
// fs.FileInfo (an fstatat from its directory's descriptor).
type walkEntry struct {
	name string
	st   unix.Stat_t
	dir  *walkDir
}

func (e *walkEntry) Name() string               { return e.name }
func (e *walkEntry) Size() int64                { return e.st.Size }
func (e *walkEntry) Mode() fs.FileMode          { return fileMode(uint32(e.st.Mode)) }
func (e *walkEntry) ModTime() time.Time         { return time.Unix(e.st.Mtim.Unix()) }
func (e *walkEntry) IsDir() bool                { return e.Mode().IsDir() }
func (e *walkEntry) Sys() any                   { return &e.st }
func (e *walkEntry) Type() fs.FileMode          { return e.Mode().Type() }
func (e *walkEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e *walkEntry) String() string             { return fs.FormatDirEntry(e) }

// OpenEntry is [Workspace.Open] of rel, the regular file a walk
// ([Workspace.Walk]) passed to its function as d, that costs one lookup
// however deep rel lies: while the walk is in rel's directory (while its
// function runs for d), the file is opened from the directory's
// descriptor the walk holds, never following a symlink, and refused as
// Open refuses it (not a regular file, other hard links); the rules judged
// it when the walk listed it. Otherwise (d is not a regular file listed
// at rel by a walk of w, the walk has left its directory, a symlink was
// swapped in for the file, or the file opened is no longer at rel's real
// path, its directory or one above moved since the listing) it is
// Open(rel).
func (w *Workspace) OpenEntry(rel string, d fs.DirEntry) (*os.File, error) {
	e, ok := d.(*walkEntry)
	if !ok || e.dir.w != w || !e.Type().IsRegular() || joinRel(e.dir.rel, e.name) != rel {
		return w.Open(rel)
	}
	fd, err := -1, error(nil)
	cerr := e.dir.conn.Control(func(dirfd uintptr) {
		w.lookedUp(e.name)
		fd, err = unix.Openat(int(dirfd), e.name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if cerr != nil || errors.Is(err, unix.ELOOP) {
		// The walk has closed the directory; or a symlink was swapped in,
		// which Open judges where it leads.
		return w.Open(rel)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	if real := joinRel(e.dir.real, e.name); w.isAt(f, real) {
		// Still where it was listed.
	} else if now, ok, err := w.realRel("open", rel, f); err != nil || ok && now != real {
		// The directory (or one it is inside of) was moved since the
		// listing, perhaps under a hidden directory or out of the
		// workspace: what is at rel now is judged where it is.
		f.Close()
		return w.Open(rel)
	}
	fi, err := f.Stat()
	if err == nil {
		err = openable("open", rel, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
