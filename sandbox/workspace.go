package sandbox

import (
	"crypto/rand"
	"encoding/hex"
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
	"syscall"

	"golang.org/x/sys/unix"
)

// Workspace errors; each comes wrapped in a [*PathError] that names the path
// and the rule, and matches [ErrFilesystemPolicy] (or [ErrResourceLimit] for
// [ErrTooLarge]) with errors.Is.
var (
	// ErrOutsideWorkspace: the path, through "..", an absolute path or a
	// symlink, leads out of the workspace.
	ErrOutsideWorkspace = errors.New("path is outside the workspace")
	// ErrDeniedByRule: a deny glob matches the path, or no allow glob does.
	ErrDeniedByRule = errors.New("path denied by rule")
	// ErrTooLarge: the file is over the workspace's maximum file size.
	ErrTooLarge = errors.New("file too large")
	// ErrHardLink: the file has more than one hard link, so it may be a file
	// outside the workspace reached through a link inside it.
	ErrHardLink = errors.New("file has other hard links")
	// ErrNotRegular: the operation needs a regular file (not a directory, a
	// device, a FIFO or a socket).
	ErrNotRegular = errors.New("not a regular file")
	// ErrInvalidPath: the path is empty or contains a NUL byte.
	ErrInvalidPath = errors.New("invalid path")
)

// PathError is the error of a workspace operation refused by a rule.
type PathError struct {
	Op   string // "read", "write", "stat", "list", "remove", "mkdir", "rename", "open"
	Path string // the path as given
	Rule string // the rule that refused it, e.g. `deny-write ".git/**"` or "symlink leaves the workspace"
	Err  error  // one of the workspace sentinels
}

// Error implements error.
func (e *PathError) Error() string {
	return fmt.Sprintf("sandbox: %s %q: %v (rule: %s)", e.Op, e.Path, e.Err, e.Rule)
}

// Unwrap returns the workspace sentinel and the code's sentinel.
func (e *PathError) Unwrap() []error { return []error{e.Err, e.Code().Sentinel()} }

// Code is [CodeResourceLimit] for [ErrTooLarge] and [CodeFilesystemPolicy]
// otherwise.
func (e *PathError) Code() Code {
	if errors.Is(e.Err, ErrTooLarge) {
		return CodeResourceLimit
	}
	return CodeFilesystemPolicy
}

// DefaultDenyWrite are the globs a [Workspace] refuses to write unless
// [WithDenyWrite] replaces them: the git directory, dotenv files and PEM keys.
var DefaultDenyWrite = []string{".git", ".git/**", "**/.env", "**/*.pem"}

// DefaultMaxFileSize is the largest file a [Workspace] reads or writes unless
// [WithMaxFileSize] says otherwise.
const DefaultMaxFileSize = 10 << 20

// WorkspaceOption configures a [Workspace].
type WorkspaceOption func(*Workspace)

// WithAllow restricts the workspace to paths matching one of the globs (see
// [Match]); directories on the way to them stay listable. Default: everything.
func WithAllow(globs ...string) WorkspaceOption {
	return func(w *Workspace) { w.allow = append(w.allow, globs...) }
}

// WithDeny refuses every access (read and write) to paths matching the globs.
func WithDeny(globs ...string) WorkspaceOption {
	return func(w *Workspace) { w.deny = append(w.deny, globs...) }
}

// WithDenyWrite replaces the globs refused for writing ([DefaultDenyWrite]).
// Pass DefaultDenyWrite along to extend rather than replace them.
func WithDenyWrite(globs ...string) WorkspaceOption {
	return func(w *Workspace) { w.denyWrite = slices.Clone(globs) }
}

// WithMaxFileSize sets the largest file read or written, in bytes (default
// [DefaultMaxFileSize]); 0 means no limit.
func WithMaxFileSize(n int64) WorkspaceOption {
	return func(w *Workspace) { w.maxFileSize = n }
}

// Workspace is a directory that file tools reach only through an [os.Root]:
// "..", absolute paths outside it, and symlinks (also swapped in
// concurrently) cannot leave it. On top of os.Root it refuses files with
// other hard links, checks allow and deny globs on the path asked for and on
// the path actually opened, caps file sizes, and writes atomically.
//
// Paths are relative to the workspace, slash- or OS-separated; an absolute
// path is accepted when it lies inside [Workspace.Dir]. A Workspace is safe
// for concurrent use.
type Workspace struct {
	dir         string
	root        *os.Root
	allow       []string
	deny        []string
	denyWrite   []string
	maxFileSize int64
}

// OpenWorkspace opens the existing directory dir as a workspace.
func OpenWorkspace(dir string, opts ...WorkspaceOption) (*Workspace, error) {
	if dir == "" {
		return nil, fmt.Errorf("sandbox: OpenWorkspace: dir is empty; pass the directory the tools may use: %w", ErrInvalidPath)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: OpenWorkspace(%q): %w", dir, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("sandbox: OpenWorkspace(%q): %w", dir, err)
	}
	w := &Workspace{dir: abs, denyWrite: slices.Clone(DefaultDenyWrite), maxFileSize: DefaultMaxFileSize}
	for _, o := range opts {
		if o != nil {
			o(w)
		}
	}
	if w.maxFileSize < 0 {
		return nil, fmt.Errorf("sandbox: OpenWorkspace: WithMaxFileSize(%d) is negative; use 0 for no limit: %w", w.maxFileSize, ErrInvalidPath)
	}
	for _, set := range []struct {
		name  string
		globs []string
	}{{"WithAllow", w.allow}, {"WithDeny", w.deny}, {"WithDenyWrite", w.denyWrite}} {
		for _, g := range set.globs {
			if !ValidGlob(g) || strings.HasPrefix(g, "/") {
				return nil, fmt.Errorf("sandbox: OpenWorkspace: %s glob %q is malformed (relative, slash-separated, path.Match syntax per segment, ** for any depth): %w", set.name, g, ErrInvalidPath)
			}
		}
	}
	if w.root, err = os.OpenRoot(abs); err != nil {
		return nil, fmt.Errorf("sandbox: OpenWorkspace(%q): %w", dir, err)
	}
	return w, nil
}

// Dir returns the workspace's absolute, symlink-free host path, for engines
// to bind-mount ([WithWorkspace]).
func (w *Workspace) Dir() string { return w.dir }

// Close releases the workspace's root.
func (w *Workspace) Close() error { return w.root.Close() }

// Path checks name for reading and returns its host path inside [Workspace.Dir].
func (w *Workspace) Path(name string) (string, error) {
	rel, err := w.check("path", name, false)
	if err != nil {
		return "", err
	}
	return filepath.Join(w.dir, filepath.FromSlash(rel)), nil
}

// Rel returns name as a clean slash-separated path relative to the workspace,
// or the error saying why it is refused for reading.
func (w *Workspace) Rel(name string) (string, error) { return w.check("path", name, false) }

// check validates name lexically and against the rules; it returns the clean
// slash-separated relative path.
func (w *Workspace) check(op, name string, write bool) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", &PathError{Op: op, Path: name, Rule: "path must be non-empty and contain no NUL byte", Err: ErrInvalidPath}
	}
	p := filepath.Clean(name)
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(w.dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			return "", &PathError{Op: op, Path: name, Rule: "absolute path outside the workspace " + w.dir, Err: ErrOutsideWorkspace}
		}
		p = rel
	}
	if !filepath.IsLocal(p) {
		return "", &PathError{Op: op, Path: name, Rule: `".." leaves the workspace`, Err: ErrOutsideWorkspace}
	}
	rel := filepath.ToSlash(p)
	if err := w.rules(op, name, rel, write, false); err != nil {
		return "", err
	}
	return rel, nil
}

// rules applies the globs to rel, a clean relative slash path.
func (w *Workspace) rules(op, name, rel string, write, isDir bool) error {
	if rel == "." {
		if write {
			return &PathError{Op: op, Path: name, Rule: "the workspace root itself cannot be written", Err: ErrDeniedByRule}
		}
		return nil
	}
	for _, g := range w.deny {
		if Match(g, rel) {
			return &PathError{Op: op, Path: name, Rule: "deny " + strconv.Quote(g), Err: ErrDeniedByRule}
		}
	}
	if len(w.allow) > 0 {
		ok := false
		for _, g := range w.allow {
			if Match(g, rel) || (!write || isDir) && couldMatchBelow(g, rel) {
				ok = true
				break
			}
		}
		if !ok {
			return &PathError{Op: op, Path: name, Rule: "not matched by any allow glob " + strconv.Quote(strings.Join(w.allow, ", ")), Err: ErrDeniedByRule}
		}
	}
	if write {
		for _, g := range w.denyWrite {
			if Match(g, rel) {
				return &PathError{Op: op, Path: name, Rule: "deny-write " + strconv.Quote(g), Err: ErrDeniedByRule}
			}
		}
	}
	return nil
}

// rootErr turns os.Root's escape refusal into ErrOutsideWorkspace.
func (w *Workspace) rootErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		return &PathError{Op: op, Path: name, Rule: "a symlink or \"..\" resolves outside the workspace", Err: ErrOutsideWorkspace}
	}
	return err
}

// realRel returns the workspace-relative slash path f really is, from
// /proc/self/fd, so rules also hold for what a symlink inside led to.
// ok is false when /proc is not available.
func (w *Workspace) realRel(op, name string, f *os.File) (rel string, ok bool, err error) {
	target, lerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if lerr != nil {
		return "", false, nil
	}
	r, rerr := filepath.Rel(w.dir, target)
	if rerr != nil || (r != "." && !filepath.IsLocal(r)) {
		return "", true, &PathError{Op: op, Path: name, Rule: "opened file lies outside the workspace (" + target + ")", Err: ErrOutsideWorkspace}
	}
	return filepath.ToSlash(r), true, nil
}

// openChecked opens name (following symlinks inside the root) for reading,
// and checks the opened file: rules on its real path, regular (unless
// wantDir), a single hard link.
func (w *Workspace) openChecked(op, name string, wantDir bool) (*os.File, string, error) {
	rel, err := w.check(op, name, false)
	if err != nil {
		return nil, "", err
	}
	f, err := w.root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", w.rootErr(op, name, err)
	}
	fail := func(err error) (*os.File, string, error) { f.Close(); return nil, "", err }
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if real, ok, err := w.realRel(op, name, f); err != nil {
		return fail(err)
	} else if ok && real != rel {
		if err := w.rules(op, name, real, false, fi.IsDir()); err != nil {
			return fail(err)
		}
	}
	if wantDir {
		if !fi.IsDir() {
			return fail(&PathError{Op: op, Path: name, Rule: "a directory is needed", Err: ErrNotRegular})
		}
		return f, rel, nil
	}
	if !fi.Mode().IsRegular() {
		return fail(&PathError{Op: op, Path: name, Rule: "only regular files can be opened, this is " + fi.Mode().Type().String(), Err: ErrNotRegular})
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return fail(&PathError{Op: op, Path: name, Rule: fmt.Sprintf("file has %d hard links (device %d, inode %d)", st.Nlink, st.Dev, st.Ino), Err: ErrHardLink})
	}
	return f, rel, nil
}

// Open opens a regular file for reading. The caller closes it.
func (w *Workspace) Open(name string) (*os.File, error) {
	f, _, err := w.openChecked("open", name, false)
	return f, err
}

// ReadFile reads a whole regular file, refusing files over the maximum size.
func (w *Workspace) ReadFile(name string) ([]byte, error) {
	f, _, err := w.openChecked("read", name, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if w.maxFileSize > 0 {
		if fi, err := f.Stat(); err == nil && fi.Size() > w.maxFileSize {
			return nil, w.tooLarge("read", name, fi.Size())
		}
		// The file may grow while it is read.
		r = io.LimitReader(f, w.maxFileSize+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if w.maxFileSize > 0 && int64(len(data)) > w.maxFileSize {
		return nil, w.tooLarge("read", name, int64(len(data)))
	}
	return data, nil
}

func (w *Workspace) tooLarge(op, name string, size int64) error {
	return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("max file size %d bytes (file has %d or more)", w.maxFileSize, size), Err: ErrTooLarge}
}

// Stat returns the file info of name, following symlinks inside the workspace.
func (w *Workspace) Stat(name string) (fs.FileInfo, error) {
	rel, err := w.check("stat", name, false)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Stat(filepath.FromSlash(rel))
	return fi, w.rootErr("stat", name, err)
}

// Lstat returns the file info of name without following a final symlink.
func (w *Workspace) Lstat(name string) (fs.FileInfo, error) {
	rel, err := w.check("stat", name, false)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Lstat(filepath.FromSlash(rel))
	return fi, w.rootErr("stat", name, err)
}

// ReadDir lists a directory, sorted by name, leaving out entries the rules
// refuse. Symlinks are listed as symlinks, not followed.
func (w *Workspace) ReadDir(name string) ([]fs.DirEntry, error) {
	f, rel, err := w.openChecked("list", name, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if w.rules("list", name, path.Join(rel, e.Name()), false, e.IsDir()) == nil {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Walk walks the tree under name in lexical order, calling fn with
// workspace-relative slash paths, like [fs.WalkDir]: it does not follow
// symlinks, skips what the rules refuse, and honours [fs.SkipDir] and
// [fs.SkipAll].
func (w *Workspace) Walk(name string, fn fs.WalkDirFunc) error {
	rel, err := w.check("list", name, false)
	if err != nil {
		return err
	}
	fi, err := w.root.Lstat(filepath.FromSlash(rel))
	if err != nil {
		err = fn(rel, nil, w.rootErr("list", name, err))
	} else {
		err = w.walk(rel, fs.FileInfoToDirEntry(fi), fn)
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

func (w *Workspace) walk(rel string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(rel, d, nil); err != nil || !d.IsDir() {
		if err == fs.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	entries, err := w.ReadDir(rel)
	if err != nil {
		if err = fn(rel, d, err); err != nil {
			if err == fs.SkipDir {
				err = nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := w.walk(path.Join(rel, e.Name()), e, fn); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// openParent opens the directory that will hold rel and checks the write
// rules on the real path of rel (its parent's real path plus its base name).
// Later *at calls on the returned directory cannot be redirected by a swap.
func (w *Workspace) openParent(op, name, rel string) (*os.File, string, error) {
	dir, base := path.Split(rel)
	if dir == "" {
		dir = "."
	}
	d, err := w.root.OpenFile(filepath.FromSlash(path.Clean(dir)), os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", w.rootErr(op, name, err)
	}
	if realDir, ok, err := w.realRel(op, name, d); err != nil {
		d.Close()
		return nil, "", err
	} else if ok {
		if err := w.rules(op, name, path.Join(realDir, base), true, false); err != nil {
			d.Close()
			return nil, "", err
		}
	}
	return d, base, nil
}

// WriteFile writes data to name atomically: a temporary file in the same
// directory, synced, then renamed over name. A symlink at name is replaced,
// not followed. perm 0 means 0644.
func (w *Workspace) WriteFile(name string, data []byte, perm fs.FileMode) error {
	const op = "write"
	rel, err := w.check(op, name, true)
	if err != nil {
		return err
	}
	if w.maxFileSize > 0 && int64(len(data)) > w.maxFileSize {
		return w.tooLarge(op, name, int64(len(data)))
	}
	if perm == 0 {
		perm = 0o644
	}
	d, base, err := w.openParent(op, name, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	dfd := int(d.Fd())
	var st unix.Stat_t
	switch err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil:
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return &PathError{Op: op, Path: name, Rule: "it is a directory", Err: ErrNotRegular}
		}
		if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
			return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("file has %d hard links (device %d, inode %d)", st.Nlink, st.Dev, st.Ino), Err: ErrHardLink}
		}
	case !errors.Is(err, unix.ENOENT):
		return &os.PathError{Op: op, Path: name, Err: err}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := ".tb-" + hex.EncodeToString(rnd[:]) + ".tmp"
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &os.PathError{Op: op, Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(dfd, tmp, dfd, base)
	}
	if werr != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return &os.PathError{Op: op, Path: name, Err: werr}
	}
	return nil
}

// Remove removes a file or an empty directory (not following a final symlink).
func (w *Workspace) Remove(name string) error {
	const op = "remove"
	rel, err := w.check(op, name, true)
	if err != nil {
		return err
	}
	d, base, err := w.openParent(op, name, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	err = unix.Unlinkat(int(d.Fd()), base, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		err = unix.Unlinkat(int(d.Fd()), base, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &os.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// MkdirAll creates a directory and its missing parents (perm 0 means 0755).
func (w *Workspace) MkdirAll(name string, perm fs.FileMode) error {
	const op = "mkdir"
	rel, err := w.check(op, name, true)
	if err != nil {
		return err
	}
	if perm == 0 {
		perm = 0o755
	}
	if err := w.root.MkdirAll(filepath.FromSlash(rel), perm); err != nil {
		return w.rootErr(op, name, err)
	}
	f, err := w.root.Open(filepath.FromSlash(rel))
	if err != nil {
		return w.rootErr(op, name, err)
	}
	defer f.Close()
	if real, ok, err := w.realRel(op, name, f); err != nil {
		return err
	} else if ok && real != rel {
		return w.rules(op, name, real, true, true)
	}
	return nil
}

// Rename renames oldname to newname inside the workspace; both must pass the
// write rules. A symlink at either end is renamed, not followed.
func (w *Workspace) Rename(oldname, newname string) error {
	const op = "rename"
	oldRel, err := w.check(op, oldname, true)
	if err != nil {
		return err
	}
	newRel, err := w.check(op, newname, true)
	if err != nil {
		return err
	}
	od, obase, err := w.openParent(op, oldname, oldRel)
	if err != nil {
		return err
	}
	defer od.Close()
	nd, nbase, err := w.openParent(op, newname, newRel)
	if err != nil {
		return err
	}
	defer nd.Close()
	if err := unix.Renameat(int(od.Fd()), obase, int(nd.Fd()), nbase); err != nil {
		return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
	}
	return nil
}
