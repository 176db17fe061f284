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
// --separate-git-dir: "gitdir: .repo"). bwrap and gvisor bind each
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
		if name == ".git" && fi.Mode().IsRegular() {
			if d := gitDirIn(ws); d != "" {
				out = append(out, d)
			}
		}
	}
	return out
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
