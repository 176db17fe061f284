// Package hostpath resolves a path as the host's file system reaches it,
// following symlinks, for the rules that judge paths (the governance
// policy, approval rules) without opening anything.
package hostpath

import (
	"io/fs"
	"os"
	"path"
	"strings"
)

// MaxLinks bounds the symlinks one resolution follows (Linux's ELOOP limit
// is 40).
const MaxLinks = 40

// Resolve returns the absolute, slash-separated path name (which may hold
// "." and "..") as the host's file system reaches it: every existing
// component's symlinks followed, ".." applied to the directory reached,
// the components from the first one that does not exist on kept as
// written (cleaned). ok is false when more than MaxLinks symlinks are on
// the way, or name is not absolute.
func Resolve(name string) (resolved string, ok bool) {
	if !path.IsAbs(name) {
		return "", false
	}
	return ResolveIn("/", name)
}

// ResolveIn is Resolve of name taken from dir, an absolute directory the
// host reaches as written (no symlink in it: the kernel's name for the
// working directory), so that only name's own components are looked at.
// An absolute name is taken from the root.
func ResolveIn(dir, name string) (resolved string, ok bool) {
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
			// written, as a program would create or miss it.
			return path.Clean(next + "/" + strings.Join(rest, "/")), true
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > MaxLinks {
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
