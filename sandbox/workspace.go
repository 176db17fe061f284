package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
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
	// ErrTooLarge: the file is over the workspace's maximum file size, or
	// the directory holds more entries than a listing reads (65,536).
	ErrTooLarge = errors.New("file too large")
	// ErrHardLink: the file has more than one hard link, so it may be a file
	// outside the workspace reached through a link inside it.
	ErrHardLink = errors.New("file has other hard links")
	// ErrNotRegular: the operation needs a regular file (not a directory, a
	// device, a FIFO or a socket).
	ErrNotRegular = errors.New("not a regular file")
	// ErrInvalidPath: the path is empty, contains a NUL byte, or goes
	// through too many symlinks.
	ErrInvalidPath = errors.New("invalid path")
	// ErrProtected: a write to a path with a protected component (a
	// version-control directory such as .git, at any depth).
	ErrProtected = errors.New("path is protected")
	// ErrHidden: a [WithHide] function (the policy's forbidden paths) hides
	// the path.
	ErrHidden = errors.New("path hidden by policy")
)

// PathError is the error of a workspace operation refused by a rule.
type PathError struct {
	Op   string // "read", "write", "stat", "list", "remove", "mkdir", "rename", "open", "path", "resolve"
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

// DefaultDenyWrite are the globs a [Workspace] refuses to write (and to
// remove, rename or rename onto) unless [WithDenyWrite] replaces them:
// the default secrets, [DefaultSecrets], each one. A file the model may
// not read it may not replace either: a new .env.production points the
// next deploy at another database, a .kube/config's exec plugin or a
// .docker/config.json's credential helper runs a command on the host, an
// .npmrc names the registry of the next install, direnv runs an .envrc.
// Version-control directories are protected separately, at any depth
// ([DefaultProtectedNames]).
var DefaultDenyWrite = slices.Clone(DefaultSecrets)

// DefaultSecrets are the globs a [Workspace] refuses to read, list or
// search unless [WithSecrets] replaces them, which a model has no need to
// see and a prompt injection would ask for: dotenv files with every
// suffix (.env.local, .env.production and .env.development.local, where
// Next.js, Vite, dotenv-flow and Rails keep the real values; .env.keys,
// dotenvx's private keys; also a template, .env.example, since what one
// holds cannot be told from its name), private keys (PEM and .key files,
// PKCS#12 bundles, PuTTY keys, private SSH keys, FIDO ones too) and
// stored credentials (git's, .netrc, PostgreSQL's .pgpass, PyPI's
// .pypirc, the AWS CLI's, npm's .npmrc, direnv's .envrc, Docker's and
// kubectl's configs, Terraform state). Source files are not among them: "*.key"
// names server.key, not keys.go. Writing them is judged by the write
// rules ([DefaultDenyWrite], which by default refuse these same globs;
// [WithSecrets] leaves them as they are). A workspace that is or holds a
// home directory ($HOME, the process user's, a regular user's in
// /etc/passwd) refuses to read and write the credential stores of that
// home too, each [DefaultHomeSecrets] entry under it, unless WithSecrets
// (for reading) or WithDenyWrite (for writing) is given with no globs.
var DefaultSecrets = []string{
	"**/.env", "**/.env.*",
	"**/*.pem", "**/*.key", "**/*.p12", "**/*.pfx", "**/*.ppk",
	"**/id_rsa", "**/id_dsa", "**/id_ecdsa", "**/id_ed25519", "**/id_ecdsa_sk", "**/id_ed25519_sk",
	"**/.git-credentials", "**/.netrc", "**/.pgpass", "**/.pypirc", "**/.aws/credentials",
	"**/.npmrc", "**/.envrc", "**/.docker/config.json", "**/.kube/config", "**/*.tfstate", "**/*.tfstate.backup",
}

// DefaultProtectedNames are the path components a [Workspace] refuses to
// write under, at any depth, unless [WithProtectedNames] replaces them: the
// directories of git, Mercurial and Subversion, whose configuration and
// hooks run code on the host at the next "git status" there.
var DefaultProtectedNames = []string{".git", ".hg", ".svn"}

// HideFunc reports whether a path is hidden, and by which rule (a
// non-empty string naming it, e.g. `policy rule global.forbidden_paths[0]
// "secrets/**"`). rel is the canonical workspace-relative slash path (see
// [Workspace.Resolve]), abs the same path on the host (under
// [Workspace.Dir]). It must be safe for concurrent use.
type HideFunc func(rel, abs string) (rule string)

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
// Deny, deny-write and secrets globs match in any case ("**/*.pem" refuses
// server.PEM, "secrets/**" Secrets/a: a case-insensitive file system opens
// one as the other), and in every spelling that a file system which folds
// names opens as the same file, as [WithProtectedNames] do: by Unicode's
// full case folding and NFKC ("**/.pgpass" refuses .pgpaß, "config/**"
// conﬁg/a with the fi ligature, "café/**" café spelt in NFD), without
// default-ignorable code points (.e\u200bnv is .env) or a component's
// trailing dots and spaces (.env. is .env, as vfat opens it). Allow
// globs match their own spelling only. A literal head that is a symlink of the workspace when it
// is opened ("config/**", config a link to real) forbids its target too:
// the rules are judged on paths with every symlink resolved.
func WithDeny(globs ...string) WorkspaceOption {
	return func(w *Workspace) { w.deny = append(w.deny, globs...) }
}

// WithDenyWrite replaces the globs refused for writing ([DefaultDenyWrite]).
// Pass DefaultDenyWrite along to extend rather than replace them.
func WithDenyWrite(globs ...string) WorkspaceOption {
	return func(w *Workspace) { w.denyWrite = slices.Clone(globs) }
}

// WithSecrets replaces the globs refused for reading, listing and
// searching ([DefaultSecrets]); with none, those files are read like any
// other. Pass DefaultSecrets along to extend rather than replace them.
func WithSecrets(globs ...string) WorkspaceOption {
	return func(w *Workspace) { w.secrets = slices.Clone(globs) }
}

// WithProtectedNames replaces the path components refused for writing at
// any depth ([DefaultProtectedNames]); names compare case-insensitively (a
// case-insensitive file system opens .GIT as .git). Reading is not affected.
// With ".git" among them, the git directory that a .git file at the
// workspace's top names is protected too when it lies in the workspace
// (git init --separate-git-dir=.repo: .repo/hooks), as it is when the
// workspace is opened.
func WithProtectedNames(names ...string) WorkspaceOption {
	return func(w *Workspace) { w.protected = slices.Clone(names) }
}

// WithHide hides the paths hide names: reading, writing and listing them is
// refused (an [ErrHidden] error naming hide's rule) and listings leave them
// out and count them ([Workspace.ReadDirHidden], [Workspace.WalkHidden]).
// hide is asked about the canonical path, also of what a symlink leads to.
// It is how the governance policy's forbidden paths reach the file tools
// that list and search: sandbox.OpenWorkspace(dir, sandbox.WithHide(pol.Hide)).
// Several WithHide options all apply.
func WithHide(hide HideFunc) WorkspaceOption {
	return func(w *Workspace) {
		if hide != nil {
			w.hide = append(w.hide, hide)
		}
	}
}

// WithMaxFileSize sets the largest file read or written, in bytes (default
// [DefaultMaxFileSize]); 0 means no limit.
func WithMaxFileSize(n int64) WorkspaceOption {
	return func(w *Workspace) { w.maxFileSize = n }
}

// Workspace is a directory that file tools reach only through an [os.Root]:
// "..", absolute paths outside it, and symlinks (also swapped in
// concurrently) cannot leave it. On top of os.Root it refuses files with
// other hard links, checks allow, deny and hide rules on the path asked for
// and on the path actually opened, protects version-control directories at
// any depth, caps file sizes, and writes atomically.
//
// Paths are relative to the workspace, slash- or OS-separated; an absolute
// path is accepted when it lies inside [Workspace.Dir]. Every operation
// first turns its path into its canonical form with [Workspace.Resolve]
// (".." and symlinks inside the workspace resolved) and judges the rules on
// that form, so an alias cannot reach what its target's name forbids. A
// Workspace is safe for concurrent use.
type Workspace struct {
	dir         string
	root        *os.Root
	allow       []string
	deny        []string
	denyWrite   []string
	secrets     []string
	aliases     map[string]string // a deny, deny-write or secrets glob as its head resolved at open -> as written (see throughLinks)
	folded      map[string]string // a deny, deny-write or secrets glob -> foldCase of it
	protected   []string
	gitDir      string // the directory the top .git file names, workspace-relative (see gitDirIn), or ""
	hide        []HideFunc
	mask        maskMemory // what Masked's walks remember between runs
	maxFileSize int64
	rootDir     *os.File        // the root directory, for the resolver
	rootConn    syscall.RawConn // rootDir's, to hold its descriptor
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
	w := &Workspace{dir: abs, denyWrite: slices.Clone(DefaultDenyWrite), secrets: slices.Clone(DefaultSecrets), protected: slices.Clone(DefaultProtectedNames), maxFileSize: DefaultMaxFileSize}
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
	}{{"WithAllow", w.allow}, {"WithDeny", w.deny}, {"WithDenyWrite", w.denyWrite}, {"WithSecrets", w.secrets}} {
		for _, g := range set.globs {
			if !ValidGlob(g) || strings.HasPrefix(g, "/") {
				return nil, fmt.Errorf("sandbox: OpenWorkspace: %s glob %q is malformed (relative, slash-separated, doublestar syntax: * ? [...] {a,b} within a segment, ** for any depth as a whole path segment: **/*.pem, not **.pem; written as a clean path, no \"./\", \"..\", \"//\" or \"/\" at the end: keys/**, not ./keys/): %w", set.name, g, ErrInvalidPath)
			}
		}
	}
	// The credential stores of a home directory that the workspace is or
	// holds are refused as the commands' masks refuse them: with the
	// workspace at /home, alice/.config/gh/hosts.yml is a secret.
	if stores := homeStores(abs); len(stores) > 0 {
		if len(w.secrets) > 0 {
			w.secrets = append(w.secrets, stores...)
		}
		if len(w.denyWrite) > 0 {
			w.denyWrite = append(w.denyWrite, stores...)
		}
	}
	for _, n := range w.protected {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
			return nil, fmt.Errorf("sandbox: OpenWorkspace: WithProtectedNames name %q is not a single path component (e.g. \".git\"): %w", n, ErrInvalidPath)
		}
	}
	if w.root, err = os.OpenRoot(abs); err != nil {
		return nil, fmt.Errorf("sandbox: OpenWorkspace(%q): %w", dir, err)
	}
	// The resolver walks from a descriptor of the same directory.
	if w.rootDir, err = w.root.OpenFile(".", os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
		w.rootConn, err = w.rootDir.SyscallConn()
	}
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sandbox: OpenWorkspace(%q): %w", dir, err)
	}
	for _, set := range []*[]string{&w.deny, &w.denyWrite, &w.secrets} {
		for _, g := range *set {
			if a := w.throughLinks(g); a != "" && a != g {
				if w.aliases == nil {
					w.aliases = map[string]string{}
				}
				*set = append(*set, a)
				w.aliases[a] = g
			}
		}
	}
	// A git directory that the top .git file names, in the workspace
	// (git init --separate-git-dir), is the repository's as .git is.
	if slices.Contains(w.protected, ".git") {
		w.gitDir = gitDirIn(abs)
	}
	// The rules that refuse are matched folded too (see rules); folded
	// once here rather than on every lookup of a walk.
	w.folded = map[string]string{}
	for _, set := range [][]string{w.deny, w.denyWrite, w.secrets} {
		for _, g := range set {
			w.folded[g] = foldGlob(g)
		}
	}
	return w, nil
}

// throughLinks returns glob g with its literal head (the directories in
// front of its first wildcard, or all of it without one) in canonical
// form, as it resolves now, or "" when that changes nothing. The rules are
// judged on canonical paths, in which a symlink's name never appears: with
// config a link to real, "config/**" alone would forbid nothing, not even
// config/token (TestAttackForbidGlobThroughASymlink). A link made after
// the workspace is opened is not followed.
func (w *Workspace) throughLinks(g string) string {
	head, rest := g, ""
	if i := strings.IndexAny(g, `*?[{\`); i >= 0 {
		j := strings.LastIndexByte(g[:i], '/')
		if j < 0 {
			return ""
		}
		head, rest = g[:j], g[j:]
	}
	canon, err := w.Resolve(head)
	if err != nil || canon == head {
		return ""
	}
	if canon == "." {
		if rest == "" {
			return ""
		}
		return rest[1:]
	}
	var b strings.Builder
	for _, c := range []byte(canon) {
		if strings.IndexByte(`*?[]{},\!^`, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	a := b.String() + rest
	if !ValidGlob(a) {
		return ""
	}
	return a
}

// ruleName quotes glob g for an error, as the caller wrote it.
func (w *Workspace) ruleName(g string) string {
	if orig, ok := w.aliases[g]; ok {
		return strconv.Quote(orig) + " (through a symlink: " + strconv.Quote(g) + ")"
	}
	return strconv.Quote(g)
}

// forbids reports whether a refusing glob g (deny, deny-write, secrets)
// matches rel, or frel, rel folded (foldCase).
func (w *Workspace) forbids(g, rel, frel string) bool {
	fg, ok := w.folded[g]
	if !ok {
		fg = foldGlob(g)
	}
	// Folded only when folding changed the name or the glob: an ASCII
	// name without capitals folds to itself, and the match would repeat
	// on every file operation.
	return Match(g, rel) || (fg != g || frel != rel) && Match(fg, frel)
}

// Dir returns the workspace's absolute, symlink-free host path, for engines
// to bind-mount ([WithWorkspace]).
func (w *Workspace) Dir() string { return w.dir }

// Hides reports whether the workspace was opened with a WithHide function:
// a governance policy with forbidden paths refuses the tools of a
// workspace that does not hide them, whose listings and searches would
// show them.
func (w *Workspace) Hides() bool { return len(w.hide) > 0 }

// Close releases the workspace's root.
func (w *Workspace) Close() error {
	if w.rootDir != nil {
		w.rootDir.Close()
	}
	return w.root.Close()
}

// Path checks name for reading and returns its host path inside
// [Workspace.Dir], symlinks resolved.
func (w *Workspace) Path(name string) (string, error) {
	rel, err := w.check("path", name, false)
	if err != nil {
		return "", err
	}
	return w.abs(rel), nil
}

// abs returns the host path of the workspace-relative slash path rel.
func (w *Workspace) abs(rel string) string {
	if rel == "." {
		return w.dir
	}
	return filepath.Join(w.dir, filepath.FromSlash(rel))
}

// Rel returns the canonical form of name ([Workspace.Resolve]), or the error
// saying why it is refused for reading.
func (w *Workspace) Rel(name string) (string, error) { return w.check("path", name, false) }

// RelWrite returns the canonical form of name ([Workspace.Resolve]), or the
// error saying why it is refused for writing, so a caller can refuse before
// it creates anything (parent directories).
func (w *Workspace) RelWrite(name string) (string, error) { return w.check("write", name, true) }

// Resolve turns name — relative, absolute inside [Workspace.Dir], through
// "..", "." and symlinks inside the workspace — into its canonical form:
// the clean, slash-separated path relative to the workspace, with every
// existing component a real directory or file (no symlink left), "." for
// the workspace itself. Components that do not exist yet are kept as
// written (a file about to be created). A path that leaves the workspace
// (by "..", an absolute path, or a symlink to the outside) is refused with
// a [*PathError] matching [ErrOutsideWorkspace] and [ErrFilesystemPolicy],
// naming the path and the link. Resolve applies no allow, deny or hide
// rule; every other method judges those on this form.
//
// The file is not opened: a symlink swapped in afterwards is caught by the
// method that opens it, which checks the path it really opened.
func (w *Workspace) Resolve(name string) (string, error) { return w.resolve("resolve", name, true) }

// Lresolve is Resolve without following a final symlink (as Lstat is Stat):
// the canonical form of the link itself, for operations on the link such as
// removing it.
func (w *Workspace) Lresolve(name string) (string, error) { return w.resolve("resolve", name, false) }

// lookupHook, set only by tests, is told of each lookup of a path the
// workspace makes: how many components it goes through from the descriptor
// it starts at (the root's, or a directory's the walk holds). A test adds
// them up to show what a walk costs grows with the tree, not with each
// directory's depth.
var lookupHook atomic.Pointer[func(w *Workspace, components int)]

// lookedUp tells lookupHook of a lookup of the slash path rel.
func (w *Workspace) lookedUp(rel string) {
	if h := lookupHook.Load(); h != nil {
		(*h)(w, strings.Count(rel, "/")+1)
	}
}

// maxLinks bounds the symlinks one resolution follows (Linux's ELOOP
// limit is 40).
const maxLinks = 40

// lexical validates name without touching the file system and returns the
// clean slash-separated relative path.
func (w *Workspace) lexical(op, name string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", &PathError{Op: op, Path: name, Rule: "path must be non-empty and contain no NUL byte", Err: ErrInvalidPath}
	}
	p := filepath.Clean(name)
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(w.dir, p)
		if err != nil || (rel != "." && !filepath.IsLocal(rel)) {
			return "", &PathError{Op: op, Path: name, Rule: "absolute path outside the workspace " + w.dir, Err: ErrOutsideWorkspace}
		}
		p = rel
	}
	if p != "." && !filepath.IsLocal(p) {
		return "", &PathError{Op: op, Path: name, Rule: `".." leaves the workspace`, Err: ErrOutsideWorkspace}
	}
	return filepath.ToSlash(p), nil
}

// resolve is Resolve; followFinal says whether a final symlink is followed.
func (w *Workspace) resolve(op, name string, followFinal bool) (string, error) {
	rel, err := w.lexical(op, name)
	if err != nil || rel == "." {
		return rel, err
	}
	w.lookedUp(rel)
	var out string
	// Control holds the root's descriptor open while the walk uses it.
	cerr := w.rootConn.Control(func(fd uintptr) {
		if noLinksOnTheWay(int(fd), rel, followFinal) {
			out = rel
			return
		}
		out, err = w.resolveAt(int(fd), op, name, rel, followFinal)
	})
	if cerr != nil {
		return "", fmt.Errorf("sandbox: %s %q: the workspace is closed: %w", op, name, cerr)
	}
	return out, err
}

// resolveAt walks rel from the root's descriptor one component at a time,
// never following a link implicitly (fstatat and openat with NOFOLLOW,
// O_PATH descriptors for the directories on the way), substituting each
// link's target itself, so that what it returns is canonical and a link
// that leads out is named.
func (w *Workspace) resolveAt(rootFD int, op, name, rel string, followFinal bool) (string, error) {
	var dirs []int // descriptors of the first len(dirs) components of done
	defer func() {
		for _, fd := range dirs {
			unix.Close(fd)
		}
	}()
	cur := func() int {
		if len(dirs) == 0 {
			return rootFD
		}
		return dirs[len(dirs)-1]
	}
	// done is the canonical path walked so far ("" for the root), and
	// grows and shrinks in place: a path of many components (a model's
	// long argument) costs its length, not its length times its
	// components, as path.Join at each one did.
	done, ndone := make([]byte, 0, len(rel)), 0
	rest := strings.Split(rel, "/")
	links := 0
	lastLink := ""
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if ndone == 0 {
				return "", &PathError{Op: op, Path: name, Rule: "symlink " + lastLink + " leads out of the workspace", Err: ErrOutsideWorkspace}
			}
			done, ndone = done[:max(bytes.LastIndexByte(done, '/'), 0)], ndone-1
			if len(dirs) > ndone {
				unix.Close(dirs[len(dirs)-1])
				dirs = dirs[:len(dirs)-1]
			}
			continue
		}
		n := len(done)
		if n > 0 {
			done = append(done, '/')
		}
		done = append(done, c...)
		// Below a component that does not exist (or is a file), and a final
		// link not to be followed, the rest is taken as written.
		if ndone > len(dirs) || (len(rest) == 0 && !followFinal) {
			ndone++
			continue
		}
		next := func() string { return strconv.Quote(string(done)) }
		var st unix.Stat_t
		if err := unix.Fstatat(cur(), c, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				ndone++
				continue
			}
			return "", &PathError{Op: op, Path: name, Rule: "cannot look up " + next() + ": " + err.Error(), Err: ErrInvalidPath}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			if links++; links > maxLinks {
				return "", &PathError{Op: op, Path: name, Rule: fmt.Sprintf("more than %d symlinks on the way", maxLinks), Err: ErrInvalidPath}
			}
			target, err := readlinkat(cur(), c)
			if err != nil {
				return "", &PathError{Op: op, Path: name, Rule: "cannot read symlink " + next() + ": " + err.Error(), Err: ErrInvalidPath}
			}
			lastLink = next() + " -> " + strconv.Quote(target)
			done = done[:n]
			if filepath.IsAbs(target) {
				r, err := filepath.Rel(w.dir, filepath.Clean(target))
				if err != nil || (r != "." && !filepath.IsLocal(r)) {
					return "", &PathError{Op: op, Path: name, Rule: "symlink " + lastLink + " leads out of the workspace", Err: ErrOutsideWorkspace}
				}
				for _, fd := range dirs {
					unix.Close(fd)
				}
				dirs, done, ndone, target = dirs[:0], done[:0], 0, r
			}
			rest = append(strings.Split(filepath.ToSlash(target), "/"), rest...)
		case unix.S_IFDIR:
			if len(rest) > 0 {
				fd, err := unix.Openat(cur(), c, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err != nil {
					return "", &PathError{Op: op, Path: name, Rule: "cannot open " + next() + ": " + err.Error(), Err: ErrInvalidPath}
				}
				dirs = append(dirs, fd)
			}
			ndone++
		default:
			ndone++
		}
	}
	if len(done) == 0 {
		return ".", nil
	}
	return string(done), nil
}

// readlinkat reads the target of the link name in the directory dirfd.
func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// check resolves name and judges the rules on its canonical form.
func (w *Workspace) check(op, name string, write bool) (string, error) {
	rel, err := w.resolve(op, name, true)
	if err != nil {
		return "", err
	}
	if err := w.rules(op, name, rel, write, !write && w.isDirRel(rel)); err != nil {
		return "", err
	}
	return rel, nil
}

// lcheck is check without following a final symlink.
func (w *Workspace) lcheck(op, name string, write bool) (string, error) {
	rel, err := w.resolve(op, name, false)
	if err != nil {
		return "", err
	}
	if err := w.rules(op, name, rel, write, !write && w.isDirRel(rel)); err != nil {
		return "", err
	}
	return rel, nil
}

// isDirRel reports whether the canonical path rel is a directory, for the
// allow globs, which let a reader through the directories on the way to
// what they name (and only those). Without allow globs it does not look.
// What is opened afterwards is judged again on what it really is.
func (w *Workspace) isDirRel(rel string) bool {
	if len(w.allow) == 0 {
		return false
	}
	w.lookedUp(rel)
	fi, err := w.root.Lstat(filepath.FromSlash(rel))
	return err == nil && fi.IsDir()
}

// rules applies the globs to rel, a clean relative slash path.
func (w *Workspace) rules(op, name, rel string, write, isDir bool) error {
	return w.rulesFolded(op, name, rel, "", write, isDir)
}

// rulesFolded is rules with frel, rel folded (foldCase), when the caller
// has it: MkdirAll folds each new component once, not the whole path at
// every directory it makes. An empty frel is computed.
func (w *Workspace) rulesFolded(op, name, rel, frel string, write, isDir bool) error {
	if rel == "." {
		if write {
			return &PathError{Op: op, Path: name, Rule: "the workspace root itself cannot be written", Err: ErrDeniedByRule}
		}
		return nil
	}
	// The rules that refuse match in any case, as the protected names do: a
	// case-insensitive file system opens Secrets/a as secrets/a, and
	// server.PEM is a PEM file too (TestAttackForbidGlobsIgnoreCase); in
	// Unicode's, so keys/id_rſa is id_rsa too; and as a file system that
	// folds normalisation, ignorable code points and trailing dots opens
	// names, so .pgpaß, cafe\u0301 and .env\u200b are .pgpass, café and
	// .env (foldCase, TestAttackS18NamesASpellingInsensitiveFileSystemOpensAsRefused).
	if frel == "" {
		frel = foldCase(rel)
	}
	forbids := func(g string) bool { return w.forbids(g, rel, frel) }
	for _, g := range w.deny {
		if forbids(g) {
			return &PathError{Op: op, Path: name, Rule: "deny " + w.ruleName(g), Err: ErrDeniedByRule}
		}
	}
	if !write {
		for _, g := range w.secrets {
			if forbids(g) {
				return &PathError{Op: op, Path: name, Rule: "secret " + w.ruleName(g) + " (sandbox.WithSecrets)", Err: ErrDeniedByRule}
			}
		}
	}
	if len(w.hide) > 0 {
		abs := w.abs(rel)
		for _, h := range w.hide {
			if r := h(rel, abs); r != "" {
				return &PathError{Op: op, Path: name, Rule: r + " (canonical path " + strconv.Quote(rel) + ")", Err: ErrHidden}
			}
		}
	}
	if len(w.allow) > 0 {
		ok := false
		for _, g := range w.allow {
			// A directory on the way to what g names is let through (to
			// list it, or to make it), never a file in it.
			if Match(g, rel) || isDir && couldMatchBelow(g, rel) {
				ok = true
				break
			}
		}
		if !ok {
			return &PathError{Op: op, Path: name, Rule: "not matched by any allow glob " + strconv.Quote(strings.Join(w.allow, ", ")), Err: ErrDeniedByRule}
		}
	}
	if write {
		if c, ok := w.protectedIn(rel, frel); ok {
			return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("%q is protected at any depth (a version-control directory; WithProtectedNames); canonical path %q", c, rel), Err: ErrProtected}
		}
		if w.gitDir != "" && (within(w.gitDir, rel) || within(foldCase(w.gitDir), frel)) {
			return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("%q is the repository's git directory, which .git names (protected as .git is; WithProtectedNames); canonical path %q", w.gitDir, rel), Err: ErrProtected}
		}
		for _, g := range w.denyWrite {
			if forbids(g) {
				return &PathError{Op: op, Path: name, Rule: "deny-write " + w.ruleName(g), Err: ErrDeniedByRule}
			}
		}
	}
	return nil
}

// protectedIn returns the first component of rel that is a protected name,
// folded (foldCase) or as an 8.3 short name of it (shortNameOf). frel is
// rel folded: foldCase folds each component alone, so the two have the
// same components in the same places.
func (w *Workspace) protectedIn(rel, frel string) (string, bool) {
	comps := strings.Split(rel, "/")
	for i, fc := range strings.Split(frel, "/") {
		c := fc
		if i < len(comps) {
			c = comps[i]
		}
		for _, n := range w.protected {
			if fn := foldCase(n); fc == fn || shortNameOf(fc, fn) {
				return c, true
			}
		}
	}
	return "", false
}

// shortNameOf reports whether the folded component fc is an 8.3 short
// name that vfat or NTFS may give a file named fn (folded): its name
// without leading dots, spaces and inner dots, cut to leave room for "~"
// and a number, then the number, then up to three letters of its
// extension (GIT~1 for .git, GIT~2 when GIT~1 was taken). Linux's vfat
// and ntfs3 open a name by its short name too, so on such a workspace
// GIT~1/config is .git/config (TestAttackS18ProtectedNameByItsShortName);
// git refuses git~1 for the same reason. Windows's hashed short names
// (after four of one name) are not derived.
func shortNameOf(fc, fn string) bool {
	if strings.IndexByte(fc, '~') < 0 {
		return false
	}
	base, ext, _ := strings.Cut(fc, ".")
	tilde := strings.LastIndexByte(base, '~')
	num := base[tilde+1:]
	if tilde < 0 || num == "" || num[0] == '0' || strings.Trim(num, "0123456789") != "" {
		return false
	}
	nb, ne := strings.TrimLeft(fn, ". "), ""
	if i := strings.LastIndexByte(nb, '.'); i >= 0 {
		nb, ne = nb[:i], nb[i+1:]
	}
	nb = strings.NewReplacer(" ", "", ".", "").Replace(nb)
	ne = strings.ReplaceAll(ne, " ", "")
	ne = ne[:min(len(ne), 3)]
	keep := min(len(nb), 8-1-len(num))
	return keep > 0 && base[:tilde] == nb[:keep] && ext == ne
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
// ok is false when /proc is not available. When /proc is there but cannot
// name the file (a path longer than PATH_MAX: ENAMETOOLONG), the file is
// refused: what it really is cannot be judged.
func (w *Workspace) realRel(op, name string, f *os.File) (rel string, ok bool, err error) {
	target, lerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if lerr != nil {
		if _, serr := os.Stat("/proc/self/fd"); errors.Is(serr, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", true, &PathError{Op: op, Path: name, Rule: "cannot tell which file was opened, to judge it (/proc/self/fd: " + lerr.Error() + "); a path longer than PATH_MAX is refused", Err: ErrInvalidPath}
	}
	r, rerr := filepath.Rel(w.dir, target)
	if rerr != nil || (r != "." && !filepath.IsLocal(r)) {
		return "", true, &PathError{Op: op, Path: name, Rule: "opened file lies outside the workspace (" + target + ")", Err: ErrOutsideWorkspace}
	}
	return filepath.ToSlash(r), true, nil
}

// openChecked opens name (following symlinks inside the root) for reading,
// and checks the opened file: rules on its real path, regular (unless
// wantDir), a single hard link. It returns the real path of what it opened
// (the canonical form, unless a symlink was swapped in since).
func (w *Workspace) openChecked(op, name string, wantDir bool) (*os.File, string, error) {
	rel, err := w.check(op, name, false)
	if err != nil {
		return nil, "", err
	}
	w.lookedUp(rel)
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
	} else if ok && (real != rel || len(w.allow) > 0) {
		// Judged again on what was opened: a symlink swapped in, or (for
		// the allow globs) a directory swapped for a file.
		if err := w.rules(op, name, real, false, fi.IsDir()); err != nil {
			return fail(err)
		}
		// A swap since the resolution: what was opened is real, and what
		// the caller judges below it (a listing's entries) is judged there.
		rel = real
	}
	if wantDir {
		if !fi.IsDir() {
			return fail(&PathError{Op: op, Path: name, Rule: "a directory is needed", Err: ErrNotRegular})
		}
		return f, rel, nil
	}
	if err := openable(op, name, fi); err != nil {
		return fail(err)
	}
	return f, rel, nil
}

// openable refuses an opened file (fi) that is not a regular file, or has
// other hard links.
func openable(op, name string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &PathError{Op: op, Path: name, Rule: "only regular files can be opened, this is " + fi.Mode().Type().String(), Err: ErrNotRegular}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("file has %d hard links (device %d, inode %d)", st.Nlink, st.Dev, st.Ino), Err: ErrHardLink}
	}
	return nil
}

// Open opens a regular file for reading. The caller closes it.
func (w *Workspace) Open(name string) (*os.File, error) {
	f, _, err := w.openChecked("open", name, false)
	return f, err
}

// OpenRel is Open that also returns the canonical path it opened
// ([Workspace.Resolve]), saving a second resolution.
func (w *Workspace) OpenRel(name string) (*os.File, string, error) {
	return w.openChecked("open", name, false)
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

// Stat returns the file info of name, following symlinks inside the
// workspace. What is stat'ed is the file really reached (opened with
// O_PATH, then judged on its real path), so a symlink swapped in since the
// check cannot show a refused file's size or mode.
func (w *Workspace) Stat(name string) (fs.FileInfo, error) {
	rel, err := w.check("stat", name, false)
	if err != nil {
		return nil, err
	}
	f, err := w.root.OpenFile(filepath.FromSlash(rel), oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, w.rootErr("stat", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, w.rootErr("stat", name, err)
	}
	if real, ok, err := w.realRel("stat", name, f); err != nil {
		return nil, err
	} else if ok && (real != rel || len(w.allow) > 0) {
		// A symlink swapped in, or (for the allow globs) a directory
		// swapped for a file, since the check.
		if err := w.rules("stat", name, real, false, fi.IsDir()); err != nil {
			return nil, err
		}
	}
	return fi, nil
}

// Lstat returns the file info of name without following a final symlink.
func (w *Workspace) Lstat(name string) (fs.FileInfo, error) {
	rel, err := w.lcheck("stat", name, false)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Lstat(filepath.FromSlash(rel))
	return fi, w.rootErr("stat", name, err)
}

// ReadDir lists a directory, sorted by name, leaving out entries the rules
// refuse. Symlinks are listed as symlinks, not followed.
func (w *Workspace) ReadDir(name string) ([]fs.DirEntry, error) {
	out, _, err := w.ReadDirHidden(name)
	return out, err
}

// ReadDirHidden is ReadDir that also returns how many entries the rules
// (deny and allow globs, [WithHide]) left out, so a listing can say so.
// Symlinks are listed (a link's name is judged, not its target: reading
// through it is judged when it happens). A directory of more than 65,536
// entries is refused ([ErrTooLarge]): a command can fill one with millions
// of empty files, which this process would hold all at once.
func (w *Workspace) ReadDirHidden(name string) ([]fs.DirEntry, int, error) {
	f, rel, err := w.openChecked("list", name, true)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	entries, err := readDirCapped("list", name, f)
	if err != nil {
		return nil, 0, err
	}
	out := entries[:0]
	hidden := 0
	for _, e := range entries {
		if w.rules("list", name, path.Join(rel, e.Name()), false, e.IsDir()) == nil {
			out = append(out, e)
		} else {
			hidden++
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, hidden, nil
}

// maxDirEntries bounds the entries of one directory that ReadDirHidden and
// Rename read. Go stats every entry of a directory opened in an os.Root:
// 300,000 empty files, which a sandboxed command makes in 8 s, held 111 MB
// and took 1.3 s per listing (TestAttackHugeDirectoryListing).
const maxDirEntries = 1 << 16

// readDirCapped reads the entries of the open directory f, refusing (with
// ErrTooLarge) a directory of more than maxDirEntries entries.
func readDirCapped(op, name string, f *os.File) ([]fs.DirEntry, error) {
	entries, err := f.ReadDir(maxDirEntries + 1)
	switch {
	case err == io.EOF:
		return nil, nil
	case err != nil:
		return nil, err
	case len(entries) > maxDirEntries:
		return nil, &PathError{Op: op, Path: name, Rule: fmt.Sprintf("a directory of more than %d entries is not read; give a smaller directory, or list it with a command", maxDirEntries), Err: ErrTooLarge}
	}
	return entries, nil
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
// directory, synced, then renamed over the file, so a refused or failed
// write leaves the old content whole. A symlink at name (inside the
// workspace) is written through: its target gets the data, and the link
// stays. A new file is made with perm (0 means 0644) through the process's
// umask, as [os.WriteFile] makes one. A file replaced keeps its mode (and,
// for a root process, its owner) with perm 0, or gets perm, set exactly:
// the umask is for files created.
func (w *Workspace) WriteFile(name string, data []byte, perm fs.FileMode) error {
	const op = "write"
	rel, err := w.check(op, name, true)
	if err != nil {
		return err
	}
	if w.maxFileSize > 0 && int64(len(data)) > w.maxFileSize {
		return w.tooLarge(op, name, int64(len(data)))
	}
	d, base, err := w.openParent(op, name, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	dfd := int(d.Fd())
	var st unix.Stat_t
	exists := false
	switch err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil:
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFDIR:
			return &PathError{Op: op, Path: name, Rule: "it is a directory", Err: ErrNotRegular}
		case unix.S_IFLNK:
			// Resolve followed every link; one here was swapped in since.
			return &PathError{Op: op, Path: name, Rule: "a symlink appeared at " + strconv.Quote(rel) + " while it was being written", Err: ErrDeniedByRule}
		default:
			return &PathError{Op: op, Path: name, Rule: "only regular files can be written", Err: ErrNotRegular}
		}
		if st.Nlink > 1 {
			return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("file has %d hard links (device %d, inode %d)", st.Nlink, st.Dev, st.Ino), Err: ErrHardLink}
		}
		exists = true
	case !errors.Is(err, unix.ENOENT):
		return &os.PathError{Op: op, Path: name, Err: err}
	}
	if perm == 0 {
		perm = 0o644
		if exists {
			perm = fs.FileMode(st.Mode & 0o777)
		}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := ".tb-" + hex.EncodeToString(rnd[:]) + ".tmp"
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &os.PathError{Op: op, Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	// A new file has the mode openat gave it, through the umask (and a
	// default ACL), as os.WriteFile's has: a process under umask 077 made
	// files 0644 when this set it exactly. The file replaced is another
	// matter: its mode (or perm) is set exactly, as the umask would take
	// bits from the temporary file that the old one had.
	var werr error
	if exists {
		werr = unix.Fchmod(fd, uint32(perm.Perm()))
	}
	if werr == nil && exists && os.Geteuid() == 0 {
		werr = unix.Fchown(fd, int(st.Uid), int(st.Gid))
	}
	if werr == nil {
		_, werr = f.Write(data)
	}
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
	rel, err := w.lcheck(op, name, true)
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

// MkdirAll creates a directory and its missing parents (perm 0 means 0755),
// at most 256 components deep ([ErrTooLarge]).
// It walks from the root one component at a time on directory descriptors
// (never following a link), and judges the write rules on the real path of
// each directory before it creates anything in it, so a directory swapped
// for a symlink (into .git, or a hidden directory) after the path was
// checked gets nothing created behind it.
func (w *Workspace) MkdirAll(name string, perm fs.FileMode) error {
	const op = "mkdir"
	rel, err := w.check(op, name, true)
	if err != nil {
		return err
	}
	// Each directory made is judged on its whole path, so the work grows
	// with the square of the depth: 1,356 components took 6 s and left as
	// many directories behind (TestAttackS20DeepMkdirAllIsRefused). No walk
	// of the workspace goes deeper than maxWalkDepth either.
	if depth := strings.Count(rel, "/") + 1; depth > maxWalkDepth {
		return &PathError{Op: op, Path: name, Rule: fmt.Sprintf("a path of %d components; directories are made at most %d deep", depth, maxWalkDepth), Err: ErrTooLarge}
	}
	if perm == 0 {
		perm = 0o755
	}
	d, err := w.root.OpenFile(".", os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return w.rootErr(op, name, err)
	}
	defer func() { d.Close() }()
	// done is the path walked, fdone it folded, one component at a time:
	// folding the whole path again at every directory cost the square of
	// its depth (TestAttackS20DeepMkdirAllIsLinear).
	done, fdone := ".", ""
	for c := range strings.SplitSeq(rel, "/") {
		realDir, ok, err := w.realRel(op, name, d)
		if err != nil {
			return err
		}
		if !ok {
			realDir = done // no /proc: the path walked, link-free by O_NOFOLLOW
		}
		if realDir != done { // moved while we walked: fold where it is now
			fdone = ""
			if realDir != "." {
				fdone = foldCase(realDir)
			}
		}
		fnext := foldCase(c)
		if fdone != "" {
			fnext = fdone + "/" + fnext
		}
		if err := w.rulesFolded(op, name, path.Join(realDir, c), fnext, true, true); err != nil {
			return err
		}
		dfd := int(d.Fd())
		if err := unix.Mkdirat(dfd, c, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return &os.PathError{Op: op, Path: name, Err: err}
		}
		fd, err := unix.Openat(dfd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				return &PathError{Op: op, Path: name, Rule: "a symlink or a file appeared at " + strconv.Quote(path.Join(realDir, c)) + " while the directory was being made", Err: ErrDeniedByRule}
			}
			return &os.PathError{Op: op, Path: name, Err: err}
		}
		d.Close()
		done, fdone = path.Join(realDir, c), fnext
		d = os.NewFile(uintptr(fd), done)
	}
	return nil
}

// Rename renames oldname to newname inside the workspace; both must pass the
// write rules. A symlink at either end is renamed, not followed. A
// directory is renamed only when every path below it passes the write rules
// under its old and its new name, so no hidden, denied or protected path is
// carried to a name no rule refuses (the refusal names none of them); one
// that holds a directory of more than 65,536 entries, or directories
// nested more than 256 deep, is refused ([ErrTooLarge]). What a concurrent
// process creates in it meanwhile is not judged.
func (w *Workspace) Rename(oldname, newname string) error {
	const op = "rename"
	oldRel, err := w.lcheck(op, oldname, true)
	if err != nil {
		return err
	}
	newRel, err := w.lcheck(op, newname, true)
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
	var st unix.Stat_t
	if err := unix.Fstatat(int(od.Fd()), obase, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		// A directory carries everything under it to the new name: each
		// path below must pass the write rules under both names.
		refused, err := w.refusedBelow(op, int(od.Fd()), obase, oldRel, newRel, 0)
		if err != nil {
			return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
		}
		if refused {
			return &PathError{Op: op, Path: oldname, Rule: "the directory holds paths the rules refuse to write (hidden, denied, protected or deny-write) under its old or its new name " + strconv.Quote(newRel) + "; a directory is moved only when nothing below it is refused", Err: ErrDeniedByRule}
		}
	}
	if err := unix.Renameat(int(od.Fd()), obase, int(nd.Fd()), nbase); err != nil {
		return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
	}
	return nil
}

// refusedBelow reports whether the write rules refuse any path below the
// directory name of dirfd, judged under the workspace-relative prefixes
// oldRel and newRel; depth is how far below the directory moved it is. It
// never follows a link. It holds a descriptor for each level, and up to
// renameBatch entries of each: a tree deeper than maxWalkDepth is refused.
func (w *Workspace) refusedBelow(op string, dirfd int, name, oldRel, newRel string, depth int) (bool, error) {
	if depth > maxWalkDepth {
		return false, &PathError{Op: op, Path: oldRel, Rule: fmt.Sprintf("a directory is moved only when nothing in it is nested more than %d directories deep (every path below it is judged); move its deeper directories first, or move it with a command", maxWalkDepth), Err: ErrTooLarge}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, err
	}
	d := os.NewFile(uintptr(fd), name)
	defer d.Close()
	for read := 0; ; {
		entries, err := d.ReadDir(renameBatch)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if read += len(entries); read > maxDirEntries {
			return false, &PathError{Op: op, Path: oldRel, Rule: fmt.Sprintf("a directory of more than %d entries is not read; give a smaller directory, or list it with a command", maxDirEntries), Err: ErrTooLarge}
		}
		for _, e := range entries {
			oldSub, newSub := joinRel(oldRel, e.Name()), joinRel(newRel, e.Name())
			if w.rules(op, oldSub, oldSub, true, e.IsDir()) != nil || w.rules(op, newSub, newSub, true, e.IsDir()) != nil {
				return true, nil
			}
			if e.IsDir() {
				if refused, err := w.refusedBelow(op, fd, e.Name(), oldSub, newSub, depth+1); refused || err != nil {
					return refused, err
				}
			}
		}
	}
}

// renameBatch is how many entries of a directory refusedBelow reads at a
// time: it goes down into each before it reads on.
const renameBatch = 512

// homeStores returns a glob, relative to dir, for each credential store
// ([DefaultHomeSecrets]) of each home directory that dir is or holds:
// $HOME, the process user's home, and the homes /etc/passwd gives its
// users of uid 1000 or more (a regular user's, on Linux). With dir at /home,
// alice's .ssh is "alice/.ssh/**", which matches the store and all in it.
// A home of "/" is none (a system user's), as for the commands' masks.
func homeStores(dir string) []string {
	homes := []string{os.Getenv("HOME")}
	if u, err := user.Current(); err == nil {
		homes = append(homes, u.HomeDir)
	}
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		homes = append(homes, passwdHomes(string(data))...)
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range homes {
		if !filepath.IsAbs(h) || filepath.Clean(h) == string(filepath.Separator) {
			continue
		}
		h = filepath.Clean(h)
		if r, err := filepath.EvalSymlinks(h); err == nil {
			h = r // dir is resolved too
		}
		rel, err := filepath.Rel(dir, h)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || seen[rel] {
			continue
		}
		seen[rel] = true
		prefix := ""
		if rel != "." {
			prefix = EscapeGlob(filepath.ToSlash(rel)) + "/"
		}
		for _, s := range DefaultHomeSecrets {
			out = append(out, prefix+EscapeGlob(s)+"/**")
		}
	}
	return out
}

// passwdHomes returns the home directories that the passwd(5) file data
// gives its users of uid 1000 or more, but nobody (65534).
func passwdHomes(data string) []string {
	var homes []string
	for line := range strings.Lines(data) {
		f := strings.Split(strings.TrimRight(line, "\r\n"), ":")
		if len(f) < 7 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if uid, err := strconv.ParseUint(f[2], 10, 32); err == nil && uid >= 1000 && uid != 65534 {
			homes = append(homes, f[5])
		}
	}
	return homes
}
