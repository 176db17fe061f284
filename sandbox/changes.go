package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Change is one entry of the workspace that a run created, modified or
// deleted (Spec.TrackChanges).
type Change struct {
	// Path is slash-separated and relative to the workspace.
	Path string `json:"path"`
	// Kind is ChangeCreated, ChangeModified or ChangeDeleted.
	Kind string `json:"kind"`
}

// String returns "kind path".
func (c Change) String() string { return c.Kind + " " + c.Path }

// The kinds of a Change.
const (
	ChangeCreated  = "created"
	ChangeModified = "modified"
	ChangeDeleted  = "deleted"
)

// Bounds of change tracking: a workspace with more entries than
// MaxTrackedEntries is not tracked (Outcome.ChangesUntracked says so), and
// an Outcome lists at most MaxChangesListed changes (Outcome.ChangesOmitted
// counts the rest).
const (
	MaxTrackedEntries = 100_000
	MaxChangesListed  = 1000
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

// errTooMany stops a snapshot of a workspace past MaxTrackedEntries.
var errTooMany = fmt.Errorf("the workspace has more than %d entries", MaxTrackedEntries)

// snapshot records every entry under root (root itself left out), without
// following symbolic links.
func snapshot(root string) (map[string]entry, error) {
	root = filepath.Clean(root)
	snap := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // gone or unreadable: what is seen is compared
		}
		if p == root {
			return nil
		}
		if len(snap) >= MaxTrackedEntries {
			return errTooMany
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		e := entry{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		e.ino, e.ctime = statIDs(fi)
		snap[filepath.ToSlash(strings.TrimPrefix(p[len(root):], "/"))] = e // root is clean: p is root, "/", its path
		return nil
	})
	return snap, err
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
	switch {
	case errors.Join(berr, aerr) != nil:
		out.ChangesUntracked = fmt.Sprintf("changes not tracked: %v", errors.Join(berr, aerr))
	default:
		out.Changes = diff(before, after)
		if n := len(out.Changes); n > MaxChangesListed {
			out.Changes, out.ChangesOmitted = out.Changes[:MaxChangesListed], n-MaxChangesListed
		}
	}
	return out, err
}
