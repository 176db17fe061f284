package sandbox

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// repoDirs returns the workspace's own version-control directories,
// workspace-relative and slash-separated: the [DefaultProtectedNames] at
// its top (.git, .hg, .svn) that exist as a directory or a file (a
// worktree's or submodule's .git file naming its git directory), and the
// directory a .git file names when that lies in the workspace (git init
// --separate-git-dir: "gitdir: .repo"), and the .git of each submodule
// that .git/modules records (submoduleGitFiles). bwrap and gvisor bind each
// read-only over itself: a command wrote .git/hooks/pre-commit, a
// core.fsmonitor or core.hooksPath into .git/config (Mercurial's .hg/hgrc
// has [hooks] too), or moved .git aside and made a new one, and the
// repository's owner's next git status or git commit on the host ran it
// outside any sandbox (TestAttackS21CommandPlantsGitHooks,
// TestAttackS25SeparateGitDirInTheWorkspace; published against Claude
// Code's and Codex's sandboxes, which keep these read-only). A mount point
// cannot be renamed or removed, so the directory stays where git looks for
// it.
//
// A symbolic link is left out: bound where it leads, it could still be
// replaced by a link to a directory the command writes. So is a name that is
// missing: a command can make a .git (git init), as the file tools can.
//
// None with [WithWritableRepository].
func (c *config) repoDirs(ws string) []string {
	if c.repoWritable {
		return nil
	}
	var out []string
	for _, name := range DefaultProtectedNames {
		fi, err := os.Lstat(filepath.Join(ws, name))
		if err != nil || !(fi.IsDir() || fi.Mode().IsRegular()) {
			continue
		}
		out = append(out, name)
		if name != ".git" {
			continue
		}
		gitDir := name // the repository's git directory, in the workspace
		if fi.Mode().IsRegular() {
			gitDir = gitDirIn(ws)
			if gitDir == "" {
				continue
			}
			out = append(out, gitDir)
		}
		out = append(out, submoduleGitFiles(ws, gitDir)...)
		out = append(out, worktreeGitFiles(ws, gitDir)...)
	}
	return out
}

// worktreeGitFiles returns the .git files of the linked worktrees that the
// git directory gitDir (workspace-relative) records, workspace-relative:
// each worktrees/NAME/gitdir names one, when that lies in the workspace,
// outside gitDir, and is a regular file reached without a symbolic link.
// A worktree in the workspace (git worktree add .worktrees/wt, as coding
// agents make them; a bare clone's branches beside .bare) runs, for the
// owner's git status there on the host, what the git directory its .git
// file names says: a command pointed it at one of its own with a
// core.fsmonitor (TestAttackS26CommandRewritesAWorktreeGitFile).
func worktreeGitFiles(ws, gitDir string) []string {
	ents, err := os.ReadDir(filepath.Join(ws, filepath.FromSlash(gitDir), "worktrees"))
	if err != nil {
		return nil
	}
	var out []string
	for i, e := range ents {
		if i == maxSubmodules {
			break
		}
		f, err := os.Open(filepath.Join(ws, filepath.FromSlash(gitDir), "worktrees", e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
		f.Close()
		p := filepath.Clean(strings.TrimRight(line, "\r\n"))
		rel, err := filepath.Rel(ws, p)
		if err != nil || !filepath.IsLocal(rel) {
			// git records the path it resolved: the workspace's real one.
			if real, rerr := filepath.EvalSymlinks(ws); rerr == nil {
				rel, err = filepath.Rel(real, p)
			}
		}
		if !filepath.IsAbs(p) || err != nil || !filepath.IsLocal(rel) || within(gitDir, filepath.ToSlash(rel)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if g, err := openBeneathDir(ws, rel); err == nil {
			fi, serr := g.Stat()
			g.Close()
			if serr == nil && fi.Mode().IsRegular() && path.Base(rel) == ".git" {
				out = append(out, rel)
			}
		}
	}
	return out
}

// maxSubmodules bounds the submodules submoduleGitFiles reads for one run.
const maxSubmodules = 256

// submoduleGitFiles returns the .git files (or directories) of the
// submodules that workspace ws's own git directory (gitDir, workspace-
// relative: .git, or the one a .git file names) records, workspace-
// relative: each module directory below gitDir/modules (nested ones too)
// whose config names its work tree (core.worktree), when that lies in the
// workspace outside gitDir and its .git is reached without a symbolic link.
// git status at the top runs git status in each submodule, which follows
// the submodule's .git file: a command that pointed it at a git directory
// of its own with a core.fsmonitor had the owner's next git status on the
// host run it (TestAttackS26CommandRewritesASubmoduleGitFile). The record
// is read from .git, which the command cannot change; a submodule that was
// never initialised (no module directory) is not covered.
func submoduleGitFiles(ws, gitDir string) []string {
	var out []string
	seen := 0
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		ents, err := os.ReadDir(filepath.Join(ws, filepath.FromSlash(dir)))
		if err != nil || depth > 8 {
			return
		}
		for _, e := range ents {
			if !e.IsDir() || seen >= maxSubmodules {
				continue
			}
			mod := path.Join(dir, e.Name())
			if wt := gitWorktree(filepath.Join(ws, filepath.FromSlash(mod), "config")); wt != "" {
				seen++
				if g := submoduleGitFile(ws, gitDir, mod, wt); g != "" {
					out = append(out, g)
				}
				walk(path.Join(mod, "modules"), depth+1)
				continue
			}
			walk(mod, depth+1) // a module name with a slash: .git/modules/libs/x
		}
	}
	walk(path.Join(gitDir, "modules"), 0)
	return out
}

// submoduleGitFile returns the .git of the work tree wt (core.worktree,
// relative to the module directory mod), workspace-relative, or "".
func submoduleGitFile(ws, gitDir, mod, wt string) string {
	p := path.Clean(filepath.ToSlash(wt))
	if !path.IsAbs(p) {
		p = path.Join(mod, p)
	} else if rel, err := filepath.Rel(ws, filepath.FromSlash(p)); err == nil {
		p = filepath.ToSlash(rel)
	} else {
		return ""
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) || within(gitDir, p) {
		return ""
	}
	g := path.Join(p, ".git")
	f, err := openBeneathDir(ws, g)
	if err != nil {
		return ""
	}
	f.Close()
	return g
}

// gitWorktree returns core.worktree from the git config file at name, or
// "" (no such file, no such key). It reads the simple form git writes
// itself ("[core]" then "worktree = PATH"), quotes removed.
func gitWorktree(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	core := false
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			core = strings.EqualFold(strings.TrimSpace(strings.Trim(line, "[]")), "core")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if core && ok && strings.EqualFold(strings.TrimSpace(k), "worktree") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// gitDirIn returns the directory that workspace ws's .git file names
// ("gitdir: PATH", relative to ws or absolute), workspace-relative, when
// it lies in ws below its top and is a directory reached without a
// symbolic link on the way; "" otherwise (outside the workspace, it is out
// of the command's reach already).
func gitDirIn(ws string) string {
	// Not through a link, and not blocking: a command can leave a FIFO
	// named .git, which the file tools' OpenWorkspace reads too.
	f, err := os.OpenFile(filepath.Join(ws, ".git"), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	p, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "gitdir: ")
	if !ok || p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(ws, p)
		if err != nil {
			return ""
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return ""
	}
	d, err := openBeneathDir(ws, p)
	if err != nil {
		return ""
	}
	defer d.Close()
	if fi, err := d.Stat(); err != nil || !fi.IsDir() {
		return ""
	}
	return p
}
