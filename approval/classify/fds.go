package classify

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// On Linux, opening /dev/fd/N (or /proc/self/fd/N, /dev/stdout, ...) does
// not duplicate descriptor N: it opens again the file N refers to, with the
// new mode. So "exec 3<.git/config; echo x >> /dev/fd/3" writes the file
// the line only opened to read, and "exec 3<.git; echo x > /dev/fd/3/config"
// writes inside the directory it holds. A write to such a path is judged
// against every descriptor the line opens for reading, wherever it opens it
// (a loop or eval may open it after the write in the text): see fdState.

// fdState is what a line does with file descriptors, for judging writes to
// /dev/fd/N.
type fdState struct {
	read   map[string]bool // descriptors opened to read a file (3<f, <f is 0)
	high   bool            // a descriptor bash numbers itself ({fd}<f: 10 and up)
	dups   [][2]string     // N<&M and N>&M: N becomes a copy of M
	writes []fdWrite       // writes to /dev/fd/N and friends, judged at the end
	// download: a descriptor the line opens to read holds downloaded
	// content (exec 3< <(curl URL)); codeRead names the programs that run
	// code from a descriptor (bash <&3, bash /dev/fd/3, or a bash reading
	// the standard input an exec may have replaced). Together, downloaded
	// content runs: see checkFdCode.
	download bool
	codeRead []string
	// texts are the known texts of the here-strings and here-documents
	// the line opens on a descriptor other than 0 (exec 3<<<'rm -rf ~'):
	// a shell among codeRead (sh <&3) runs one as code (see checkFdCode).
	texts []string
	// shellOut counts the output redirections the line opens on a
	// process substitution whose command runs what it reads (> >(sh),
	// 3> >(bash)); shellHeld says one of them is an exec's, which keeps
	// the descriptor open for the rest of the line (exec 3> >(sh)); and
	// downloader says a downloader runs on the line. With shellHeld,
	// what a downloader fetches may be written there (curl URL >&3): see
	// checkFdShell.
	shellOut   int
	shellHeld  bool
	downloader bool
}

type fdWrite struct {
	fd   string
	path string
}

// fdRedirect records what redirection r does to descriptors.
func (s *state) fdRedirect(r *syntax.Redirect) {
	n := ""
	if r.N != nil {
		n = r.N.Value
	}
	named := n != "" && !isDigits(n)
	if (r.Op == syntax.WordHdoc || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && n != "" && n != "0" {
		w := r.Word
		if r.Op != syntax.WordHdoc {
			w = r.Hdoc
		}
		if w != nil {
			if text, ok := litValue(w); ok {
				s.fds.texts = append(s.fds.texts, text)
			}
		}
		return
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut:
		if n == "" {
			n = "0"
		}
	case syntax.DplIn, syntax.DplOut:
		if n == "" {
			n = "0"
			if r.Op == syntax.DplOut {
				n = "1"
			}
		}
		m, ok := "", false
		if r.Word != nil {
			m, ok = litValue(r.Word)
		}
		switch {
		case ok && m == "-":
			return
		case ok && isDigits(m):
			if named {
				// A copy under a number bash picks: any high descriptor
				// may now hold what m holds; judged as if it were read.
				s.fds.dups = append(s.fds.dups, [2]string{"{high}", m})
				return
			}
			s.fds.dups = append(s.fds.dups, [2]string{n, m})
			return
		case r.Op == syntax.DplOut:
			// >&file writes file; judged as a write elsewhere.
			return
		}
	default:
		return
	}
	if named {
		s.fds.high = true
		return
	}
	if s.fds.read == nil {
		s.fds.read = map[string]bool{}
	}
	s.fds.read[n] = true
}

// fdPath reports whether p names a file descriptor of the shell's own
// process, which descriptor, and whether the path goes on beneath it or
// through "..", into the directory the descriptor may hold.
func fdPath(p string) (fd string, beneath, ok bool) {
	var comps []string
	dotdot := false
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			dotdot = true
		}
		comps = append(comps, c)
	}
	if !strings.HasPrefix(p, "/") {
		return "", false, false
	}
	if dotdot {
		// /dev/fd/3/../config is config beside what descriptor 3 holds,
		// though it reads as /dev/fd/config.
		c := cleanPath(p)
		if strings.HasPrefix(c, "/dev/fd/") || strings.HasPrefix(c, "/proc/self/fd/") ||
			strings.HasPrefix(c, "/proc/thread-self/fd/") || c == "/dev/stdin" || c == "/dev/stdout" || c == "/dev/stderr" {
			return "", true, true
		}
		return "", false, false
	}
	std := map[string]string{"stdin": "0", "stdout": "1", "stderr": "2"}
	switch {
	case len(comps) >= 2 && comps[0] == "dev" && std[comps[1]] != "":
		return std[comps[1]], len(comps) > 2, true
	case len(comps) >= 3 && comps[0] == "dev" && comps[1] == "fd":
		return comps[2], len(comps) > 3, true
	case len(comps) >= 4 && comps[0] == "proc" && (comps[1] == "self" || comps[1] == "thread-self") && comps[2] == "fd":
		return comps[3], len(comps) > 4, true
	}
	return "", false, false
}

// fdWriteLevel judges a write to w when it names one of the shell's file
// descriptors: beneath one it is Defaults.WriteOutside at once; a
// descriptor itself is remembered and judged by checkFdWrites.
func (s *state) fdWriteLevel(w word) (Level, string, bool) {
	if w.unknown() || w.glob {
		return 0, "", false
	}
	fd, beneath, ok := fdPath(w.s)
	if !ok {
		return 0, "", false
	}
	if beneath {
		return s.c.rules.Defaults.WriteOutside, fmt.Sprintf("writes to %s, beneath a file descriptor: into the directory it holds, which may be .git or outside the working directory", w.s), true
	}
	s.fds.writes = append(s.fds.writes, fdWrite{fd: fd, path: w.s})
	return 0, "", false
}

// checkFdCode judges, once the whole line is walked, the programs that run
// code from a descriptor when the line opens one on downloaded content
// (exec 3< <(curl URL); bash <&3): wherever it opens it, as a loop or a
// function may open it after the text that reads it.
//
// And when the line opens one on text it spells out (exec 3<<<'rm -rf
// ~'; sh <&3), a shell that reads code so runs that text: judged as code.
func (s *state) checkFdCode() {
	for _, name := range s.fds.codeRead {
		if _, shell := s.c.shells.get(name); !shell || len(s.fds.texts) == 0 || s.stopped {
			continue
		}
		for _, t := range s.fds.texts {
			s.reparse(t, name+" (a descriptor's text)")
		}
		break
	}
	if !s.fds.download {
		return
	}
	for _, name := range s.fds.codeRead {
		s.note(s.c.rules.Defaults.DownloadExec, name+" runs code from a file descriptor, and the line opens one on downloaded content")
	}
}

// intoShell judges a statement one of whose output redirections opens a
// process substitution whose command runs what it reads (st's own, or
// an exec's, kept for the rest of the line). Its command's output is
// code for that shell: a downloader in it ({ curl URL; } > >(sh)) runs
// what it fetches. An exec with no command keeps the descriptor open
// (exec 3> >(sh)), and anything downloaded on the line may go there; so
// may what a function the line defines writes (f > >(sh)), as its body
// is not judged as the call's.
func (s *state) intoShell(st *syntax.Stmt, ran info) {
	if ran.download {
		s.note(s.c.rules.Defaults.DownloadExec, "writes what a downloader fetches into a process substitution whose command runs it")
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	if v, ok := litValue(ce.Args[0]); ok && s.funcs[v] {
		s.fds.shellHeld = true
		return
	}
	// exec, builtin exec, command exec: nothing after exec.
	for k, a := range ce.Args {
		v, ok := litValue(a)
		last := k == len(ce.Args)-1
		if !ok || last && v != "exec" || !last && v != "builtin" && v != "command" {
			return
		}
	}
	s.fds.shellHeld = true
}

// checkFdShell judges, once the whole line is walked, an exec that keeps
// a descriptor open on a shell's input (exec 3> >(sh), exec > >(bash))
// on a line that runs a downloader: wherever the download is in the
// text, as a loop or function may run it after the exec, and however it
// reaches the descriptor (>&3, /dev/fd/3, a pipe into cat >&3), it may
// be written there, and the shell runs it.
func (s *state) checkFdShell() {
	if s.fds.shellHeld && s.fds.downloader {
		s.note(s.c.rules.Defaults.DownloadExec, "keeps a descriptor open on a process substitution whose command runs what it reads (exec N> >(sh)), and downloads on the same line: what it fetches may be written there")
	}
}

// checkFdWrites judges, once the whole line is walked, each write to
// /dev/fd/N (or /dev/stdout, ...) against the descriptors the line opens
// for reading: such a write opens that file again, for writing.
func (s *state) checkFdWrites() {
	if len(s.fds.writes) == 0 {
		return
	}
	read := map[string]bool{}
	for k := range s.fds.read {
		read[k] = true
	}
	high := s.fds.high
	tainted := func(fd string) bool {
		if read[fd] {
			return true
		}
		return high && (fd == "{high}" || (isDigits(fd) && len(fd) > 1))
	}
	for changed := true; changed; {
		changed = false
		for _, d := range s.fds.dups {
			if tainted(d[1]) && !tainted(d[0]) {
				if d[0] == "{high}" {
					high = true
				} else {
					read[d[0]] = true
				}
				changed = true
			}
		}
	}
	for _, w := range s.fds.writes {
		if tainted(w.fd) {
			s.note(s.c.rules.Defaults.WriteOutside, fmt.Sprintf("writes to %s, which opens again, for writing, the file descriptor %s was opened to read: any file the line reads", w.path, w.fd))
		}
	}
}
