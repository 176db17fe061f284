package builtin

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// repoGuard is the engine the git tools run in: before each run it checks
// that git will read the workspace's own repository (ownRepository).
type repoGuard struct {
	sandbox.Sandbox
	dir string // the workspace's directory, symlink-free
}

// ownRepo returns sb guarded for the repository of ws.
func ownRepo(ws *sandbox.Workspace, sb sandbox.Sandbox) sandbox.Sandbox {
	return repoGuard{Sandbox: sb, dir: ws.Dir()}
}

// Workspace reports the engine's workspace, as the engine does (the shell
// tools place their working directory by it).
func (g repoGuard) Workspace() string {
	if w, ok := g.Sandbox.(interface{ Workspace() string }); ok {
		return w.Workspace()
	}
	return ""
}

// Run runs spec when the workspace's repository is its own.
func (g repoGuard) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Outcome, error) {
	if err := ownRepository(g.dir); err != nil {
		return nil, err
	}
	return g.Sandbox.Run(ctx, spec)
}

// ownRepository refuses the repository at dir/.git when git would read
// another one there, whose index, HEAD and history git_diff and git_log
// would show as the workspace's (each of its files, absent here, a
// deletion with its whole content): a .git file ("gitdir: ...") or
// symlink leading out of dir, or a commondir (the repository whose
// objects, refs and configuration a git directory shares) naming one
// outside. A linked worktree (git worktree add) and a submodule are let
// through: their git directory lies in another repository but names dir
// back (its gitdir file, its core.worktree), which a checkout cannot
// write there. A separate git directory (git init --separate-git-dir)
// outside dir names nothing back, and is refused as another repository
// would be. A workspace shaped as a bare repository is never read as one
// (GIT_DIR names dir/.git).
func ownRepository(dir string) error {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil // no repository: git says so
	}
	gitdir := dotgit
	switch {
	case fi.Mode()&fs.ModeSymlink != 0, fi.IsDir():
	case fi.Mode().IsRegular():
		line, err := firstLine(dotgit)
		target, ok := strings.CutPrefix(line, "gitdir:")
		if err != nil || !ok {
			return nil // git refuses it: "invalid gitfile format"
		}
		gitdir = strings.TrimSpace(target)
		if !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(dir, gitdir)
		}
	default:
		return nil
	}
	real, err := filepath.EvalSymlinks(gitdir)
	if err != nil {
		return nil // git cannot read it either
	}
	if !within(dir, real) {
		if namesBack(real, dir, dotgit) {
			return nil // a linked worktree or a submodule: its repository is the one it names
		}
		return repoRefusal(".git leads to the git directory "+real, "a repository outside the workspace")
	}
	if b, err := readSmallFile(filepath.Join(real, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(real, common)
		}
		if rc, err := filepath.EvalSymlinks(common); err == nil {
			common = rc
		}
		if !within(dir, filepath.Clean(common)) {
			return repoRefusal("its git directory's commondir names "+common, "the objects, refs and configuration of a repository outside the workspace")
		}
		if err := partsStayIn(dir, common); err != nil {
			return err
		}
	}
	return partsStayIn(dir, real)
}

// maxGitEntries bounds the entries partsStayIn reads of one directory of
// a git directory (its top, objects, objects/pack): a few dozen, 258 and a
// few packs in a repository git made.
const maxGitEntries = 4096

// partsStayIn refuses a git directory inside dir whose parts lead out of
// it: a symlink among its entries (objects, refs, packed-refs, index,
// HEAD), among the entries of objects (a fan-out directory, pack, info)
// or of objects/pack, or an alternates file naming another object store.
// Through them git reads another repository's history and files, as its
// own. A single loose object or ref linked out is not looked for: one
// needs its id, which only reading that repository tells.
func partsStayIn(dir, gitdir string) error {
	objects := filepath.Join(gitdir, "objects")
	for _, d := range []string{gitdir, objects, filepath.Join(objects, "pack")} {
		if what, err := linkOut(dir, d); err != nil {
			return err
		} else if what != "" {
			return repoRefusal(what, "another repository's objects or refs as its own")
		}
	}
	b, err := readSmallFile(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return nil
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		alt := strings.TrimSpace(line)
		if alt == "" || strings.HasPrefix(alt, "#") {
			continue
		}
		if strings.HasPrefix(alt, "\"") {
			return repoRefusal("objects/info/alternates names a quoted object store", "objects from outside the workspace")
		}
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(objects, alt)
		}
		if r, err := filepath.EvalSymlinks(alt); err == nil {
			alt = r
		}
		if !within(dir, filepath.Clean(alt)) {
			return repoRefusal("objects/info/alternates names the object store "+alt, "another repository's objects as its own")
		}
	}
	return nil
}

// linkOut returns what leads out of dir among the entries of the
// directory d: "" when nothing does (or d is not there).
func linkOut(dir, d string) (string, error) {
	f, err := os.OpenFile(d, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_DIRECTORY, 0)
	if err != nil {
		return "", nil // not there, or not a directory: git finds nothing through it
	}
	defer f.Close()
	entries, err := f.ReadDir(maxGitEntries + 1)
	if len(entries) > maxGitEntries {
		return "", repoRefusal(d+" holds more than "+strconv.Itoa(maxGitEntries)+" entries to check", "what they lead to, unchecked")
	}
	if err != nil && err != io.EOF {
		return "", nil
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		p := filepath.Join(d, e.Name())
		if t, err := filepath.EvalSymlinks(p); err == nil && !within(dir, t) {
			return p + " is a symlink to " + t, nil
		}
	}
	return "", nil
}

// repoRefusal is the error of a repository ownRepository refuses.
func repoRefusal(what, reads string) *tool.Error {
	return tool.Errorf(tool.CodeFilesystemPolicy,
		"the workspace's repository is not its own: %s, so git would read %s; the git tools read only a repository inside the workspace (or a linked worktree or submodule checked out there)", what, reads)
}

// namesBack reports whether the git directory real, outside dir, belongs
// to the checkout at dir: a linked worktree's names dir/.git in its gitdir
// file, a submodule's names dir as its core.worktree.
func namesBack(real, dir, dotgit string) bool {
	if b, err := readSmallFile(filepath.Join(real, "gitdir")); err == nil {
		p := strings.TrimSpace(string(b))
		if filepath.Clean(p) == dotgit {
			return true
		}
		if rp, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && filepath.Join(rp, filepath.Base(p)) == dotgit {
			return true
		}
	}
	wt, ok := configWorktree(filepath.Join(real, "config"))
	if !ok {
		return false
	}
	if !filepath.IsAbs(wt) {
		wt = filepath.Join(real, wt)
	}
	rw, err := filepath.EvalSymlinks(wt)
	return err == nil && rw == dir
}

// configWorktree returns core.worktree of the git configuration file p, as
// git writes it for a submodule ("\tworktree = ../../../sub" under
// [core]); a value it cannot read plainly (quoted, continued) is not
// taken.
func configWorktree(p string) (string, bool) {
	b, err := readSmallFile(p)
	if err != nil {
		return "", false
	}
	core := false
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			core = strings.EqualFold(strings.TrimSpace(strings.Trim(line, "[]")), "core")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if core && ok && strings.EqualFold(strings.TrimSpace(k), "worktree") {
			v = strings.TrimSpace(v)
			if v == "" || strings.ContainsAny(v, "\"\\;#") {
				return "", false
			}
			return v, true
		}
	}
	return "", false
}

// maxRepoFile bounds what ownRepository reads of a file of a repository
// (a gitfile, gitdir, commondir, config): a checkout could make it huge.
const maxRepoFile = 64 << 10

// readSmallFile reads up to maxRepoFile bytes of a regular file. It opens
// without blocking: a FIFO in its place would hold the call in open.
func readSmallFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fs.ErrInvalid
	}
	return io.ReadAll(io.LimitReader(f, maxRepoFile))
}

// firstLine returns the first line of the file p, without its line end.
func firstLine(p string) (string, error) {
	b, err := readSmallFile(p)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimRight(line, "\r"), nil
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
