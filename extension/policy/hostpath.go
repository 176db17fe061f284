package policy

import (
	"os"
	"os/user"
	"path"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/hostpath"
)

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

// expandedPath returns p as a tool that expands it reads it, and whether
// that differs from p: a leading ~ or ~user as that home directory, $VAR
// and ${VAR} as the variable's value (os.ExpandEnv, unset ones as
// nothing).
func expandedPath(p string) (string, bool) {
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

// hostPattern returns the absolute pattern p with the literal directories
// in front of its first wildcard resolved on the host (hostpath.Resolve), or ""
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
	r, ok := hostpath.Resolve(prefix)
	if !ok || r == prefix {
		return ""
	}
	// The link's target is a path, not a glob.
	return path.Join(globEscape(r), strings.Join(segs[n:], "/"))
}
