package policy

import (
	"io/fs"
	"os"
	"path"
	"strings"
)

// maxHostLinks bounds the symlinks one host resolution follows (Linux's
// ELOOP limit is 40).
const maxHostLinks = 40

// hostResolve returns the absolute, slash-separated path name (which may
// hold "." and "..") as the host's file system reaches it: every existing
// component's symlinks followed, ".." applied to the directory reached,
// the components from the first one that does not exist on kept as
// written (cleaned). ok is false when more than maxHostLinks symlinks are
// on the way, or name is not absolute.
func hostResolve(name string) (resolved string, ok bool) {
	if !path.IsAbs(name) {
		return "", false
	}
	return hostResolveIn("/", name)
}

// hostResolveIn is hostResolve of name taken from dir, an absolute
// directory the host reaches as written (no symlink in it: the kernel's
// name for the working directory), so that only name's own components
// are looked at. An absolute name is taken from the root.
func hostResolveIn(dir, name string) (resolved string, ok bool) {
	if path.IsAbs(name) {
		dir = "/"
	}
	rest := strings.Split(name, "/")
	done, links := dir, 0
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
			// Not there (or not to be looked at): the rest is taken as
			// written, as the program would create or miss it.
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

// logicalWd returns the name the process knows its working directory by:
// $PWD when it is another absolute name of wd (getcwd's, which has no
// symlink in it), as os.Getwd gives it, else wd. Patterns are written
// with that name ("$PWD/secrets/**", a wildcard where a link is), so a
// relative path is judged under it too. It costs nothing unless $PWD
// differs from wd.
func logicalWd(wd string) string {
	pwd := os.Getenv("PWD")
	if pwd == "" || pwd == wd || !path.IsAbs(pwd) {
		return wd
	}
	a, err1 := os.Stat(pwd)
	b, err2 := os.Stat(wd)
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		return wd
	}
	return path.Clean(pwd)
}

// hostPattern returns the absolute pattern p with the literal directories
// in front of its first wildcard resolved on the host (hostResolve), or ""
// when that changes nothing: "/tmp/agent/**" where /tmp is a link to
// /private/tmp is also "/private/tmp/agent/**", which a resolved path
// argument matches.
func hostPattern(p string) string {
	segs := strings.Split(p, "/")
	n := 0
	for n < len(segs) && !strings.ContainsAny(segs[n], `*?[{\`) {
		n++
	}
	if n <= 1 {
		return ""
	}
	prefix := strings.Join(segs[:n], "/")
	r, ok := hostResolve(prefix)
	if !ok || r == prefix {
		return ""
	}
	// The link's target is a path, not a glob.
	return path.Join(globEscape(r), strings.Join(segs[n:], "/"))
}
