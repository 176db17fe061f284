package classify

import (
	"slices"
	"strings"
)

// A command line can write by a relative name after changing directory
// (cd vendor/lib/.git && cat p > config), so a relative write is judged
// where it is and in every directory the shell may be in at that point:
// each directory a cd, pushd, git -C or env -C before it in the walk
// changed into. A change that may fail leaves the shell where it was, so
// the set only grows; a subshell's changes end with it. Loop and function
// bodies and trap strings may run after changes that come later in the
// text, so a second walk judges their writes in every directory the line
// changes into.
//
// Judging each directory on its own (not their compositions) is enough:
// a directory that climbs out (..) or is absolute makes the write outside
// the working directory by itself, and a path that only descends keeps
// every protected component (.git) of each step.

// maxDirs is how many directories a line may change into before any
// relative write counts as a write to a place not known until it runs.
const maxDirs = 16

// dirSet is a set of directories the shell may be in.
type dirSet struct {
	dirs []word // as written, literal or known values
	// unknown, when set, names a directory known only at run time;
	// anywhere, one that may be any directory (cd "$d", cd $(...)), not
	// one known in part (cd /proc/$PPID), which globs judge.
	unknown, anywhere string
	// globs are the directories known only in part, as globs with their
	// expansions as '*' (cd /proc/$PPID is /proc/*): a secret file's
	// name is judged in them too.
	globs []word
}

func (d *dirSet) empty() bool { return len(d.dirs) == 0 && d.unknown == "" }

// add records a directory.
func (d *dirSet) add(w word) {
	switch {
	case w.unknown():
		if d.unknown == "" {
			d.unknown = w.s
		}
		// A directory that is all expansion (cd "$d") says nothing of
		// where it is: only one with a literal part is kept, and the one
		// the defaults it spells out give (cd ${d:-~/.aws}).
		for _, as := range []func() (string, bool){w.holesAsGlob, w.holesAsDefaults} {
			if g, ok := as(); ok && strings.Trim(g, "*/") != "" && len(d.globs) < maxDirs &&
				!slices.ContainsFunc(d.globs, func(x word) bool { return x.s == g }) {
				d.globs = append(d.globs, word{s: g, glob: true})
			}
		}
	case w.s == "" || cleanPath(w.s) == ".":
	case slices.ContainsFunc(d.dirs, func(x word) bool { return x.s == w.s }):
	case len(d.dirs) >= maxDirs:
		if d.unknown == "" {
			d.unknown = "more directory changes than can be followed"
		}
	default:
		d.dirs = append(d.dirs, w)
	}
}

func (d *dirSet) save() dirSet {
	return dirSet{dirs: slices.Clip(d.dirs), unknown: d.unknown, anywhere: d.anywhere, globs: slices.Clip(d.globs)}
}

func (d *dirSet) restore(saved dirSet) { *d = saved }

// chdir records that the shell (or the command being judged) changes into
// the directory named by w.
func (s *state) chdir(w word) {
	s.cwd.add(w)
	s.seen.add(w)
	if w.unknown() && s.cwd.anywhere == "" && (len(w.holes) == 0 || s.computedName(w)) {
		s.cwd.anywhere = w.s
	}
}

// chdirUnknown records a change into a directory known only at run time,
// described by what.
func (s *state) chdirUnknown(what string) {
	s.chdir(word{s: what, dyn: true})
}

func (s *state) enterRepeat() {
	s.repeat++
	s.repeated = true
}

func (s *state) leaveRepeat() { s.repeat-- }

// checkCd records the directory cd or pushd changes into: cd alone goes
// home, cd - to $OLDPWD (known only at run time); pushd alone, +N and -N
// only rotate directories the line already changed into (the shell starts
// with an empty stack).
func checkCd(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var g *Options
	if r, ok := s.c.commands.get(name); ok {
		g = &r.Options
	}
	sc := scanOptions(name, args, g, false)
	if len(sc.ops) == 0 {
		if name == "cd" {
			s.chdir(word{s: "~", lit: true})
		}
		return info{}
	}
	w := args[sc.ops[0]]
	if v, ok := pathValue(w); ok && (w.unknown() || v != w.s) {
		w = word{s: v, lit: true} // cd "$PWD/d" and cd ~+/d are cd ./d
	}
	switch {
	case w.s == "-" && !w.unknown():
		s.chdirUnknown("$OLDPWD")
	case name != "cd" && !w.unknown() && len(w.s) > 1 && (w.s[0] == '+' || w.s[0] == '-') && isDigits(w.s[1:]):
	default:
		s.chdir(w)
	}
	return info{}
}
