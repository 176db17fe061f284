package approval

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/hostpath"
	"github.com/toolbelt-go/toolbelt/sandbox"
)

// appendPath appends the subjects of the path argument p: its canonical
// form (pathSubjectOf) and, without a workspace, also the form the host's
// file system reaches when its symlinks lead elsewhere. A tool without a
// workspace (a Go tool's os.Open) takes a relative path from the process's
// working directory, through the links there: "notes/id" with notes ->
// HOME/.ssh is HOME/.ssh/id, which deny rules on .ssh name. Such a tool
// may also expand a leading ~ or environment variables in it (the MCP
// filesystem server expands "~/", a Go tool os.ExpandEnv): the expanded
// form (hostpath.Expand) is a subject too. A tool that runs in a
// directory of its own (at.dir) takes a relative path from there.
func appendPath(paths []pathSubject, at place, p string) []pathSubject {
	paths = appendHostPath(paths, at, at.from(p))
	if at.ws == nil {
		if e, ok := hostpath.Expand(p); ok {
			paths = appendHostPath(paths, at, at.from(e))
		}
	}
	return paths
}

// place is where a call's relative path arguments are taken from: the
// tool's workspace (nil for none), and the directory its calls run in
// when it has one of its own (dir, absolute on the host: a Workdir
// method, as policy.Workdirer has it; an argv shell tool, an MCP server
// started with dir).
type place struct {
	ws  *sandbox.Workspace
	dir string
}

// from returns p as the tool takes it: a relative p joined to at.dir
// (uncleaned: ".." after a link is the link target's parent), and then,
// without a workspace, relative to the process's working directory when
// it lies below it, so that relative patterns name it as they name the
// other tools' paths ("key" run in secrets is secrets/key). Without a
// dir, p as it is.
func (at place) from(p string) string {
	n := strings.ReplaceAll(p, "\\", "/")
	if at.dir == "" || path.IsAbs(n) {
		return p
	}
	abs := path.Clean(filepath.ToSlash(at.dir)) + "/" + n
	if at.ws == nil {
		if wd, err := os.Getwd(); err == nil {
			if rel, ok := strings.CutPrefix(abs, strings.TrimSuffix(filepath.ToSlash(wd), "/")+"/"); ok && rel != "" {
				return rel
			}
		}
	}
	return abs
}

// appendHostPath appends the subjects of the path argument p as written
// (see appendPath): its canonical form, and where the host's symlinks
// lead it when that differs, as written and cleaned first
// (hostpath.LeadsAs, for a process run in at.dir: its /proc/self/cwd is
// there): each is a subject.
func appendHostPath(paths []pathSubject, at place, p string) []pathSubject {
	ws := at.ws
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
	places, ok := hostpath.LeadsAs("/", joined, at.dir)
	if !ok || !path.IsAbs(joined) {
		// Too many links to follow, or a lookup on the way failed
		// (a real path longer than PATH_MAX): where it leads cannot
		// be judged.
		return append(paths, pathSubject{out: true})
	}
	cleaned := path.Clean(joined)
	rb := "" // the working directory as the host reaches it, once needed
	for _, host := range places {
		if host == cleaned {
			continue
		}
		fi, err := os.Stat(filepath.FromSlash(host))
		h := pathSubject{path: host, host: host, ok: true, dir: err == nil && fi.IsDir()}
		if base != "" {
			if rb == "" {
				rb = base
				if r, ok := hostpath.Resolve(base); ok {
					rb = r
				}
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
		paths = append(paths, h)
	}
	if base != "" {
		return paths
	}
	// An absolute path, or one its links lead to, below the working
	// directory is also the relative path there: deny and ask rules with
	// a relative pattern name it ("/proc/self/cwd/key" of a tool run in
	// secrets is secrets/key, as "/abs/project/secrets/key" is); allow
	// rules judge it as written (alias).
	if wd, err := os.Getwd(); err == nil {
		rb := path.Clean(filepath.ToSlash(wd))
		if r, ok := hostpath.Resolve(rb); ok {
			rb = r
		}
		for _, host := range places {
			if rel, ok := strings.CutPrefix(host, strings.TrimSuffix(rb, "/")+"/"); ok && rel != "" {
				fi, err := os.Stat(filepath.FromSlash(host))
				paths = append(paths, pathSubject{path: rel, host: host, ok: true, alias: true, dir: err == nil && fi.IsDir()})
			}
		}
	}
	return paths
}
