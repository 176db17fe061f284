package policy

import (
	"os"
	"path/filepath"
	"slices"
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
			if names, ok := classNames(seg); ok {
				// "photos[1].jpg": the few names are looked up, so a
				// large directory does not refuse an ordinary name.
				for _, n := range names {
					if _, err := os.Lstat(c + sep + n); err == nil {
						next = append(next, c+sep+n)
					}
				}
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

// extglobGroup reports whether s holds a group a shell's extended glob
// matches names with: bash's extglob (and ksh's) "?(", "*(", "+(", "@("
// and "!(" before a ")", and zsh's "(a|b)" alternatives, which zsh reads
// with no option set. It returns the group's opening for the error. A
// "(" of any other kind ("photo (1).jpg") is no group.
func extglobGroup(s string) (string, bool) {
	for i := strings.IndexByte(s, '('); i >= 0; {
		closing := strings.IndexByte(s[i:], ')')
		if closing < 0 {
			return "", false
		}
		if i > 0 && strings.IndexByte("?*+@!", s[i-1]) >= 0 {
			return s[i-1 : i+1], true
		}
		if strings.IndexByte(s[i:i+closing], '|') >= 0 {
			return "(|)", true
		}
		j := strings.IndexByte(s[i+1:], '(')
		if j < 0 {
			return "", false
		}
		i += 1 + j
	}
	return "", false
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

// maxClassNames bounds how many names classNames spells out.
const maxClassNames = 64

// classNames returns the names the glob segment seg matches when its only
// wildcards are classes of ASCII characters and ranges ("photos[1].jpg",
// "v[0-9]"), up to maxClassNames; false for "*", "?", "\", a negated or
// malformed class, or more names.
func classNames(seg string) ([]string, bool) {
	names := []string{""}
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c == '*' || c == '?' || c == '\\' || c >= 0x80:
			return nil, false
		case c != '[':
			for j := range names {
				names[j] += string(c)
			}
			continue
		}
		end := strings.IndexByte(seg[i+1:], ']')
		if end <= 0 || seg[i+1] == '!' || seg[i+1] == '^' {
			return nil, false
		}
		class := seg[i+1 : i+1+end]
		var chars []byte
		for k := 0; k < len(class); k++ {
			lo, hi := class[k], class[k]
			if k+2 < len(class) && class[k+1] == '-' {
				hi = class[k+2]
				k += 2
			}
			if lo > hi || strings.ContainsAny(string([]byte{lo, hi}), `\[/`) {
				return nil, false
			}
			for b := int(lo); b <= int(hi) && len(chars) <= maxClassNames; b++ {
				if !slices.Contains(chars, byte(b)) {
					chars = append(chars, byte(b))
				}
			}
		}
		if len(names)*len(chars) > maxClassNames {
			return nil, false
		}
		var out []string
		for _, n := range names {
			for _, b := range chars {
				out = append(out, n+string(b))
			}
		}
		names = out
		i += end + 1
	}
	for _, n := range names {
		// A class filepath.Match reads otherwise ("[a-]" is malformed).
		if m, err := filepath.Match(seg, n); err != nil || !m {
			return nil, false
		}
	}
	return names, true
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
