package policy

import (
	"os"
	"path/filepath"
	"strings"
)

// maxGlobEntries bounds how many directory entries reading a call's path
// arguments as globs may look at: "/*/*/*/*/*/*/x" made filepath.Glob
// read every directory six levels down, 100 s on a development machine,
// for one argument that matched nothing.
const maxGlobEntries = 16 * maxGlobMatches

// globBounded returns the paths the glob pattern matches, as
// filepath.Glob does (a malformed pattern matches nothing), and with a
// "**" segment as doublestar reads it: any number of directories,
// symbolic links to directories followed. It reads the directories level
// by level, each entry looked at taken from *left. ok is false when that
// would look at more entries than *left or hold more than maxGlobMatches
// paths at a level.
func globBounded(pattern string, left *int) (matches []string, ok bool) {
	sep := string(filepath.Separator)
	if !filepath.IsAbs(pattern) {
		pattern = "." + sep + pattern // the working directory's entries
	}
	segs := strings.Split(pattern, sep)
	cur := []string{segs[0]} // "" for an absolute pattern: the root
	for i, seg := range segs[1:] {
		last := i == len(segs)-2
		var next []string
		for _, c := range cur {
			dir := c
			if dir == "" {
				dir = sep
			}
			if seg == "**" {
				below, ok := globBelow(c, dir, last, left)
				if !ok {
					return nil, false
				}
				next = append(next, below...)
				continue
			}
			if !strings.ContainsAny(seg, `*?[\`) {
				p := c + sep + seg
				if last {
					if _, err := os.Lstat(p); err != nil {
						continue
					}
				}
				next = append(next, p)
				continue
			}
			des, err := readDirUpTo(dir, *left+1)
			if err != nil {
				continue // not a directory, or not readable: no matches
			}
			if *left -= len(des); *left < 0 {
				return nil, false
			}
			for _, de := range des {
				m, err := filepath.Match(seg, de.Name())
				if err != nil {
					return nil, true // malformed: matches nothing
				}
				if m {
					next = append(next, c+sep+de.Name())
				}
			}
		}
		if len(next) > maxGlobMatches {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// globBelow returns what a "**" segment matches from the path c
// (directory dir): c and every directory below it, through symbolic
// links too, and every file below it as well when "**" ends the pattern,
// each entry looked at taken from *left. A link that loops is read until
// *left runs out.
func globBelow(c, dir string, last bool, left *int) ([]string, bool) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, true
	}
	out, todo := []string{c}, []string{c}
	for len(todo) > 0 {
		d := todo[0]
		todo = todo[1:]
		if d == "" {
			d = string(filepath.Separator)
		}
		des, err := readDirUpTo(d, *left+1)
		if err != nil {
			continue
		}
		if *left -= len(des); *left < 0 {
			return nil, false
		}
		for _, de := range des {
			p := filepath.Join(d, de.Name())
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				out, todo = append(out, p), append(todo, p)
			} else if last {
				out = append(out, p)
			}
		}
		if len(out) > maxGlobMatches {
			return nil, false
		}
	}
	return out, true
}

// readDirUpTo reads at most n entries of the directory dir, in directory
// order: a directory of millions of entries costs no more than n.
func readDirUpTo(dir string, n int) ([]os.DirEntry, error) {
	// Only a directory is opened, as filepath.Glob does: opening a FIFO
	// would wait for a writer.
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, os.ErrNotExist
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(n)
	if err != nil && len(des) == 0 {
		return nil, err // io.EOF for an empty directory: no entries either way
	}
	return des, nil
}
