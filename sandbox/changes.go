package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Change is one entry of the workspace that a run created, modified or
// deleted (Spec.TrackChanges).
type Change struct {
	// Path is slash-separated and relative to the workspace.
	Path string `json:"path"`
	// Kind is ChangeCreated, ChangeModified or ChangeDeleted.
	Kind string `json:"kind"`
}

// String returns "kind path", the path quoted (strconv.Quote) when it
// holds what could forge the text it is put in ("[changed: created a,
// deleted b]"): a character that does not print (a newline), a bracket, a
// comma or a quote, or bytes that are not UTF-8.
func (c Change) String() string { return c.Kind + " " + quoteName(c.Path) }

// quoteName is name as Change.String tells it.
func quoteName(name string) string {
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

// snapshot records every entry under root (root itself left out), without
// following symbolic links. It reads root through an os.Root, so that a
// directory swapped for a link while it runs (by a process writing there
// at the same time) cannot lead it out of root, and a path past PATH_MAX
// can still be read; it opens only directories (walkOpenFlag), never a
// FIFO. A directory it cannot read makes it fail: what changed inside
// would be hidden.
func snapshot(root string) (map[string]entry, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	w := walker{r: r, snap: map[string]entry{}}
	return w.snap, w.walk("", 0)
}

// walker is one snapshot's walk.
type walker struct {
	r     *os.Root
	snap  map[string]entry
	bytes int // of the paths in snap
}

// walk records the entries of dir (slash-separated, relative to the root;
// "" for the root itself) and below it.
func (w *walker) walk(dir string, depth int) error {
	if depth > MaxTrackedDepth {
		return errTooDeep
	}
	f, err := w.r.OpenFile(filepath.FromSlash(cmp.Or(dir, ".")), os.O_RDONLY|walkOpenFlag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // deleted while the walk ran: what is seen is compared
	}
	if err != nil {
		return unreadable(dir, err)
	}
	var dirs []string
	for {
		// In batches: a directory of millions of entries is not read
		// whole before MaxTrackedEntries stops the walk.
		ds, err := f.ReadDir(512)
		for _, d := range ds {
			if len(w.snap) >= MaxTrackedEntries {
				f.Close()
				return errTooMany
			}
			fi, ierr := d.Info() // read with the directory, not by path
			if ierr != nil {
				continue // gone
			}
			p := path.Join(dir, d.Name())
			if w.bytes += len(p); w.bytes > maxTrackedPathBytes {
				f.Close()
				return errTooLong
			}
			e := entry{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
			e.ino, e.ctime = statIDs(fi)
			w.snap[p] = e
			if fi.IsDir() {
				dirs = append(dirs, p)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return unreadable(dir, err)
		}
	}
	f.Close()
	for _, d := range dirs {
		if err := w.walk(d, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// unreadable is the error for a directory the walk could not read, named
// relative to the workspace (quoted as Change.String quotes it): the
// host's path is not the model's business.
func unreadable(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot read the directory %s: %w", quoteName(cmp.Or(dir, ".")), err)
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
