package approval

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// maxHostLinks bounds the symlinks one host resolution follows (Linux's
// ELOOP limit is 40).
const maxHostLinks = 40

// hostResolve returns the absolute, slash-separated path name (which may
// hold "." and "..") as the host's file system reaches it: every existing
// component's symlinks followed, ".." applied to the directory reached,
// the components from the first one that does not exist on kept as
// written (cleaned). ok is false when more than maxHostLinks symlinks are
// on the way, or name is not absolute. (The governance policy resolves
// its paths the same way; the two packages cannot share it, since the
// policy imports this one.)
func hostResolve(name string) (resolved string, ok bool) {
	if !path.IsAbs(name) {
		return "", false
	}
	rest := strings.Split(name, "/")
	done, links := "/", 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, c)
		fi, err := os.Lstat(next)
		if err != nil {
			// Not there: the rest is taken as written, as the tool would
			// create or miss it.
			return path.Clean(next + "/" + strings.Join(rest, "/")), true
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxHostLinks {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return path.Clean(next + "/" + strings.Join(rest, "/")), true
		}
		if path.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return done, true
}

// appendPath appends the subjects of the path argument p: its canonical
// form (pathSubjectOf) and, without a workspace, also the form the host's
// file system reaches when its symlinks lead elsewhere. A tool without a
// workspace (a Go tool's os.Open) takes a relative path from the process's
// working directory, through the links there: "notes/id" with notes ->
// HOME/.ssh is HOME/.ssh/id, which deny rules on .ssh name.
func appendPath(paths []pathSubject, ws *sandbox.Workspace, p string) []pathSubject {
	s := pathSubjectOf(ws, p)
	paths = append(paths, s)
	if ws != nil || !s.ok {
		return paths
	}
	joined, base := strings.ReplaceAll(p, "\\", "/"), ""
	if !path.IsAbs(joined) {
		wd, err := os.Getwd()
		if err != nil {
			return paths // no working directory to place it in
		}
		base = path.Clean(filepath.ToSlash(wd))
		joined = base + "/" + joined // uncleaned: ".." after a link is the link target's parent
	}
	host, ok := hostResolve(joined)
	if !ok {
		// Too many links to follow: where it leads cannot be judged.
		return append(paths, pathSubject{out: true})
	}
	if host == path.Clean(joined) {
		return paths
	}
	fi, err := os.Stat(filepath.FromSlash(host))
	h := pathSubject{path: host, host: host, ok: true, dir: err == nil && fi.IsDir()}
	if base != "" {
		rb, ok := hostResolve(base)
		if !ok {
			rb = base
		}
		switch {
		case host == rb:
			h.path = "."
		case strings.HasPrefix(host, strings.TrimSuffix(rb, "/")+"/"):
			h.path = strings.TrimPrefix(host, strings.TrimSuffix(rb, "/")+"/")
		default:
			// A link out of the working directory: in no place a
			// relative pattern names, approved by no allow rule.
			h.outside = true
		}
	}
	return append(paths, h)
}
