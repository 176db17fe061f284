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
// form (hostpath.Expand) is a subject too.
func appendPath(paths []pathSubject, ws *sandbox.Workspace, p string) []pathSubject {
	paths = appendHostPath(paths, ws, p)
	if ws == nil {
		if e, ok := hostpath.Expand(p); ok {
			paths = appendHostPath(paths, nil, e)
		}
	}
	return paths
}

// appendHostPath appends the subjects of the path argument p as written
// (see appendPath): its canonical form, and where the host's symlinks
// lead it when that differs, as written and cleaned first
// (hostpath.Leads): each is a subject.
func appendHostPath(paths []pathSubject, ws *sandbox.Workspace, p string) []pathSubject {
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
	places, ok := hostpath.Leads("/", joined)
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
	return paths
}
