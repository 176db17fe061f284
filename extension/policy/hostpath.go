package policy

import (
	"os"
	"path"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/hostpath"
	"github.com/toolbelt-go/toolbelt/sandbox"
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
	return path.Join(sandbox.EscapeGlob(r), strings.Join(segs[n:], "/"))
}
