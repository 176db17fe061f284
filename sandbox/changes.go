package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Change is one entry of the workspace that a run created, modified or
// deleted (Spec.TrackChanges).
type Change struct {
	// Path is slash-separated and relative to the workspace: "." is the
	// workspace itself, whose mode (or, replaced, whose inode) changed.
	Path string `json:"path"`
	// Kind is ChangeCreated, ChangeModified or ChangeDeleted.
	Kind string `json:"kind"`
}

// String returns "kind path", the path as QuoteName shows it.
func (c Change) String() string { return c.Kind + " " + QuoteName(c.Path) }

// QuoteName returns a workspace path as text a model reads shows it:
// quoted (strconv.Quote) when it holds what could forge the text it is
// put in (a line of a listing, "[changed: created a, deleted b]"): a
// character that does not print (a newline), a bracket, a comma or a
// quote, or bytes that are not UTF-8. A command chooses the names of the
// files it leaves.
func QuoteName(name string) string {
	if utf8.ValidString(name) && !strings.ContainsFunc(name, func(r rune) bool {
		return !strconv.IsPrint(r) || strings.ContainsRune(`[],"`, r)
	}) {
		return name
	}
	return strconv.Quote(name)
}

// The kinds of a Change.
const (
	ChangeCreated  = "created"
	ChangeModified = "modified"
	ChangeDeleted  = "deleted"
)

// Bounds of change tracking: a workspace with more entries than
// MaxTrackedEntries, or nested more than MaxTrackedDepth directories deep,
// is not tracked (Outcome.ChangesUntracked says so), and an Outcome lists
// at most MaxChangesListed changes (Outcome.ChangesOmitted counts the
// rest).
const (
	MaxTrackedEntries = 100_000
	MaxChangesListed  = 1000
	MaxTrackedDepth   = 256
)

// entry is what a snapshot knows of one path: enough to tell it was
// replaced, rewritten or changed in mode, even by a command that set its
// modification time back (the change time cannot be set).
type entry struct {
	mode         fs.FileMode
	size         int64
	mtime, ctime int64
	ino          uint64
}

// maxTrackedPathBytes bounds the bytes of a snapshot's paths: deep paths
// of long names (up to 256 of 255 bytes each) would otherwise make
// MaxTrackedEntries of them take gigabytes.
const maxTrackedPathBytes = 32 << 20

// errTooMany, errTooLong and errTooDeep stop a snapshot of a workspace past
// MaxTrackedEntries, maxTrackedPathBytes or MaxTrackedDepth.
var (
	errTooMany = fmt.Errorf("the workspace has more than %d entries", MaxTrackedEntries)
	errTooLong = fmt.Errorf("the workspace's paths take more than %d MiB", maxTrackedPathBytes>>20)
	errTooDeep = fmt.Errorf("the workspace is nested more than %d directories deep", MaxTrackedDepth)
)

// snapshot records every entry under root, and root's own as ".",
// without following symbolic links. It opens each directory from its parent's
// descriptor (openat, O_NOFOLLOW, O_DIRECTORY), so that a directory
// swapped for a link while it runs (by a process writing there at the same
// time) cannot lead it out of root, a path past PATH_MAX can still be read,
// a FIFO is never opened, and a directory costs one open however deep it
// lies: opened by its path from root, one component at a time, 30,000
// directories 250 levels down took 12 s a snapshot
// (TestAttackS14DeepDirectoriesSlowEveryTrackedRun). A directory it cannot
// read makes it fail: what changed inside would be hidden.
func snapshot(root string) (map[string]entry, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	// The workspace's own entry too: on an idmapped workspace the command
	// is its owner, and "chmod 777 ." opened a root-owned 0700 one to
	// every local user, with no change listed
	// (TestAttackS14WorkspaceModeChangeIsTracked).
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: root, Err: err}
	}
	w := walker{snap: map[string]entry{".": entryOf(&st)}}
	return w.snap, w.walk(fd, "", 0)
}

// entryOf is what a snapshot keeps of a stat.
func entryOf(st *unix.Stat_t) entry {
	return entry{mode: fileMode(uint32(st.Mode)), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: uint64(st.Ino)}
}

// walker is one snapshot's walk.
type walker struct {
	snap  map[string]entry
	bytes int // of the paths in snap
}

// walk records the entries of the directory open as fd, dir
// (slash-separated, relative to the root; "" for the root itself), and
// below it, and closes fd. It holds one descriptor per level.
func (w *walker) walk(fd int, dir string, depth int) error {
	f := os.NewFile(uintptr(fd), cmp.Or(dir, "."))
	defer f.Close()
	if depth > MaxTrackedDepth {
		return errTooDeep
	}
	var dirs []string
	for {
		// In batches: a directory of millions of entries is not read
		// whole before MaxTrackedEntries stops the walk.
		names, err := f.Readdirnames(512)
		for _, name := range names {
			if len(w.snap) > MaxTrackedEntries { // the entries and root's own
				return errTooMany
			}
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
				continue // gone
			} else if err != nil {
				// A directory that may be listed but not entered (0644):
				// its entries, left out before and after, hid what
				// changed there (TestAttackS14UnsearchableDirectoryHidesChanges).
				return unreadable(dir, err)
			}
			p := joinName(dir, name)
			if w.bytes += len(p); w.bytes > maxTrackedPathBytes {
				return errTooLong
			}
			e := entryOf(&st)
			w.snap[p] = e
			if e.mode.IsDir() {
				dirs = append(dirs, name)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return unreadable(dir, err)
		}
	}
	for _, name := range dirs {
		p := joinName(dir, name)
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // deleted while the walk ran: what is seen is compared
		}
		if err != nil {
			return unreadable(p, err)
		}
		if err := w.walk(sub, p, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// joinName is dir/name for a name read from the directory dir (one
// component, never "." or ".."): path.Join would clean the whole path
// again, a cost that grows with the depth.
func joinName(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// fileMode is the fs.FileMode of a stat mode, as os.Lstat tells it.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// unreadable is the error for a directory the walk could not read, named
// relative to the workspace (quoted as Change.String quotes it): the
// host's path is not the model's business.
func unreadable(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot read the directory %s: %w", QuoteName(cmp.Or(dir, ".")), err)
}

// diff lists what changed from before to after, sorted by path. A
// directory counts as created or deleted, or modified when its mode
// changed; what happens inside it is its entries' changes.
func diff(before, after map[string]entry) []Change {
	var out []Change
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, Change{p, ChangeCreated})
		case a.mode.Type() != b.mode.Type() || a.ino != b.ino:
			out = append(out, Change{p, ChangeModified}) // replaced
		case a.mode != b.mode:
			out = append(out, Change{p, ChangeModified})
		case a.mode.IsDir():
		case a.size != b.size || a.mtime != b.mtime || a.ctime != b.ctime:
			out = append(out, Change{p, ChangeModified})
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, Change{p, ChangeDeleted})
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
	return out
}

// tracked runs run between two snapshots of the workspace ws and puts what
// changed on its outcome.
func tracked(ws string, run func() (*Outcome, error)) (*Outcome, error) {
	before, berr := snapshot(ws)
	out, err := run()
	if out == nil {
		return out, err
	}
	after, aerr := snapshot(ws)
	why := errors.Join(berr, aerr)
	if berr != nil && aerr != nil && berr.Error() == aerr.Error() {
		why = berr // the same reason before and after, said once
	}
	switch {
	case why != nil:
		out.ChangesUntracked = fmt.Sprintf("changes not tracked: %v", why)
	default:
		out.Changes = diff(before, after)
		if n := len(out.Changes); n > MaxChangesListed {
			out.Changes, out.ChangesOmitted = out.Changes[:MaxChangesListed], n-MaxChangesListed
		}
	}
	return out, err
}
