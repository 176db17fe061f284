package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// MaxMasked bounds the paths one run masks ([Spec.Mask]): past it,
// [Workspace.Masked] fails rather than leave some out, and engines refuse
// the run.
const MaxMasked = 1024

// Masked lists what a command run in the workspace must not see: the
// paths its hide and deny rules name ([WithHide]: a governance policy's
// forbidden_paths; [WithDeny]), as canonical workspace-relative slash
// paths, the topmost of each (what is inside a masked directory is not
// listed), sorted. Pass them as [Spec.Mask] to an engine that runs in this
// workspace's directory: bwrap and gvisor mount an empty, read-only
// directory or file over each, so a shell command reads nothing there,
// as the file tools read nothing there. Default secrets ([WithSecrets])
// and allow globs are not masked: programs a command runs read their .env,
// and what the file tools leave out of scope is not forbidden.
//
// It walks the workspace (a few microseconds an entry; nothing when the
// workspace has no hide or deny rule). A workspace of more than
// [MaxTrackedEntries] entries or [MaxTrackedDepth] levels, a directory it
// cannot read, or more than [MaxMasked] masked paths is an error: a run
// must not go ahead with a forbidden path left unmasked.
func (w *Workspace) Masked() ([]string, error) {
	if len(w.hide) == 0 && len(w.deny) == 0 {
		return nil, nil
	}
	fd, err := unix.Open(w.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: w.dir, Err: err}
	}
	m := masker{w: w}
	if err := m.walk(fd, "", 0); err != nil {
		return nil, fmt.Errorf("sandbox: listing what the workspace's rules hide from a command: %w", err)
	}
	slices.Sort(m.masked)
	return m.masked, nil
}

// masked reports whether the workspace's hide or deny rules name rel.
func (w *Workspace) masked(rel string) bool {
	abs := w.abs(rel)
	for _, h := range w.hide {
		if h(rel, abs) != "" {
			return true
		}
	}
	frel := foldCase(rel)
	return slices.ContainsFunc(w.deny, func(g string) bool { return w.forbids(g, rel, frel) })
}

// masker is one walk of Masked.
type masker struct {
	w       *Workspace
	masked  []string
	entries int
}

var errTooManyMasked = fmt.Errorf("more than %d paths to mask: keep fewer forbidden files in the workspace, or name their directory in the rule", MaxMasked)

// walk lists the directory open as fd, dir in the workspace ("" for its
// root), and goes down into what is not masked; it closes fd.
func (m *masker) walk(fd int, dir string, depth int) error {
	f := os.NewFile(uintptr(fd), cmp.Or(dir, "."))
	defer f.Close()
	if depth > MaxTrackedDepth {
		return errTooDeep
	}
	for {
		entries, err := f.ReadDir(1024) // types from the directory: no stat
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			if m.entries++; m.entries > MaxTrackedEntries {
				return errTooMany
			}
			rel := path.Join(dir, e.Name())
			if m.w.masked(rel) {
				if len(m.masked) == MaxMasked {
					return errTooManyMasked
				}
				m.masked = append(m.masked, rel)
				continue
			}
			if !e.IsDir() {
				continue
			}
			sub, err := unix.Openat(fd, e.Name(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				continue // gone, or replaced by a file or a link since it was listed
			}
			if err != nil {
				return &os.PathError{Op: "open", Path: rel, Err: err}
			}
			if err := m.walk(sub, rel, depth+1); err != nil {
				return err
			}
		}
	}
}

// maskTargets turns the masked paths of a run in workspace ws into where
// the engine mounts over them, each with whether it is a directory: a
// path that is a symlink is masked where it leads (a mount at a link
// lands on its target), a path gone since it was listed is left out.
func maskTargets(ws string, mask []string) (dirs, files []string) {
	for _, m := range mask {
		p := filepath.Join(ws, filepath.FromSlash(m))
		if t, err := filepath.EvalSymlinks(p); err == nil {
			p = t
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

// checkMask refuses a Spec.Mask that names a path outside the workspace,
// that the engine has no workspace for, or that the engine cannot mask.
func (b *base) checkMask(mask []string) error {
	if len(mask) == 0 {
		return nil
	}
	switch {
	case b.name != EngineBwrap && b.name != EngineGVisor:
		return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec,
			"the %s engine cannot hide paths from a command, and %d of the workspace's paths are forbidden (%q first): run bash in the bwrap or gvisor engine, or move those files out of the workspace", b.name, len(mask), mask[0])
	case b.cfg.workspace == "":
		return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Mask needs a workspace: give the engine one with WithWorkspace")
	case len(mask) > MaxMasked:
		return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Mask holds %d paths, over %d", len(mask), MaxMasked)
	}
	for _, m := range mask {
		if !filepath.IsLocal(filepath.FromSlash(m)) {
			return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Mask path %q is not inside the workspace: give paths relative to it (Workspace.Masked)", m)
		}
	}
	return nil
}
