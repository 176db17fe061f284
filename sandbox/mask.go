package sandbox

import (
	"cmp"
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
	"sync"
	"syscall"

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
	mem := &w.mask
	mem.mu.Lock()
	defer mem.mu.Unlock()
	fd, err := unix.Open(w.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: w.dir, Err: err}
	}
	m := masker{w: w, before: mem.dirs, after: map[dirID]maskedDir{}, linked: map[dirID]int64{}}
	for id, born := range mem.files {
		m.linked[id] = born
	}
	err = m.walk(fd, "", 0)
	if err == nil && (len(m.linked) > 0 || m.incomplete) {
		err = m.otherLinks()
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: listing what the workspace's rules hide from a command: %w", err)
	}
	mem.dirs, mem.files = m.after, m.linkedAfter
	slices.Sort(m.masked)
	return m.masked, nil
}

// A rule names a path, and a file has as many paths as hard links: a
// command that found no .env yet made an empty one and a hard link to it
// (ln .env notes.txt); the developer then put the keys in .env where it
// was (echo KEY=... >> .env, an editor that keeps a file's links), and
// the next command, whose masks covered .env, read notes.txt
// (TestAttackS33MaskedFileThroughAHardLink). So each file that a masked
// path is or holds and that has other links is masked under its other
// names in the workspace too, and remembered by identity: when the
// masked name is removed or replaced (an editor that saves by renaming
// a new file over it), the other names still hold what it held.

// A rule names a path, not what is there: a command that renamed the
// directory above a masked path (mv conf c2, with conf/secrets hidden)
// moved the hidden files to a name no rule names, and the next command
// read them (TestAttackS21rBashRenamesTheParentOfAMaskedPath). A masked
// path itself cannot be renamed in the run (it is a mount point: EBUSY),
// nor linked (EXDEV), so what it holds leaves its name only with the
// directory that holds it. Each workspace remembers, by identity, the
// directories that held masked paths and their names, and masks those
// names wherever the directory has gone since.
type (
	// dirID identifies a directory whatever its name.
	dirID struct{ dev, ino uint64 }
	// maskedDir is a directory that held masked names: rel is where it
	// was when a rule named them (the rules judge it there again).
	maskedDir struct {
		rel   string
		names []string
	}
	// maskMemory is what a workspace's last walk masked, by directory,
	// and the files it masked for a hard link (otherLinks), with their
	// birth times (fileStat).
	maskMemory struct {
		mu    sync.Mutex // one walk at a time
		dirs  map[dirID]maskedDir
		files map[dirID]int64
	}
)

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
	before  map[dirID]maskedDir // the last walk's (maskMemory)
	after   map[dirID]maskedDir // this walk's
	// linked are the files (by device and inode) a masked path is or
	// holds that have other hard links, and those the last walk masked
	// for one; linkedAfter those this walk masked for one (otherLinks);
	// each with its birth time (fileStat).
	linked, linkedAfter map[dirID]int64
	below               int // entries below masked directories (linksBelow)
	// incomplete is set when linksBelow stopped at its bound: otherLinks
	// then masks every file of the workspace that has other hard links.
	incomplete bool
}

// linkedFile adds the entry name of the directory open as fd to
// m.linked when it is a regular file with more than one hard link (where
// it leads, with flags 0 rather than AT_SYMLINK_NOFOLLOW: a masked
// symlink is masked there).
func (m *masker) linkedFile(fd int, name string, flags int) {
	if id, nlink, born, ok := fileStat(fd, name, flags); ok && nlink > 1 {
		m.linked[id] = born
	}
}

// linksBelow adds to m.linked the regular files of more than one hard
// link in the masked directory open as fd (dir in the workspace), and
// below it; it closes fd. What is hidden whole was never walked, and
// counts toward no bound of the walk: past MaxTrackedEntries entries or
// MaxTrackedDepth levels below masked directories it looks no further
// (a masked directory of more files was masked before, and still is),
// and sets m.incomplete: a file it did not reach may have another name
// (a command that made conf/secrets before any rule hid it put key there
// as a symlink to a file 260 levels down, linked out as notes.txt, and
// the next command read notes.txt once the developer wrote
// conf/secrets/key: TestAttackS33ReviewLinkPastTheWalksBoundBelowAMaskedDirectory).
func (m *masker) linksBelow(fd int, dir string, depth int) error {
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	if depth > MaxTrackedDepth {
		m.incomplete = true
		return nil
	}
	for {
		entries, err := f.ReadDir(1024)
		if err != nil {
			return nil // io.EOF, or a directory gone or unreadable
		}
		for _, e := range entries {
			if m.below++; m.below > MaxTrackedEntries {
				m.incomplete = true
				return nil
			}
			switch {
			case e.Type().IsRegular():
				m.linkedFile(fd, e.Name(), unix.AT_SYMLINK_NOFOLLOW)
			case e.IsDir():
				_ = m.openBelow(fd, path.Join(dir, e.Name()), e.Name(), depth, m.linksBelow)
			}
		}
	}
}

// linksThrough hands the directory that the masked symlink rel leads to,
// when that lies in the workspace, to linksBelow: it is masked there
// whole, as a masked directory is. conf/secrets -> ../store, with
// ln store/key notes.txt made by a command before the developer wrote
// conf/secrets/key: the next command read notes.txt
// (TestAttackS33ReviewLinkOutOfASymlinkedMaskedDirectory). One that
// leads out of the workspace is not looked into: no command can link a
// file there to a name in the workspace (EXDEV, EROFS).
func (m *masker) linksThrough(rel string, depth int) {
	t, err := filepath.EvalSymlinks(filepath.Join(m.w.dir, filepath.FromSlash(rel)))
	if err != nil || !beneath(m.w.dir, t) {
		return
	}
	sub, err := unix.Open(t, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return // a file (linkedFile), gone, or unreadable: masked as before
	}
	_ = m.linksBelow(sub, rel, depth+1)
}

// openBelow opens the directory name of the directory open as fd, rel in
// the workspace, without following a link, and hands it to walk; one
// gone, or replaced by a file or a link since it was listed, is skipped.
func (m *masker) openBelow(fd int, rel, name string, depth int, walk func(int, string, int) error) error {
	sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		return nil
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: rel, Err: err}
	}
	return walk(sub, rel, depth+1)
}

// otherLinks walks the workspace again and masks each regular file, not
// at or below a masked path, that is one of m.linked (see Masked), or,
// where linksBelow stopped at its bound (m.incomplete), that has more
// than one hard link: a pair no rule names is masked then too.
func (m *masker) otherLinks() error {
	fd, err := unix.Open(m.w.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: m.w.dir, Err: err}
	}
	hidden := map[string]bool{}
	for _, p := range m.masked {
		hidden[p] = true
	}
	m.entries, m.linkedAfter = 0, map[dirID]int64{}
	var walk func(fd int, dir string, depth int) error
	walk = func(fd int, dir string, depth int) error {
		f := os.NewFile(uintptr(fd), cmp.Or(dir, "."))
		defer f.Close()
		if depth > MaxTrackedDepth {
			return errTooDeep
		}
		for {
			entries, err := f.ReadDir(1024)
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
				switch {
				case hidden[rel]:
				case e.IsDir():
					if err := m.openBelow(fd, rel, e.Name(), depth, walk); err != nil {
						return err
					}
				case e.Type().IsRegular():
					id, nlink, born, ok := fileStat(fd, e.Name(), unix.AT_SYMLINK_NOFOLLOW)
					if !ok {
						continue
					}
					// One of m.linked, unless its inode was taken by a
					// file born since.
					was, linked := m.linked[id]
					linked = linked && (was == 0 || born == 0 || was == born)
					if !linked && (!m.incomplete || nlink < 2) {
						continue
					}
					if len(m.masked) == MaxMasked {
						return errTooManyMasked
					}
					m.masked = append(m.masked, rel)
					m.linkedAfter[id] = born
				}
			}
		}
	}
	return walk(fd, "", 0)
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
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: cmp.Or(dir, "."), Err: err}
	}
	id := dirID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	// Where the directory still is where its names were masked, the rules
	// judge them again (a relaxed policy unmasks them); moved, its masked
	// names stay masked under the new path.
	held := m.before[id]
	if held.rel == dir {
		held = maskedDir{rel: dir}
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
			if slices.Contains(held.names, e.Name()) || m.w.masked(rel) {
				if len(m.masked) == MaxMasked {
					return errTooManyMasked
				}
				m.masked = append(m.masked, rel)
				d := m.after[id]
				d.rel, d.names = cmp.Or(held.rel, dir), append(d.names, e.Name())
				m.after[id] = d
				switch {
				case e.Type().IsRegular():
					m.linkedFile(fd, e.Name(), unix.AT_SYMLINK_NOFOLLOW)
				case e.Type()&fs.ModeSymlink != 0:
					m.linkedFile(fd, e.Name(), 0)
					m.linksThrough(rel, depth)
				case e.IsDir():
					// One this program cannot read is masked as before.
					_ = m.openBelow(fd, rel, e.Name(), depth, m.linksBelow)
				}
				continue
			}
			if !e.IsDir() {
				continue
			}
			if err := m.openBelow(fd, rel, e.Name(), depth, m.walk); err != nil {
				return err
			}
		}
	}
}

// maskTargets turns the masked paths of a run in workspace ws into where
// the engine mounts over them, each with whether it is a directory: a
// path that is a symlink is masked where it leads (a mount at a link
// lands on its target), a path gone since it was listed is left out, and
// so is one that leads out of ws to the system's programs (systemPath).
func maskTargets(ws string, mask []string) (dirs, files []string) {
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		real = ws
	}
	for _, m := range mask {
		p := filepath.Join(ws, filepath.FromSlash(m))
		if t, err := filepath.EvalSymlinks(p); err == nil {
			p = t
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case !beneath(real, p) && systemPath(p):
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

// systemPath reports whether the absolute path p is or holds a directory
// of systemDirs, or lies in one of the system's programs and libraries
// (systemDirs but / and /etc): a mask there stops every command. A
// command that planted .env -> /usr (or /, or /usr/lib) under a rule
// hiding **/.env had every next run mask it, and none started
// (TestAttackS33ReviewMaskedSymlinkToTheSystemsPrograms). What lies there
// is the system's, read-only, and no secret.
func systemPath(p string) bool {
	return slices.ContainsFunc(systemDirs, func(s string) bool {
		return beneath(p, s) || s != "/" && s != "/etc" && beneath(s, p)
	})
}

// within reports whether the workspace-relative path p is dir or lies
// below it.
func within(dir, p string) bool {
	dir, p = path.Clean(dir), path.Clean(p)
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// beneath reports whether the clean absolute path p is dir or lies below
// it: within, for paths already clean (landlock's allowAllBut asks it of
// every entry it walks).
func beneath(dir, p string) bool {
	return p == dir || dir == "/" || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// maxMaskParents bounds the directories maskParents lists for one run.
const maxMaskParents = 4 * MaxMasked

// maskParents lists the directories of workspace ws above the masked
// paths (not ws itself, a mount point already), workspace-relative,
// shallowest first. The engines bind each over itself, from where the
// workspace is bound from, before the masks: a mount point cannot be
// renamed (EBUSY), so no command moves a hidden path out from under its
// rule by renaming the directory above it (mv conf c2, with conf/secrets
// hidden: the file tools read c2/secrets/key afterwards, and the next
// command too, TestAttackS21rBashRenamesTheParentOfAMaskedPath). A
// directory that is no longer one, or is a symlink now, is left out; past
// maxMaskParents the rest are (Workspace.Masked still follows a renamed
// directory for the commands). So is one at or below a masked path, which
// its mask hides whole, and one at or below a directory of repo (repoDirs,
// bound read-only: nothing in it can be renamed). Bound writable, those
// showed what the mask hides and made .git writable in gvisor, which
// mounts the shallowest destinations first, whatever the order given
// (TestAttackS25GVisorNestedMaskShowsTheMaskedDirectory,
// TestAttackS25GVisorMaskInsideGitLeavesHooksWritable).
func maskParents(ws string, mask, repo []string) []string {
	masked := map[string]bool{}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		real = ws
	}
	for _, m := range mask {
		masked[path.Clean(m)] = true
		// Where a masked symlink leads in the workspace is hidden whole
		// too: a path below it pinned its parents there, and gvisor, which
		// mounts the deeper binds over the mask, showed them
		// (TestAttackS33ReviewPinnedParentBelowASymlinkedMask).
		if t, err := filepath.EvalSymlinks(filepath.Join(ws, filepath.FromSlash(m))); err == nil {
			if rel, err := filepath.Rel(real, t); err == nil && rel != "." && filepath.IsLocal(rel) {
				masked[filepath.ToSlash(rel)] = true
			}
		}
	}
	hidden := func(m string) bool { // below another masked path
		for d := path.Dir(m); d != "."; d = path.Dir(d) {
			if masked[d] {
				return true
			}
		}
		return false
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range mask {
		if hidden(path.Clean(m)) {
			continue // its parents at or below that path: hidden whole
		}
		for d := path.Dir(path.Clean(m)); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if !slices.ContainsFunc(repo, func(r string) bool { return within(r, d) }) {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
	})
	kept := out[:0]
	for _, d := range out {
		if len(kept) == maxMaskParents {
			break
		}
		if fi, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(d))); err == nil && fi.IsDir() {
			kept = append(kept, d)
		}
	}
	return kept
}

// masks returns where bwrap and gvisor mount an empty, read-only directory
// or file for a run in workspace ws ("" for none) as user cred: over what
// the workspace hides (mask, Spec.Mask) and over the home directory's
// credential stores (homeMasks), and over the program's runtime directory
// and temporary directories where they lie outside the directories both
// engines replace (runtimeDirMask, programTmpDirs). They go after the
// workspace's own binds. What the workspace hides is masked also where
// another mount of the host shows it (maskedElsewhere).
func (c *config) masks(ws string, mask []string, cred *syscall.Credential) (dirs, files []string) {
	dirs, files = maskTargets(ws, mask)
	hdirs, hfiles := c.homeMasks(ws, cred)
	if d := runtimeDirMask(ws, cred); d != "" {
		hdirs = append(hdirs, d)
	}
	for _, t := range programTmpDirs() {
		if d := hostDirMask(t, ws, cred); d != "" && !slices.ContainsFunc(hdirs, func(h string) bool { return beneath(h, d) }) {
			hdirs = append(hdirs, d)
		}
	}
	if len(dirs)+len(files) > 0 {
		// Not those inside another masked directory, hidden whole: bwrap
		// mounts the directories first, and failed to make a file's
		// mount point in the program's masked $TMPDIR, read-only, where
		// another mount showed the workspace, and in the directory a
		// masked symlink led to where another rule named a file in it
		// (TestAttackS33ReviewMaskedFileBelowASymlinkedMaskedDirectory).
		odirs, ofiles := maskedElsewhere(slices.Concat(dirs, files), cred)
		// But a directory above the workspace (a masked symlink that
		// leads there) covers nothing in it: gvisor mounts the deeper
		// workspace over it, and ran with no mask in the workspace
		// (TestAttackS33ReviewMaskedSymlinkAboveTheWorkspace).
		real, err := filepath.EvalSymlinks(ws)
		if err != nil {
			real = ws
		}
		all := slices.DeleteFunc(slices.Concat(dirs, hdirs, odirs), func(d string) bool {
			return ws != "" && d != real && beneath(d, real)
		})
		covered := func(p string) bool {
			return slices.ContainsFunc(all, func(d string) bool { return d != p && beneath(d, p) })
		}
		dirs = slices.DeleteFunc(slices.Concat(dirs, odirs), covered)
		files = slices.DeleteFunc(slices.Concat(files, ofiles), covered)
	}
	return append(dirs, hdirs...), append(files, hfiles...)
}

// maskedElsewhere returns the other places where the host's mounts show
// paths (a run's mask targets in the workspace, otherPaths), directories
// and files apart: none in a directory both engines replace (out of
// sight already), none that is a symbolic link, none the run's user cred
// cannot reach (bwrap, started as that user, could not mount there).
// bwrap and gvisor bind the host's mounts with its root: a host that
// also showed the workspace, or a directory above it, elsewhere (a bind
// mount in fstab, a project bound into /srv for a service) showed
// Spec.Mask's paths there, and a command read them
// (TestAttackS33MaskedPathThroughAnotherMount). Only the paths' own other
// places: what a mount below one shows is the host's (a build root in a
// masked directory with /usr bound into it had /usr masked, and no
// command started: TestAttackS33ReviewMountBelowAMaskedDirectoryMasksTheHost).
func maskedElsewhere(paths []string, cred *syscall.Credential) (dirs, files []string) {
	for _, p := range otherPathsBut(mountTable(), paths, paths) {
		fi, err := os.Lstat(p)
		switch {
		case err != nil || fi.Mode()&os.ModeSymlink != 0:
		case slices.ContainsFunc(replacedDirs, func(r string) bool { return beneath(r, p) }):
		case cred != nil && unsearchableAncestor(p, cred.Uid, cred.Gid) != "":
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

// runtimeDir returns the program's runtime directory ($XDG_RUNTIME_DIR,
// symlinks resolved) when it is one by the XDG rules, a directory that only
// its owner may enter (mode 0700), and "" otherwise: a value naming a
// shared directory (XDG_RUNTIME_DIR=/tmp) is not hidden, which would hide
// that directory from every command. It holds what a session's daemons
// hand out: podman's registry login (containers/auth.json), the ssh-agent's,
// gpg-agent's and keyring's sockets, the session bus, gvfs' mounts of
// remote shares (TestAttackS29CommandReadsTheUsersRuntimeDir).
func runtimeDir() string {
	d := os.Getenv("XDG_RUNTIME_DIR")
	if !filepath.IsAbs(d) {
		return ""
	}
	r, err := filepath.EvalSymlinks(d)
	if err != nil || r == "/" {
		return ""
	}
	fi, err := os.Stat(r)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return ""
	}
	return r
}

// runtimeDir's usual home: one runtime directory per user, made by
// systemd-logind (/run/user/UID).
const runtimeDirs = "/run/user"

// replacedDirs are the directories bwrap and gvisor mount fresh, empty
// filesystems on: what the host keeps there is out of their commands'
// sight already.
var replacedDirs = []string{"/tmp", "/var/tmp", "/run", "/var/run", "/dev"}

// runtimeDirMask returns the program's runtime directory (runtimeDir) when
// bwrap and gvisor must mask it for a run in workspace ws as user cred:
// when it lies outside the directories they replace (a host without
// logind: /tmp/runtime-USER is replaced, WSLg's /mnt/wslg/runtime-dir is
// not), is not and holds not the workspace, and the run's user can reach
// it (bwrap, started as that user, could not mount there otherwise).
func runtimeDirMask(ws string, cred *syscall.Credential) string {
	return hostDirMask(runtimeDir(), ws, cred)
}

// programTmpDir returns the program's temporary directory (os.TempDir:
// $TMPDIR, or /tmp), symlinks resolved, or "" when it is not a directory
// or is or holds the root or a directory of the system's programs and
// libraries (TMPDIR=/ or /usr would hide them from every command). Where
// TMPDIR names a directory outside /tmp ($HOME/tmp, pam_tmpdir's, a CI
// runner's), what the user's other programs leave there (Kerberos ticket
// caches, ssh-agent's directory) and runs' private directories were
// readable to commands of that user on every engine
// (TestAttackS31CommandReadsTheProgramsTmpdir).
func programTmpDir() string {
	return tmpDirValue(os.TempDir())
}

// programTmpDirs returns the program's temporary directories: its own
// (programTmpDir) and those TEMP and TMP name, each checked as
// programTmpDir checks TMPDIR, none listed twice or beneath another (the
// one above stands for both). With TMPDIR unset, Python's tempfile makes
// its files where TEMP or TMP points (programs ported from Windows read
// them whatever TMPDIR says): what the user's other programs left there was
// readable to commands of that user on every engine
// (TestAttackS31CommandReadsTheProgramsTempAndTmp).
func programTmpDirs() []string {
	var out []string
	for _, d := range []string{programTmpDir(), tmpDirValue(os.Getenv("TEMP")), tmpDirValue(os.Getenv("TMP"))} {
		if d == "" || slices.ContainsFunc(out, func(o string) bool { return beneath(o, d) }) {
			continue
		}
		out = slices.DeleteFunc(out, func(o string) bool { return beneath(d, o) })
		out = append(out, d)
	}
	return out
}

// tmpDirValue returns the directory a temporary directory variable's value
// v names, symlinks resolved, or "" when v is not absolute, names no
// directory, or is or holds a directory of systemDirs (see programTmpDir).
func tmpDirValue(v string) string {
	if !filepath.IsAbs(v) {
		return ""
	}
	r, err := filepath.EvalSymlinks(v)
	if err != nil || !filepath.IsAbs(r) || slices.ContainsFunc(systemDirs, func(s string) bool { return beneath(r, s) }) {
		return ""
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return ""
	}
	return r
}

// systemDirs hold what every command needs to start: a directory that is
// or holds one is never hidden for being a temporary directory.
var systemDirs = []string{"/", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/proc"}

// hostDirMask returns d ("" for none) when bwrap and gvisor must mask it
// for a run in workspace ws as user cred (see runtimeDirMask).
func hostDirMask(d, ws string, cred *syscall.Credential) string {
	if d == "" || slices.ContainsFunc(replacedDirs, func(r string) bool { return beneath(r, d) }) {
		return ""
	}
	if ws != "" {
		if real, err := filepath.EvalSymlinks(ws); err == nil && (beneath(d, real) || beneath(real, d)) {
			return ""
		}
	}
	if cred != nil && unsearchableAncestor(d, cred.Uid, cred.Gid) != "" {
		return ""
	}
	return d
}

// hostDirsAbove returns, shallowest first, the program's runtime and
// temporary directories (runtimeDir, programTmpDirs) that hold workspace ws
// below them, outside the directories bwrap and gvisor replace, where the
// run's user cred can reach them: the directories hostDirMask leaves
// unmasked for holding the workspace. The engines mount an empty tmpfs on
// each before they bind the workspace, as on /tmp, so that the workspace
// alone shows there. A workspace made where os.MkdirTemp("", ...) and
// t.TempDir() make it, in TMPDIR=/srv/..., left what the user's other
// programs keep beside it (a Kerberos ticket cache, a file in ssh-agent's
// directory, another run's private directory) readable to bwrap and gvisor
// commands (TestAttackS31ReviewWorkspaceInsideTheProgramsTmpdir).
func hostDirsAbove(ws string, cred *syscall.Credential) []string {
	if ws == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil
	}
	// A directory at or below the topmost one on the way to the workspace
	// that the user cannot search is in the tmpfs that replaces that one.
	var shut string
	if cred != nil {
		shut = unsearchableAncestor(real, cred.Uid, cred.Gid)
	}
	var out []string
	for _, d := range append([]string{runtimeDir()}, programTmpDirs()...) {
		switch {
		case d == "" || d == real || !beneath(d, real) || slices.Contains(out, d):
		case slices.ContainsFunc(replacedDirs, func(r string) bool { return beneath(r, d) }):
		case shut != "" && beneath(shut, d):
		default:
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	return out
}

// pinnedMask is mask (Spec.Mask) with the home directory's credential
// stores that lie in workspace ws (homeMasks), workspace-relative: the
// paths whose parents maskParents makes mount points. A workspace that
// holds the home (HOME=/app in a container) has its stores masked, and a
// command renamed the directory above one (mv .config cfg, above
// .config/gh): the next command, whose masks look for the store under its
// name, read cfg/gh/hosts.yml (TestAttackS26RenameTheDirectoryAboveAHomeSecret).
// The repository's directories below the top (repo, repoDirs: a git
// directory apart, meta/repo.git) are added for the same reason: a command
// ran mv meta m2 && ln -s m2 meta, the .git file's path then led to the git
// directory through a link, which repoDirs does not bind, and the next
// command planted m2/repo.git/hooks/pre-commit
// (TestAttackS26MoveTheDirectoryAboveTheSeparateGitDir).
func (c *config) pinnedMask(ws string, mask, repo []string, cred *syscall.Credential) []string {
	if ws == "" {
		return mask
	}
	out := slices.Clone(mask)
	for _, r := range repo {
		if strings.Contains(r, "/") {
			out = append(out, r)
		}
	}
	dirs, files := c.homeMasks(ws, cred)
	if len(dirs)+len(files) == 0 {
		return out
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return out
	}
	for _, p := range append(dirs, files...) {
		if rel, err := filepath.Rel(real, p); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
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
			"the %s engine cannot hide paths from a command, and %d of the workspace's paths are forbidden (%q first): run the command in the bwrap or gvisor engine, or move those files out of the workspace", b.name, len(mask), mask[0])
	case b.cfg.workspace == "":
		return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Mask needs a workspace: give the engine one with WithWorkspace")
	case len(mask) > MaxMasked:
		return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Mask holds %d paths, over %d", len(mask), MaxMasked)
	}
	for _, m := range mask {
		if !filepath.IsLocal(filepath.FromSlash(m)) {
			return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Mask path %q is not inside the workspace: give paths relative to it (Workspace.Masked)", m)
		}
		// runsc waited on a hidden FIFO until the run's timeout and failed
		// to start over a hidden socket (TestAttackS21rBashHiddenFIFOAndSocket):
		// refused at once, naming it, rather than a run that cannot start.
		if b.name != EngineGVisor {
			continue
		}
		if fi, err := os.Stat(filepath.Join(b.cfg.workspace, filepath.FromSlash(m))); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			return newError(CodeCreateFailed, b.name, "", ErrInvalidSpec,
				"the gvisor engine cannot hide %q from a command: it is a %s, not a file or directory, and runsc cannot mount over it: remove it from the workspace, or run the command in the bwrap engine", m, fileKind(fi.Mode()))
		}
	}
	return nil
}

// fileKind names a mode's file type for an error.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// DefaultHomeSecrets are the credential stores, relative to the home
// directory of the program that runs the engine ($HOME) and to the home of
// the user a run's command runs as ([WithUser], its passwd entry), those
// under .config, .local/share, .local/state and .cache also under the
// program's $XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME and
// $XDG_CACHE_HOME where one names an absolute directory, that
// bwrap and gvisor hide from every command unless [WithHomeSecrets]: its
// root is the host's, read-only, and a program not run by root runs its
// commands as its own user, who can read them, as a command run as
// another user reads that user's. A command that printed ~/.ssh/id_rsa or
// ~/.aws/credentials handed them to the model, its provider and the logs.
// Each that exists is mounted over with an empty, read-only directory or
// file (where it leads, for a symlink); one that is the workspace or holds
// it is left alone. The stores that the program's own variables name
// instead of the home (KRB5CCNAME, GOOGLE_APPLICATION_CREDENTIALS,
// KUBECONFIG, DOCKER_CONFIG, GH_CONFIG_DIR, GNUPGHOME and the others of
// docs/sandbox.md) are hidden the same way.
var DefaultHomeSecrets = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json", ".config/gcloud", ".config/gh", ".config/hub",
	".config/git/credentials", ".git-credentials", ".netrc", ".pgpass", ".pypirc", ".npmrc", ".yarnrc.yml",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".m2/settings.xml", ".gradle/gradle.properties",
	".terraform.d", ".terraformrc", ".vault-token", ".password-store", ".local/share/keyrings", ".config/rclone",
	".s3cfg", ".boto", ".my.cnf", ".config/containers/auth.json", ".claude", ".claude.json", ".codex", ".gemini",
	".config/github-copilot", ".pulumi/credentials.json", ".databrickscfg", ".kaggle", ".fly", ".config/doctl",
	// Browser profiles (cookies, saved logins) and desktop apps' sessions.
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/Slack", ".config/discord",
	// Plain-file tokens of other CLIs and package registries
	// (TestAttackS26CommandReadsMoreHomeCredentials).
	".cache/huggingface/token", ".huggingface/token", ".config/configstore", ".wrangler", ".config/.wrangler",
	".oci", ".config/hcloud", ".config/op", ".composer/auth.json", ".config/composer/auth.json", ".config/pip/pip.conf",
	".pip/pip.conf", ".bundle/config", ".nuget/NuGet/NuGet.Config", ".config/stripe", ".supabase/access-token",
	".config/netlify", ".local/share/com.vercel.cli", ".config/ngrok", ".ngrok2", ".sentryclirc", ".config/glab-cli",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
	// Daemons' sockets that bwrap's fresh /run and /tmp do not hide, reached
	// with the network on: Docker Desktop's and Colima's engine (docker run
	// -v ~:/h writes the home outside any sandbox), 1Password's SSH agent
	// (TestAttackS28CommandReachesHomeDaemonSockets).
	".docker/desktop", ".docker/run", ".colima", ".1password",
}

// WithHomeSecrets lets bwrap, gvisor and landlock commands read the
// credential stores of the home directories ([DefaultHomeSecrets]), which
// they otherwise find empty (landlock: not readable): only for a command that must use them (a deploy with the
// developer's cloud login), with the network it needs and a person asked.
func WithHomeSecrets() Option { return func(c *config) { c.homeSecrets = true } }

// homeMasks returns where bwrap and gvisor mount over the credential
// stores ([DefaultHomeSecrets]) of the run's homes (runHomes), the
// program's XDG base directories (xdgStores) and its variables
// (envStores) for a run in workspace ws ("" for none) as user cred (nil: the program's own), dirs
// and files apart, each also where another mount of its filesystem shows
// it (otherPaths). A store the run's user cannot reach (root's 0700 home,
// for 65534) needs no mount, and bwrap, started as that user, could not
// make one.
func (c *config) homeMasks(ws string, cred *syscall.Credential) (dirs, files []string) {
	if c.homeSecrets {
		return nil, nil
	}
	skip := func(p string, seen []string) bool {
		if slices.Contains(seen, p) {
			return true // two homes that lead to one place
		}
		rel, err := filepath.Rel(p, ws)
		if ws != "" && err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return true // it is the workspace or holds it
		}
		return cred != nil && unsearchableAncestor(p, cred.Uid, cred.Gid) != ""
	}
	add := func(d, f []string) {
		for _, p := range d {
			if !skip(p, dirs) {
				dirs = append(dirs, p)
			}
		}
		for _, p := range f {
			if !skip(p, files) {
				files = append(files, p)
			}
		}
	}
	for _, home := range runHomes(cred) {
		add(maskTargets(home, DefaultHomeSecrets))
	}
	add(maskTargets("/", xdgStores()))
	// Those the program's variables name (envStores), but in the
	// directories both engines replace, out of sight already.
	add(maskTargets("/", slices.DeleteFunc(envStores(), func(p string) bool {
		return slices.ContainsFunc(replacedDirs, func(r string) bool { return beneath(r, p) })
	})))
	if len(dirs)+len(files) == 0 {
		return dirs, files
	}
	// The same stores where another mount shows them: a bind mount of the
	// home (otherPaths); none in a directory both engines replace, where
	// it is out of sight already.
	for _, p := range otherPaths(mountTable(), slices.Concat(dirs, files)) {
		fi, err := os.Lstat(p)
		switch {
		case err != nil || fi.Mode()&os.ModeSymlink != 0:
		case slices.ContainsFunc(replacedDirs, func(r string) bool { return beneath(r, p) }):
		case fi.IsDir():
			if !skip(p, dirs) {
				dirs = append(dirs, p)
			}
		default:
			if !skip(p, files) {
				files = append(files, p)
			}
		}
	}
	return dirs, files
}

// xdgStores returns, as absolute paths, the credential stores
// ([DefaultHomeSecrets]) that the program's XDG base directories move out
// of the home: a store under .config, .local/share, .local/state or
// .cache lies under $XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME or
// $XDG_CACHE_HOME where that names an absolute directory (the XDG rules
// ignore a relative one). With XDG_CONFIG_HOME=/srv/..., gh keeps its
// token in $XDG_CONFIG_HOME/gh/hosts.yml, and a command run as the
// program's user read it and the others there on every engine, which hid
// only ~/.config/gh (TestAttackS31ReviewStoresUnderRelocatedXDGDirs).
func xdgStores() []string {
	var out []string
	for _, x := range xdgDirs {
		d := os.Getenv(x.env)
		if !filepath.IsAbs(d) {
			continue
		}
		for _, s := range DefaultHomeSecrets {
			if rest, ok := strings.CutPrefix(s, x.home+"/"); ok {
				out = append(out, filepath.Join(d, rest))
			}
		}
	}
	return out
}

// envStores returns, as absolute paths, the credential stores that the
// program's own variables move out of the home (storeVars): where
// KRB5CCNAME, GOOGLE_APPLICATION_CREDENTIALS, KUBECONFIG, DOCKER_CONFIG
// and the others name a file or directory, the program's user keeps that
// login there, and a command run as that user read each one under /srv
// on every engine (TestAttackS31ReviewStoresNamedByTheProgramsVariables).
// A path that is or holds the root or a directory of the system's
// programs (systemDirs) is left out, as programTmpDir leaves it.
func envStores() []string {
	var out []string
	for _, v := range storeVars {
		val := os.Getenv(v.env)
		if val == "" {
			continue
		}
		paths := []string{val}
		switch v.env {
		case "KUBECONFIG":
			paths = filepath.SplitList(val)
		case "KRB5CCNAME":
			// FILE:path, DIR:dir or a bare path; the other cache types
			// (KEYRING:, KCM:, MEMORY:) are no file.
			typ, rest, ok := strings.Cut(val, ":")
			switch {
			case !ok || strings.HasPrefix(val, "/"):
			case typ == "FILE" || typ == "DIR":
				paths = []string{strings.TrimPrefix(rest, ":")} // DIR::file names one of the directory's
			default:
				paths = nil
			}
		}
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				continue
			}
			p = filepath.Join(filepath.Clean(p), v.sub)
			if !slices.ContainsFunc(systemDirs, func(s string) bool { return beneath(p, s) }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// storeVars are the variables that name where a tool keeps its login
// instead of the home, and the store's path below what each names ("" for
// itself).
var storeVars = []struct{ env, sub string }{
	{"KRB5CCNAME", ""}, {"GOOGLE_APPLICATION_CREDENTIALS", ""}, {"CLOUDSDK_CONFIG", ""},
	{"AWS_SHARED_CREDENTIALS_FILE", ""}, {"AWS_CONFIG_FILE", ""}, {"AZURE_CONFIG_DIR", ""},
	{"KUBECONFIG", ""}, {"DOCKER_CONFIG", "config.json"}, {"GH_CONFIG_DIR", ""},
	{"GNUPGHOME", ""}, {"PASSWORD_STORE_DIR", ""}, {"NETRC", ""}, {"PGPASSFILE", ""},
}

// xdgDirs are the XDG base directories' variables and where in the home
// they are when unset.
var xdgDirs = []struct{ env, home string }{
	{"XDG_CONFIG_HOME", ".config"}, {"XDG_DATA_HOME", ".local/share"},
	{"XDG_STATE_HOME", ".local/state"}, {"XDG_CACHE_HOME", ".cache"},
}

// runHomes returns the home directories whose credential stores a run as
// user cred (nil: the program's own) must not read: $HOME, and the home
// of the run's user (cred's, else the program's own; its passwd entry)
// when that is another directory and not "/". A run WithUser(1000, 1000)
// from a program whose HOME is /root runs as the user who owns /home/dev,
// and printed /home/dev/.ssh/id_ed25519 while only /root's stores were
// masked (TestAttackS27CommandReadsTheRunUsersHomeSecrets); a program
// started with HOME unset, relative or elsewhere (env -i, a service) hid
// none of its own user's (TestAttackS28ReviewHomeStoresWithoutHOME).
func runHomes(cred *syscall.Credential) []string {
	var homes []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		homes = append(homes, filepath.Clean(home))
	}
	uid := uint64(os.Getuid())
	if cred != nil {
		uid = uint64(cred.Uid)
	}
	u, err := user.LookupId(strconv.FormatUint(uid, 10))
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return homes // no such user (65534's home, /nonexistent, holds nothing either)
	}
	if home := filepath.Clean(u.HomeDir); home != "/" && !slices.Contains(homes, home) {
		homes = append(homes, home)
	}
	return homes
}
