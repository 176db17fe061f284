package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// mountEntry is one mount of the program's mount namespace, from
// /proc/self/mountinfo: which filesystem (dev, "major:minor"), which of its
// directories is mounted (root, "/" for the whole filesystem, a bind
// mount's source otherwise), and where (point).
type mountEntry struct{ dev, root, point string }

// mountInfo is the file mountTable reads; tests point it elsewhere.
var mountInfo = "/proc/self/mountinfo"

// mountTable returns the mounts of the program's mount namespace in the
// order the kernel lists them (a mount over another comes after it); nil
// where there is no mountinfo (not Linux).
func mountTable() []mountEntry {
	b, err := os.ReadFile(mountInfo)
	if err != nil {
		return nil
	}
	var out []mountEntry
	for line := range strings.SplitSeq(string(b), "\n") {
		// ID PARENT MAJOR:MINOR ROOT POINT OPTIONS ..., one space apart.
		// Only a space, a tab, a newline and a backslash are escaped in a
		// path: strings.Fields would split a mount point at a carriage
		// return or a no-break space, and hide the stores at the wrong
		// place (TestAttackS29ReviewMountPointWithUnescapedSpaceShowsTheHome).
		f := strings.SplitN(line, " ", 6)
		if len(f) < 6 {
			continue
		}
		out = append(out, mountEntry{dev: f[2], root: unescapeMount(f[3]), point: unescapeMount(f[4])})
	}
	return out
}

// unescapeMount undoes the octal escapes mountinfo writes for a space, a
// tab, a newline and a backslash in a path (\040, \011, \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// otherPaths returns the other paths by which the mounts of table show what
// lies at or below paths (absolute, clean, symlinks resolved; made or not):
// for each path, the mount it lies in gives its filesystem and its path in
// that filesystem, and every mount of that filesystem whose root is above
// that path shows it at another place, one whose root is below it shows a
// part of it at its mount point. A mount below a path is looked up alike
// (/dev/pts, below /dev, mounted again in a chroot). A path already at or
// below one of paths is left out. Landlock judges a file by the
// directories above it on the path it was reached by, and bwrap and gvisor
// bind the host's mounts with its root: a store masked or left out of the
// rules by the home's own path was read at a bind mount of the home
// (TestAttackS29CommandReadsTheHomeThroughAnotherMount). Each place is
// looked up once, and only in the mounts of its filesystem: n binds of one
// filesystem below a hidden path made n*n paths otherwise
// (TestAttackS29ReviewOtherPathsCostIsLinear).
func otherPaths(table []mountEntry, paths []string) []string {
	return otherPathsBut(table, paths, nil)
}

// otherPathsBut is otherPaths where the mounts below the paths of shallow
// (some of paths) are not looked up: only the other places of those paths
// themselves are returned. It is for the host's temporary directories
// (hostTmpDirs): what a mount below /tmp shows (a chroot's bind of /usr
// under /tmp/build, a workspace bound there) is no temporary file, and
// looked up it would leave its source (/usr) out of the rules.
func otherPathsBut(table []mountEntry, paths, shallow []string) []string {
	type place struct{ dev, rel string }
	var hidden []place
	seen := map[place]bool{}
	hide := func(h place) {
		if !seen[h] {
			seen[h] = true
			hidden = append(hidden, h)
		}
	}
	byDev := map[string][]mountEntry{}
	for _, m := range table {
		byDev[m.dev] = append(byDev[m.dev], m)
	}
	for _, p := range paths {
		in := -1 // the mount p lies in: the deepest point above it, the last listed there
		below := !slices.Contains(shallow, p)
		for i, m := range table {
			if beneath(m.point, p) && (in < 0 || len(m.point) >= len(table[in].point)) {
				in = i
			}
			if below && m.point != p && beneath(p, m.point) {
				hide(place{m.dev, m.root})
			}
		}
		if in >= 0 {
			m := table[in]
			hide(place{m.dev, filepath.Join(m.root, strings.TrimPrefix(p, m.point))})
		}
	}
	var out []string
	found := map[string]bool{}
	for _, h := range hidden {
		for _, m := range byDev[h.dev] {
			var alt string
			switch {
			case beneath(m.root, h.rel):
				alt = filepath.Join(m.point, strings.TrimPrefix(h.rel, m.root))
			case beneath(h.rel, m.root):
				alt = m.point
			default:
				continue
			}
			if found[alt] || slices.ContainsFunc(paths, func(p string) bool { return beneath(p, alt) }) {
				continue
			}
			found[alt] = true
			out = append(out, alt)
		}
	}
	return out
}
