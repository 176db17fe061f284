// Package hostpath resolves a path as the host's file system reaches it,
// following symlinks, for the rules that judge paths (the governance
// policy, approval rules) without opening anything.
package hostpath

import (
	"io/fs"
	"os"
	"os/user"
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

// Expand returns p as a tool that expands it reads it, and whether that
// differs from p: a leading ~ or ~user as that home directory, $VAR and
// ${VAR} as the variable's value (os.ExpandEnv, unset ones as nothing).
// The MCP filesystem server expands "~/", and a Go tool may call
// os.ExpandEnv: rules judge the expanded form too.
func Expand(p string) (string, bool) {
	e := p
	if rest, ok := strings.CutPrefix(e, "~"); ok {
		name, tail, slash := strings.Cut(rest, "/")
		home := ""
		if name == "" {
			home, _ = os.UserHomeDir()
		} else if u, err := user.Lookup(name); err == nil {
			home = u.HomeDir
		}
		if home != "" {
			e = home
			if slash {
				e += "/" + tail
			}
		}
	}
	if strings.Contains(e, "$") {
		e = os.ExpandEnv(e)
	}
	return e, e != p && e != ""
}
