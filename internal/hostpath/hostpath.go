// Package hostpath resolves a path as the host's file system reaches it,
// following symlinks, for the rules that judge paths (the governance
// policy, approval rules) without opening anything.
package hostpath

import (
	"bytes"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/user"
	"path"
	"strconv"
	"strings"
	"syscall"
)

// MaxLinks bounds the symlinks one resolution follows (Linux's ELOOP limit
// is 40).
const MaxLinks = 40

// Resolve returns the absolute, slash-separated path name (which may hold
// "." and "..") as the host's file system reaches it: every existing
// component's symlinks followed, ".." applied to the directory reached,
// the components from the first one that does not exist on kept as
// written (cleaned) until a ".." leaves them, after which the lookup
// goes on ("missing/../link" is where link leads, as a program that
// cleans the path or makes missing reaches it). ok is false when more than MaxLinks symlinks are on
// the way, when a component cannot be looked at for another reason than
// that it is missing or not to be searched (a directory reached through
// links whose real path is longer than PATH_MAX: the kernel follows the
// short path, lstat of the long one fails), when a link of /proc/PID on
// the way belongs to a process in another mount namespace (a sandboxed
// command's, a container's: its root reads as "/" but holds other
// files), or name is not absolute. A /proc link to a file whose name is
// gone ("/p/.env (deleted)") leads to the name it had (/p/.env).
func Resolve(name string) (resolved string, ok bool) {
	if !path.IsAbs(name) {
		return "", false
	}
	return ResolveIn("/", name)
}

// Leads returns where name, taken from dir as ResolveIn takes it, leads on
// the host, each way a tool may take it: as written, where the kernel
// applies a ".." after a link to the directory the link leads to
// ("out/../notes/id" with out -> elsewhere/deep is elsewhere/notes/id),
// and cleaned first, as filepath.Clean or filepath.Join (or Node's
// path.resolve) leave it, where the ".." drops the link ("notes/id",
// through notes -> HOME/.ssh). One place when the two agree, the
// as-written one first; ok is false when either cannot be judged. Rules
// judge every place.
func Leads(dir, name string) (places []string, ok bool) {
	return LeadsAs(dir, name, "")
}

// LeadsAs is Leads for a path that a process of its own opens (a tool run
// as a command in cwd, an absolute directory): to that process
// /proc/self and /proc/thread-self are itself, so /proc/self/cwd leads to
// cwd, not to this process's working directory. With cwd "" it is Leads.
func LeadsAs(dir, name, cwd string) (places []string, ok bool) {
	written, ok := resolveIn(dir, name, cwd)
	if !ok {
		return nil, false
	}
	places = []string{written}
	if c := path.Clean(name); c != name {
		cleaned, ok := resolveIn(dir, c, cwd)
		if !ok {
			return nil, false
		}
		if cleaned != written {
			places = append(places, cleaned)
		}
	}
	return places, true
}

// ResolveIn is Resolve of name taken from dir, an absolute directory the
// host reaches as written (no symlink in it: the kernel's name for the
// working directory), so that only name's own components are looked at.
// An absolute name is taken from the root; a dir that is not absolute
// cannot be judged (ok is false).
func ResolveIn(dir, name string) (resolved string, ok bool) {
	return resolveIn(dir, name, "")
}

// resolveIn is ResolveIn, for a process whose working directory is cwd
// when cwd is not "" (LeadsAs).
func resolveIn(dir, name, cwd string) (resolved string, ok bool) {
	if path.IsAbs(name) {
		dir = "/"
	}
	if !path.IsAbs(dir) {
		return "", false
	}
	// rest is what is left to look up, its components taken one at a
	// time (strings.Cut), a link's target put in front of them.
	rest := name
	// missing counts the components at the end of done that are taken as
	// written: one that does not exist (or may not be looked at) and
	// those below it. A ".." leaves one of them, and once out of all of
	// them the lookup goes on: a program that cleans the path
	// (filepath.Join, Node's path.resolve) or makes the missing
	// directory (mkdir -p) goes through a link after it, in
	// "missing/../link/x" too. done grows and shrinks in place: a name
	// of many components (a model's 64 KiB argument) costs its length,
	// not its length times its components. Its first buffer holds dir
	// and name: a name that passes no link needs no other.
	clean := path.Clean(dir)
	done, links, missing := append(make([]byte, 0, len(clean)+1+len(name)), clean...), 0, 0
	// self is the length of done's "/proc/PID" when that was reached
	// through /proc/self or /proc/thread-self for a process of its own
	// (cwd set), 0 otherwise: its cwd link leads to cwd.
	self := 0
	next := "" // the name last looked up
	for rest != "" {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		switch c {
		case "", ".":
			continue
		case "..":
			done = done[:max(bytes.LastIndexByte(done, '/'), 1)]
			missing = max(missing-1, 0)
			if len(done) < self {
				self = 0
			}
			continue
		}
		n := len(done)
		if n > 1 {
			done = append(done, '/')
		}
		done = append(done, c...)
		if missing > 0 {
			missing++
			continue
		}
		next = string(done)
		link, err := isLink(next)
		if err != nil {
			if !asWritten(err) {
				// ENAMETOOLONG: the kernel may still reach it by the
				// short path, through links below that go anywhere.
				return "", false
			}
			// Not there (or not to be looked at): taken as written, as
			// a program would create or miss it.
			missing = 1
			continue
		}
		if !link {
			continue
		}
		if links++; links > MaxLinks {
			return "", false
		}
		var target string
		if self > 0 && len(next) >= self && ownCwd(next[self:]) {
			if !path.IsAbs(cwd) {
				return "", false
			}
			target = cwd // that process's working directory
		} else if target, err = os.Readlink(next); err != nil {
			if !asWritten(err) {
				return "", false
			}
			missing = 1
			continue
		} else if pid, ok := procPID(next); ok {
			// A link of /proc/PID is the kernel's: it leads into that
			// process's mount namespace, whose "/" may be another
			// tree than this one's, and to a descriptor's file by the
			// name it had.
			if !sameMounts(pid) {
				return "", false
			}
			target = strings.TrimSuffix(target, deleted)
		}
		done = done[:n]
		if path.IsAbs(target) {
			done = done[:1] // "/"
		}
		if len(done) < self {
			self = 0
		}
		if cwd != "" && (next == "/proc/self" || next == "/proc/thread-self") && !path.IsAbs(target) {
			// "PID" or "PID/task/TID": this process's, and the other
			// process's everywhere but its cwd.
			pid, _, _ := strings.Cut(target, "/")
			self = n + 1 + len(pid)
		}
		rest = target + "/" + rest
	}
	if next == string(done) {
		// done is still the name last looked up (nothing was appended
		// or taken off after it): that string is the answer, not
		// copied again.
		return next, true
	}
	return string(done), true
}

// deleted is what the kernel adds to the target of a /proc link to a
// file or directory whose name is gone (removed, or replaced by a rename
// over it): "/p/.env (deleted)" still reads the old /p/.env.
const deleted = " (deleted)"

// procPID returns the process id of a link under /proc/PID (its root,
// cwd, exe, a descriptor under fd or map_files, a thread's under
// task/TID), or false for any other path.
func procPID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "/proc/")
	if !ok {
		return "", false
	}
	pid, _, ok := strings.Cut(rest, "/")
	return pid, ok && pid != "" && strings.Trim(pid, "0123456789") == ""
}

// sameMounts reports whether the process pid sees the mounts this process
// sees (the same mount namespace), so that where its /proc links lead can
// be read from here: readlink gives "/" for the root of a sandboxed
// command or a container, whose files differ. A process that cannot be
// asked is not.
func sameMounts(pid string) bool {
	if pid == strconv.Itoa(os.Getpid()) {
		return true
	}
	theirs, err := os.Readlink("/proc/" + pid + "/ns/mnt")
	if err != nil {
		return false
	}
	ours, err := os.Readlink("/proc/self/ns/mnt")
	return err == nil && ours == theirs
}

// ownCwd reports whether tail, what follows "/proc/PID" in a link's name,
// is that process's working directory: "/cwd", or a thread's
// "/task/TID/cwd".
func ownCwd(tail string) bool {
	if tail == "/cwd" {
		return true
	}
	tid, ok := strings.CutPrefix(tail, "/task/")
	if !ok {
		return false
	}
	tid, ok = strings.CutSuffix(tid, "/cwd")
	return ok && tid != "" && strings.Trim(tid, "0123456789") == ""
}

// asWritten reports whether a lookup that failed with err leaves the rest
// of the path to be taken as written: the component is missing, is not a
// directory, or may not be searched (by this process, as by a tool of
// it). Any other failure (ENAMETOOLONG) says nothing of where the
// kernel's own lookup leads.
func asWritten(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR)
}

// Expand returns p as a tool that expands it reads it, and whether that
// differs from p: a leading ~ or ~user as that home directory (~ without
// HOME as the password database's home of this user), bash's ~+ as "."
// (its working directory) and ~- as $OLDPWD when set, $VAR and
// ${VAR} as the variable's value (os.ExpandEnv, unset ones as nothing).
// The MCP filesystem server expands "~/", and a Go tool may call
// os.ExpandEnv: rules judge the expanded form too.
func Expand(p string) (string, bool) {
	e := p
	if rest, ok := strings.CutPrefix(e, "~"); ok {
		name, tail, slash := strings.Cut(rest, "/")
		home := ""
		switch name {
		case "":
			home, _ = os.UserHomeDir()
			if home == "" {
				// Without HOME, Node's os.homedir, bash and Python
				// take the password database's home: so is ~ here.
				if u, err := user.Current(); err == nil {
					home = u.HomeDir
				}
			}
		case "+":
			// bash's working directory, where relative paths lead.
			home = "."
		case "-":
			home = os.Getenv("OLDPWD") // bash keeps "~-" when unset
		default:
			if u, err := user.Lookup(name); err == nil {
				home = u.HomeDir
			}
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

// FileURLPath returns the path of the local file the URL s names, when s
// is a file: URL (in any case, after the blanks and controls a browser
// drops): its path decoded, whatever the host ("file://localhost/x" and
// "file:/x" are /x, and so is "file:x", as a browser reads it: the path
// is always absolute). A URL Go cannot parse is cut by hand, as a browser
// would still open it. A view-source: URL of a file: URL names the same
// file (Chromium and Firefox show its text), and a jar: URL of one the
// archive it reads an entry of (Firefox: jar:file:///a.zip!/entry is
// /a.zip). The governance policy and approval rules judge that path.
func FileURLPath(s string) (string, bool) {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	t = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, t)
	if len(t) > len(viewSource) && strings.EqualFold(t[:len(viewSource)], viewSource) {
		return FileURLPath(t[len(viewSource):])
	}
	if len(t) > len(jar) && strings.EqualFold(t[:len(jar)], jar) {
		inner, _, _ := strings.Cut(t[len(jar):], "!")
		return FileURLPath(inner)
	}
	if len(t) < 5 || !strings.EqualFold(t[:5], "file:") {
		return "", false
	}
	if u, err := url.Parse(t); err == nil {
		if u.Opaque != "" {
			return rooted(unescape(u.Opaque)), true
		}
		if u.Path == "" {
			return "/", true
		}
		return u.Path, true
	}
	p := strings.ReplaceAll(t[5:], "\\", "/")
	if rest, ok := strings.CutPrefix(p, "//"); ok {
		p = "/"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			p = rest[i:]
		}
	}
	if q := strings.IndexAny(p, "?#"); q >= 0 {
		p = p[:q]
	}
	// Go refused an escape somewhere (a "#%zz" after the path): the
	// path's valid ones are still decoded, as a browser opens it.
	return rooted(unescape(p)), true
}

// unescape decodes the valid percent escapes of s and keeps the others as
// written, as the URL standard's percent-decode does (a browser opens
// "%73hadow%zz" as "shadow%zz"), where url.PathUnescape refuses the whole.
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// rooted makes the path of a file: URL absolute: a browser reads
// "file:etc/passwd" as file:///etc/passwd (the URL standard's file state
// goes on to the path state; a URL a tool navigates to has no base), while
// a relative path would be judged from the working directory.
func rooted(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return "/" + p
}

// viewSource is the scheme of a browser's page-source view; jar that of
// an entry of a zip archive (Firefox).
const (
	viewSource = "view-source:"
	jar        = "jar:"
)
