package classify

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// judgement collects the findings about one simple command.
type judgement struct {
	fs []finding
}

func (j *judgement) add(l Level, reason string) { j.fs = append(j.fs, finding{l, reason}) }

func (j *judgement) level() Level {
	l := Safe
	for _, f := range j.fs {
		l = max(l, f.level)
	}
	return l
}

func (j *judgement) reasons(l Level) []string {
	var out reasonList
	for _, f := range j.fs {
		if f.level == l {
			out.add(f.reason)
		}
	}
	return out.list
}

// reasonList collects reasons, each once, in order. Past a few it keeps
// a set of them, so that a command or line with thousands of reasons
// (FOO1=1 FOO2=1 ... cmd) costs no more than their number.
type reasonList struct {
	list []string
	seen map[string]bool
}

func (r *reasonList) add(reason string) {
	switch {
	case reason == "":
	case r.seen != nil:
		if !r.seen[reason] {
			r.seen[reason] = true
			r.list = append(r.list, reason)
		}
	case !slices.Contains(r.list, reason):
		r.list = append(r.list, reason)
		if len(r.list) > 16 {
			r.seen = make(map[string]bool, 2*len(r.list))
			for _, x := range r.list {
				r.seen[x] = true
			}
		}
	}
}

// judgeCtx is what a simple command inherits from the words around it.
type judgeCtx struct {
	stdin     *stdinSrc // its standard input redirection
	extra     []finding // findings of its redirections and assignments
	stdinArgs bool      // more operands come from standard input (xargs)
	// appended names the wrapper (xargs) whose input items follow the
	// command's arguments; "" when they fill {} words instead or there
	// are none.
	appended string
	// reader names the wrapper (xargs) that reads its standard input to
	// fill in the command's words or add to them; "" for find's {}.
	reader string
	// argFile: the reader reads them from a file it names (xargs -a).
	argFile bool
	via     []string // wrappers it is run through
}

// inputCode judges code a command gets from the items a wrapper (xargs)
// or find fills in when it runs: a code word holding them (sh -c {}), or,
// when missing is set, code the command expects that is missing from its
// arguments, so that the first item xargs adds is the code (xargs sh -c).
// Code read from xargs' input executes that input: a pipe of downloaded
// content into it is running downloaded content.
func (s *state) inputCode(name, what string, w *word, missing bool, cx judgeCtx, j *judgement) info {
	switch {
	case w != nil && w.input:
		j.add(s.c.rules.Defaults.GeneratedCode, fmt.Sprintf("%s runs %s filled in with text %s reads", name, what, orDefault(cx.reader, "xargs or find")))
	case w == nil && missing && cx.appended != "":
		j.add(s.c.rules.Defaults.GeneratedCode, fmt.Sprintf("%s runs %s that %s reads from its input", name, what, cx.appended))
	default:
		return info{}
	}
	return info{execStdin: cx.reader != ""}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (s *state) call(ce *syntax.CallExpr, stdin *stdinSrc, extra []finding) info {
	var inf info
	fs := extra
	if len(ce.Args) == 0 {
		for _, a := range ce.Assigns {
			inf = inf.or(s.assign(a, &fs, false, false))
		}
		for _, f := range fs {
			s.note(f.level, f.reason)
		}
		return inf
	}
	// Prefix assignments only apply to this command: judge, do not remember.
	saved, savedPwd := s.vars, s.pwdVars
	if len(ce.Assigns) > 0 {
		s.copying(len(saved) + len(savedPwd))
		s.vars = cloneVars(saved)
		s.pwdVars = maps.Clone(savedPwd)
	}
	var env map[string]envVal
	for _, a := range ce.Assigns {
		inf = inf.or(s.assign(a, &fs, true, false))
		if a.Name != nil {
			if env == nil {
				s.copying(len(s.cmdEnv))
				env = maps.Clone(s.cmdEnv)
				if env == nil {
					env = map[string]envVal{}
				}
			}
			v, ok := s.vars[a.Name.Value]
			env[a.Name.Value] = envVal{v, ok && a.Index == nil && a.Array == nil, s.pwdVars[a.Name.Value]}
		}
	}
	s.vars, s.pwdVars = saved, savedPwd
	if env != nil {
		// The command's environment, for the shells it runs.
		oldEnv := s.cmdEnv
		s.cmdEnv = env
		defer func() { s.cmdEnv = oldEnv }()
	}
	argv := make([]word, 0, len(ce.Args))
	for _, w := range ce.Args {
		argv = append(argv, s.words(w)...)
	}
	if len(argv) > 0 && slices.Contains([]string{"eval", "source", "."}, argv[0].s) &&
		slices.ContainsFunc(ce.Assigns, func(a *syntax.Assign) bool { return a.Name != nil && a.Name.Value == "IFS" }) {
		// IFS=x eval CODE: the code's words split where x says.
		s.ifsChanged()
	}
	for _, w := range argv {
		inf.download = inf.download || w.download
	}
	if len(argv) == 0 {
		return inf
	}
	return inf.or(s.judge(argv, judgeCtx{stdin: stdin, extra: fs}))
}

func cloneVars(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func strs(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}

// baseName is the name a command word runs: /usr/bin/rm and ./rm are rm.
func baseName(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	b := path.Base(s)
	if b == "/" || b == "." {
		return s
	}
	return b
}

// maxJudgedText bounds the text of the commands one line's judgement
// reads, in multiples of Limits.MaxLength: a line of full length can be
// judged again under a few wrappers, and its cost stays a few times that
// of a plain line of the same length.
const maxJudgedText = 8

// judge judges one simple command (argv already resolved) and records it.
func (s *state) judge(argv []word, cx judgeCtx) info {
	if s.stopped {
		return info{}
	}
	if s.judged >= s.c.rules.Limits.MaxCommands {
		s.overLimit(fmt.Sprintf("more than %d commands", s.c.rules.Limits.MaxCommands))
		s.stopped = true
		return info{}
	}
	if len(cx.via) > s.c.rules.Limits.MaxNesting {
		// Each wrapper's command is judged with the words after it:
		// thousands of wrappers would cost time and memory squared.
		s.overLimit(fmt.Sprintf("commands wrapped more than %d deep", s.c.rules.Limits.MaxNesting))
		s.stopped = true
		return info{}
	}
	for _, w := range argv {
		s.judgedText += len(w.s) + 1
	}
	if limit := maxJudgedText * s.c.rules.Limits.MaxLength; s.judgedText > limit {
		// A command is judged again by each wrapper around it, and by
		// each way of reading an option its grammar does not know: 199
		// env around 30,000 words, or 12 env --zz, took seconds to minutes.
		s.overLimit(fmt.Sprintf("commands to judge longer than %d bytes in all (each wrapper's command counts again)", limit))
		s.stopped = true
		return info{}
	}
	s.judged++
	d := &s.c.rules.Defaults
	j := &judgement{fs: cx.extra}
	first := argv[0]
	name := baseName(first.s)
	if goReleaseRe.MatchString(name) && !s.funcs[name] {
		// gotip and go1.22.0 (golang.org/dl) are go of another release.
		name = "go"
	}
	switch {
	case first.download:
		j.add(d.DownloadExec, "runs a command named by downloaded content")
	case first.brace:
		j.add(d.DynamicCommand, "command name comes from a brace expansion: "+first.s)
	case first.glob:
		j.add(d.DynamicCommand, "command name is a glob pattern: "+first.s)
	case first.subst:
		j.add(d.DynamicCommand, "command name comes from a command substitution: "+first.s)
	case !first.lit:
		j.add(d.DynamicCommand, "command name is not a literal word: "+first.s)
	}
	if first.lit && strings.Contains(first.s, "/") && !systemDirs[path.Dir(path.Clean(first.s))] {
		j.add(d.Path, fmt.Sprintf("runs %s by its path: it is not the system's %s", first.s, name))
		s.runsFetched("", first, j)
	}
	idx := len(s.cmds)
	via := cx.via
	if len(s.via) > 0 {
		via = append(slices.Clip(s.via), cx.via...)
	}
	s.cmds = append(s.cmds, Command{Name: name, Args: strs(argv), Via: via, Depth: s.depth})
	args := argv[1:]
	var inf info
	if w, ok := s.c.wrappers.get(name); ok {
		inf = s.wrapper(name, w, args, cx, j)
	} else if sh, ok := s.c.shells.get(name); ok {
		inf = s.shell(name, sh, args, cx, j)
	} else if ir, ok := s.c.interps.get(name); ok {
		inf = s.interp(name, ir, args, cx, j)
	} else if s.funcs[name] && (len(cx.via) == 0 || cx.via[len(cx.via)-1] != "command") {
		// command NAME runs the program NAME, not the function (git()
		// { ...; }; command git commit).
		j.add(Safe, "calls the function "+name+" defined in the command")
	} else if r, ok := s.c.commands.get(name); ok {
		inf = s.rule(name, r, args, cx, j)
	} else {
		j.add(d.Unknown, "unknown command: "+name)
		// It may run its arguments (fakeroot, prlimit, ssh-agent).
		inf = checkRuns(s, name, args, cx, j)
	}
	if s.c.download[name] {
		inf.download = true
		s.fds.downloader = true // see checkFdShell
		for _, w := range s.fetchedFiles(name, args) {
			// The file it saves is written as by a redirection (cd /tmp
			// && curl -O URL), and run later when a shell or the system
			// runs it (curl -o .git/hooks/pre-commit URL).
			if p, ok := s.runsLater(w); ok {
				j.add(d.DownloadExec, name+" writes what it downloads into "+p+", which a shell or the system runs later")
			} else {
				j.add(s.writeTarget(w))
			}
		}
		for _, a := range args {
			if a.execs {
				// curl -o >(sh) URL is curl URL > >(sh).
				j.add(d.DownloadExec, name+" writes what it downloads into "+a.s+", whose command runs it")
			}
		}
	}
	if name == "scp" || name == "rsync" || name == "sftp" {
		s.copiedFromHost(name, args)
	}
	if contentReaders[name] && slices.ContainsFunc(args, s.readsFetchedValue) {
		inf.download = true // cat r/install.sh | sh
		// openssl base64 -d -in a.b64 -out a && sh a: the file it
		// writes holds the download, decoded.
		for _, w := range decodedOutputs(name, args) {
			s.recordFetched(w)
		}
		if name == "uudecode" && len(decodedOutputs(name, args)) == 0 {
			// uudecode p.uu writes the file its header names, which
			// the line does not show: any file it then runs may be it.
			s.fetchedAny = true
		}
	}
	if copiers[name] {
		s.copiedClone(name, args)
	}
	if first.lit && strings.Contains(first.s, "/") {
		inf = inf.or(s.runsWritten("", first, j)) // ./a.sh
	}
	s.secretArgs(args, j)
	if cx.appended != "" || slices.ContainsFunc(args, func(a word) bool { return a.input }) {
		// The items xargs adds, or puts in place of its replace text
		// (xargs -I{} cat {}), are names known only at run time: after
		// cd ~/.aws, ls | xargs cat reads the files there.
		s.secretArgs([]word{{s: "*", glob: true}}, j)
	}
	l := j.level()
	s.cmds[idx].Level = l
	s.cmds[idx].Reasons = j.reasons(l)
	return inf
}

func reasonOr(r, def string) string {
	if r != "" {
		return r
	}
	return def
}

func genericReason(name string, l Level) string {
	switch l {
	case Safe:
		return name + ": read-only"
	case Warning:
		return name + ": changes state"
	case Dangerous:
		return name + ": dangerous"
	default:
		return name + ": blocked"
	}
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

// splitWords splits an option value into words the way env -S does, with
// shell quoting rules.
func (s *state) splitWords(v word) []word {
	f, err := s.c.parse(v.s)
	if err == nil && len(f.Stmts) == 1 {
		if ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Assigns) == 0 && len(f.Stmts[0].Redirs) == 0 {
			old := s.src
			s.src = v.s
			var out []word
			for _, w := range ce.Args {
				for _, x := range s.words(w) {
					x.lit = x.lit && v.lit
					x.subst = x.subst || v.subst
					x.download = x.download || v.download
					out = append(out, x)
				}
			}
			s.src = old
			return out
		}
	}
	var out []word
	for _, x := range strings.Fields(v.s) {
		out = append(out, word{s: x, lit: v.lit, subst: v.subst, download: v.download})
	}
	return out
}

// runString judges a word that a shell will parse and run.
func (s *state) runString(w word, via string, j *judgement) info {
	d := &s.c.rules.Defaults
	if w.download {
		j.add(d.DownloadExec, via+" runs downloaded content")
	} else if w.subst {
		j.add(d.GeneratedCode, via+" runs code produced by a command substitution")
	}
	inf := s.reparse(w.s, via)
	inf.download = inf.download || w.download
	return inf
}

// generated judges running a file that is a process substitution.
func (s *state) generated(w word, via string, j *judgement) {
	d := &s.c.rules.Defaults
	if w.download {
		j.add(d.DownloadExec, via+" runs downloaded content")
	} else {
		j.add(d.GeneratedCode, via+" runs code produced by a process substitution")
	}
}

func (s *state) wrapper(name string, w *WrapperRule, args []word, cx judgeCtx, j *judgement) info {
	j.add(w.Level, reasonOr(w.Reason, genericReason(name, w.Level)))
	at := len(s.cmds)
	outer := cx // what this wrapper itself gets from an xargs around it
	var inf info
	var prefix, envPrefix []word
	noExec := false
	sc := scanOptions(name, args, &w.Options, true)
	s.judgeOptions(name, sc, j, w.Level == Safe)
	s.optionFiles(name, sc.uses, j) // xargs -a.env echo prints .env
	inf = inf.or(s.outputCommand(name, sc.uses, j))
	replace, replaced := "", false
	hasString := false
	use := func(uses []optUse) {
		for _, u := range uses {
			if slices.Contains(w.NoExecFlags, u.opt.Name) {
				noExec = true
			}
			if slices.Contains(w.ReplaceFlags, u.opt.Name) {
				replace, replaced = "{}", true
				if u.has {
					replace = u.val.s
				}
			}
			if !u.has {
				continue
			}
			switch {
			case slices.Contains(w.StringFlags, u.opt.Name):
				hasString = true
				inf = inf.or(s.inputCode(name+" "+u.name, "a command string", &u.val, false, outer, j))
				inf = inf.or(s.runString(u.val, name+" "+u.name, j))
			case slices.Contains(w.SplitFlags, u.opt.Name):
				sh := s.splitWords(u.val)
				prefix = append(prefix, sh...)
				// env itself splits the string its own way (\_ separates):
				// judge that reading too when it differs.
				alt := sh
				if u.val.lit {
					alt = envSplitString(u.val.s)
				}
				envPrefix = append(envPrefix, alt...)
			}
		}
	}
	use(sc.uses)
	i := sc.stopped
	if w.LoneDash && i < len(args) && args[i].lit && args[i].s == "-" {
		i++
	}
	if w.Assignments {
		var env map[string]envVal
		defer func(old map[string]envVal) { s.cmdEnv = old }(s.cmdEnv)
		for i < len(args) && isAssignment(args[i].s) {
			n, v, _ := strings.Cut(args[i].s, "=")
			// env NAME=VALUE cmd: in the environment of what it runs.
			if env == nil {
				s.copying(len(s.cmdEnv))
				env = maps.Clone(s.cmdEnv)
				if env == nil {
					env = map[string]envVal{}
				}
				s.cmdEnv = env
			}
			kv, known := knownValue(args[i], len(n)+1)
			e := envVal{v: kv, known: known}
			if p, ok := pathValue(args[i].cut(len(n) + 1)); ok && !known {
				e.pwd = p // env GOBIN=$PWD/bin
			}
			env[n] = e
			var fs []finding
			s.judgeVar(n, &word{s: v, lit: args[i].lit, dyn: args[i].dyn, split: args[i].split}, true, &fs)
			for _, f := range fs {
				j.add(f.level, f.reason)
			}
			i++
		}
	}
	for n := w.Positionals; n > 0 && i < len(args); n-- {
		if w.WritesPositionals && !(isDigits(args[i].s) && i == len(args)-1) {
			j.add(s.writeTarget(args[i]))
		}
		i++
	}
	unknownAt := [2]int{sc.unknown, -1}
	if w.OptionsAfterPositionals && i < len(args) {
		more := scanOptions(name, args[i:], &w.Options, true)
		s.judgeOptions(name, more, j, w.Level == Safe)
		s.optionFiles(name, more.uses, j)
		use(more.uses)
		if more.unknown >= 0 {
			// ssh host '- rm -r /': as before the positionals.
			unknownAt[1] = i + more.unknown
		}
		i += more.stopped
	}
	plain := args // before markInput
	if w.StdinArgs {
		// What the command runs with is filled in from the input: the
		// words holding the replace text, or more words after them.
		args = slices.Clone(args)
		cx.stdinArgs, cx.appended, cx.reader = true, name, name
		// xargs -a FILE reads its items from FILE, not its input.
		cx.argFile = slices.ContainsFunc(sc.uses, func(u optUse) bool {
			return u.has && (u.opt.Name == "-a" || u.opt.Name == "--arg-file")
		}) || w.LineItems && slices.ContainsFunc(args, func(a word) bool {
			return a.s == "::::" || a.s == "::::+" // parallel CMD :::: FILE
		})
		if replaced {
			cx.appended = ""
			markInput(args, replace)
		}
		if in := cx.stdin; in != nil && in.doc {
			// The words it reads are in the line (xargs cat <<< .env):
			// they name files as arguments do.
			var ws []word
			for _, f := range strings.Fields(in.text) {
				ws = append(ws, word{s: strings.Trim(f, `'"`), lit: true})
			}
			s.secretArgs(ws, j)
		}
	}
	rest := args[min(i, len(args)):]
	if noExec {
		return inf
	}
	if !w.StringOperand && (w.Join || !hasString && len(prefix) == 0 && len(rest) == 0) {
		// Given no command (xargs env), the wrapper runs the one xargs
		// reads; a wrapper that joins its words into shell code (watch)
		// runs what xargs adds as code.
		inf = inf.or(s.inputCode(name, "a command", nil, true, outer, j))
	}
	if w.Alone > Safe && !hasString && len(prefix) == 0 && len(rest) == 0 {
		j.add(w.Alone, reasonOr(w.AloneReason, genericReason(name, w.Alone)))
	}
	if w.StdinShell && !hasString && len(prefix) == 0 && len(rest) == 0 {
		inf = inf.or(s.stdinCode(name, w.Level, cx.stdin, j, nil))
	}
	if w.SendsStdin && !slices.ContainsFunc(sc.uses, func(u optUse) bool { return u.opt.Name == "-n" }) {
		// cat ~/.ssh/id_rsa | ssh HOST 'cat > k', ssh HOST CMD < .env.
		switch in := cx.stdin; {
		case in == nil:
			inf.sendsStdin = true
		case in.file || in.proc:
			j.add(s.c.rules.Defaults.NetworkData, name+" sends the file on its standard input to another host")
		case in.doc && in.subst:
			j.add(s.c.rules.Defaults.NetworkData, name+" sends text made by a substitution to another host")
		}
	}
	for _, k := range unknownAt {
		if k >= 0 && k < i && !w.StringOperand {
			// An option this grammar does not know may be where the
			// command starts: judge that reading too, so nothing hides
			// behind it.
			inf = inf.or(s.wrapped(name, w, nil, args[k:], cx, j))
		}
	}
	if !slices.Equal(strs(prefix), strs(envPrefix)) {
		inf = inf.or(s.wrapped(name, w, envPrefix, rest, cx, j))
	}
	inf = inf.or(s.wrapped(name, w, prefix, rest, cx, j))
	if w.StdinArgs {
		if w.LineItems {
			if slices.ContainsFunc(plain[min(i, len(plain)):], func(a word) bool { return strings.Contains(a.s, "{=") }) {
				// parallel echo '{= system(...) =}': Perl code it runs
				// for each job, which is not judged.
				j.add(Dangerous, name+" runs the Perl code of a {= =} replacement string, which the classifier cannot judge")
			}
			if slices.ContainsFunc(plain[min(i, len(plain)):], func(a word) bool { return parallelPerlRepl(a.s) }) {
				// parallel --plus echo '{/a/b/;system q(id);s/c/d}':
				// the text of a bash-like replacement string is put
				// into the Perl code (s/a/b/;) parallel runs.
				j.add(Dangerous, name+" runs Perl code built from the text of a replacement string such as {/re/str} or {%str}, which the classifier cannot judge")
			}
			var colsep *word
			for _, u := range sc.uses {
				if u.has && (u.opt.Name == "-C" || u.opt.Name == "--colsep") {
					colsep = &u.val
				}
			}
			inf = inf.or(s.lineItems(name, prefix, plain[min(i, len(plain)):], replace, replaced, colsep, w.Join, cx))
		} else {
			inf = inf.or(s.knownItems(name, prefix, plain[min(i, len(plain)):], replace, replaced, cx))
		}
	}
	if w.StdinArgs && s.pipedAll && slices.ContainsFunc(s.cmds[at:], func(c Command) bool { return c.Level >= Dangerous }) {
		// find ~ | xargs rm -rf is rm -rf ~.
		j.add(Blocked, name+" runs a command that deletes or writes with every file under the home, root or a system directory, which the stage before it lists")
	}
	if w.StdinArgs && s.pipedSecret.level > Safe {
		// find ~/.config | xargs cat reads what find ~/.config -exec cat
		// {} + reads.
		j.add(s.pipedSecret.level, s.pipedSecret.reason+", whose names "+name+" hands to a command that may read them")
	}
	return inf
}

// knownItems judges what xargs runs with the items it reads when the line
// spells them out (xargs rm -rf <<< ~, echo / | xargs rm -rf): the
// command rest with them after its arguments or, with a replace text,
// with each line in its place. A few items only: more are judged as
// unknown words already.
func (s *state) knownItems(name string, prefix, rest []word, replace string, replaced bool, cx judgeCtx) info {
	if len(prefix)+len(rest) == 0 {
		return info{} // xargs alone runs echo
	}
	text, ok := s.knownInput(cx)
	if !ok {
		return info{}
	}
	var runs [][]word
	if replaced {
		for _, line := range strings.FieldsFunc(strings.TrimSpace(text), endsItem) {
			if len(runs) == maxKnownItems {
				return info{}
			}
			argv := slices.Clone(rest)
			for k := range argv {
				if !argv[k].unknown() {
					argv[k].s = strings.ReplaceAll(argv[k].s, replace, strings.TrimSpace(line))
				}
			}
			runs = append(runs, argv)
		}
	} else {
		// xargs -0 reads items ended by NUL (printf '%s\0' ~): split
		// there too.
		items := strings.Fields(strings.ReplaceAll(text, "\x00", " "))
		if len(items) > maxKnownItems {
			return info{}
		}
		argv := slices.Clone(rest)
		for _, f := range items {
			argv = append(argv, word{s: strings.Trim(f, `'"`), lit: true})
		}
		runs = append(runs, argv)
	}
	var inf info
	for _, argv := range runs {
		argv = append(slices.Clone(prefix), argv...)
		if len(argv) > 0 && !s.stopped {
			inf = inf.or(s.judge(argv, judgeCtx{via: append(slices.Clip(cx.via), name)}))
		}
	}
	return inf
}

// endsItem reports whether r ends a line xargs -I or parallel reads as
// one item: a newline, or the NUL that ends one with -0 (printf '%s\0' ~
// | xargs -0 -I{} rm -rf {}); splitting at both is never less careful.
func endsItem(r rune) bool { return r == '\n' || r == 0 }

// knownInput is the text a command reads on its standard input when the
// line spells it out: a here-document or here-string of literal text, or
// the known output of the stage piped into it.
func (s *state) knownInput(cx judgeCtx) (string, bool) {
	switch in := cx.stdin; {
	case in != nil && in.doc && !in.subst && !in.download:
		return in.text, true
	case in == nil && s.pipedText != nil:
		return *s.pipedText, true
	}
	return "", false
}

// lineItems judges what parallel runs with the items the line spells
// out: the words after each ::: or :::+ operand, or else each line of its
// input (parallel sh -c ::: CMD, echo CMD | parallel sh -c). Each item
// runs the command rest on its own, in place of the replacement strings
// ({}, {2}, {//}, {+/}, ... see parallelRepl; -I's text for {} when
// given), with each column too when colsep (--colsep's value) is not nil,
// or, without one, as one more word; an item known only at run time is
// one more word too (cat "$x": a name computed when it runs). When join,
// the words are also judged as the shell code parallel makes of them. A
// few items only, as knownItems.
func (s *state) lineItems(name string, prefix, rest []word, replace string, replaced bool, colsep *word, join bool, cx judgeCtx) info {
	var items []word
	source := func(w word) bool { return w.lit && (w.s == ":::" || w.s == ":::+" || w.s == "::::" || w.s == "::::+") }
	if k := slices.IndexFunc(rest, source); k >= 0 {
		// Each ::: or :::+ starts another source of items; a :::: source
		// is the lines of files, names read when it runs (see argFile).
		files := false
		for _, it := range rest[k:] {
			switch {
			case source(it):
				files = strings.HasPrefix(it.s, "::::")
			case !files:
				items = append(items, it)
			}
		}
		rest = rest[:k]
	} else {
		text, ok := s.knownInput(cx)
		if !ok {
			return info{}
		}
		for _, line := range strings.FieldsFunc(text, endsItem) {
			if line = strings.TrimSpace(line); line != "" {
				items = append(items, word{s: line, lit: true})
			}
		}
	}
	if len(prefix)+len(rest) == 0 || len(items) > maxKnownItems {
		return info{}
	}
	// parallel's replacement strings (see parallelFill), or -I's text
	// (which takes {}'s place): with one it appends nothing. One whose
	// value the classifier does not work out (--plus's {%str}, --header's
	// {name}) does not count, and is filled with each of parallelGuesses.
	hasRepl, guessed := false, false
	for _, a := range rest {
		if a.unknown() {
			continue
		}
		hasRepl = hasRepl || replaced && strings.Contains(a.s, replace)
		for _, m := range parallelRepl.FindAllString(a.s, -1) {
			_, ok := parallelFill(m, "")
			hasRepl = hasRepl || ok && !(replaced && m == "{}")
			guessed = guessed || !ok
		}
	}
	// --colsep splits each item into the columns {1}, {2}, ... by a
	// regular expression; one known only at run time may make any part
	// of it a column.
	var sep *regexp.Regexp
	if colsep != nil && colsep.lit {
		var err error
		if sep, err = regexp.Compile(colsep.s); err != nil {
			sep = regexp.MustCompile(regexp.QuoteMeta(colsep.s))
		}
	}
	// parallel 'rm -rf {//}' ::: ~/x: words that are shell code, which
	// parallel joins and hands to a shell with the items in place. Code
	// that does not parse is judged by wrapped already.
	code := join && slices.ContainsFunc(rest, func(a word) bool {
		return !a.unknown() && strings.ContainsAny(a.s, " \t\n;&|<>()$`\"'")
	})
	if code {
		_, err := s.c.parse(strings.Join(strs(append(slices.Clone(prefix), rest...)), " "))
		code = err == nil
	}
	ncx := judgeCtx{via: append(slices.Clip(cx.via), name)}
	var inf info
	seen := map[string]bool{}
	for _, it := range items {
		if it.unknown() {
			// An item known only at run time is judged as an operand.
			if !s.stopped {
				inf = inf.or(s.judge(append(append(slices.Clone(prefix), rest...), it), ncx))
			}
			continue
		}
		vals := []string{it.s}
		switch {
		case colsep != nil && (sep == nil || len(sep.Split(it.s, -1)) > maxKnownItems):
			vals = append(vals, parallelGuesses("{?}", it.s)...)
		case sep != nil:
			vals = append(vals, sep.Split(it.s, -1)...)
		}
		for _, v := range vals {
			// Run g fills each replacement string not worked out with
			// its g-th guess (or its last).
			runs := 1
			for _, a := range rest {
				for _, m := range parallelRepl.FindAllString(a.s, -1) {
					if _, ok := parallelFill(m, v); !ok && !a.unknown() {
						runs = max(runs, len(parallelGuesses(m, v)))
					}
				}
			}
			for g := range runs {
				argv := append(slices.Clone(prefix), parallelFilled(rest, v, g, replace, replaced, nil)...)
				if !hasRepl {
					w := it
					w.s = v
					argv = append(argv, w)
				}
				key := strings.Join(strs(argv), "\x00")
				if seen[key] || s.stopped {
					continue
				}
				seen[key] = true
				inf = inf.or(s.judge(argv, ncx))
				if code {
					filled := append(slices.Clone(prefix), parallelFilled(rest, v, g, replace, replaced, parallelQuote)...)
					inf = inf.or(s.reparse(strings.Join(strs(filled), " "), name))
				}
			}
		}
	}
	return inf
}

// parallelFilled returns the words rest with each replacement string of
// parallel (and -I's text) filled in for the item v, and one whose value
// the classifier does not work out with the guess-th of its
// parallelGuesses (the last when fewer); quote, when not nil, quotes what
// is filled in. Every one is filled with the item: {2} is the item of
// the second source, or with -N of a job's second item, or with --colsep
// its second column; judging each item in each place is never less
// careful.
func parallelFilled(rest []word, v string, guess int, replace string, replaced bool, quote func(string) string) []word {
	if quote == nil {
		quote = func(s string) string { return s }
	}
	out := slices.Clone(rest)
	for k := range out {
		if out[k].unknown() {
			continue
		}
		if replaced {
			out[k].s = strings.ReplaceAll(out[k].s, replace, quote(v))
		}
		out[k].s = parallelRepl.ReplaceAllStringFunc(out[k].s, func(m string) string {
			if f, ok := parallelFill(m, v); ok {
				return quote(f)
			}
			gs := parallelGuesses(m, v)
			return quote(gs[min(guess, len(gs)-1)])
		})
	}
	return out
}

// parallelRepl matches what GNU parallel may read as a replacement
// string: {} (the item), {.} (without its extension), {/} (its base
// name), {//} (its directory), {/.} (both), --plus's {+/}, {..},
// {%str}, {/re/str} and the like, --header's {name}, each also with the
// number of an input source or of an item of the job ({2//}, {-1}).
var parallelRepl = regexp.MustCompile(`\{(-?[0-9]*)([^{}]*)\}`)

// parallelFill returns what the replacement string m stands for when it
// is filled with item, and false for one whose value the classifier does
// not work out (see parallelGuesses).
func parallelFill(m, item string) (string, bool) {
	// strip removes n extensions, as {.} and --plus's {..} do.
	strip := func(s string, n int) string {
		for range n {
			s = strings.TrimSuffix(s, path.Ext(s))
		}
		return s
	}
	switch x := parallelRepl.FindStringSubmatch(m)[2]; x {
	case "":
		return item, true
	case ".", "..", "...":
		return strip(item, len(x)), true
	case "/":
		return path.Base(item), true
	case "//", "+/":
		return path.Dir(item), true
	case "/.", "/..", "/...":
		return strip(path.Base(item), len(x)-1), true
	case "+.", "+..", "+...":
		// The extensions {.}, {..} or {...} removes, without the dot.
		return strings.TrimPrefix(strings.TrimPrefix(item, strip(item, len(x)-1)), "."), true
	case "#", "%", "##":
		return "1", true // the job's number or slot, the number of jobs
	default:
		if d, ok := strings.CutPrefix(x, ":-"); ok {
			// --plus's {:-str} is str when the item is empty.
			if item == "" {
				return d, true
			}
			return item, true
		}
	}
	return "", false
}

// parallelGuesses returns what a replacement string m parallelFill does
// not work out may stand for, filled with item. --plus's {%str} and
// {#str} with a str each of whose characters matches one (.bak) are the
// item with that many removed from its end or start, or the item, and
// {:n} and {:n:m} are the part of it they name. Any other may be the
// item, each directory above it, each part of it from a slash on, or its
// base name ({%/x} of ~/x is ~, {#x} of x/ is /): the shortest come
// first, and at most maxKnownItems of them, as the home and the root are
// the ones a rule blocks.
func parallelGuesses(m, item string) []string {
	x := parallelRepl.FindStringSubmatch(m)[2]
	if sub := parallelSubstr.FindStringSubmatch(x); sub != nil {
		from, _ := strconv.Atoi(sub[1])
		n, err := strconv.Atoi(sub[2])
		if err != nil {
			n = len(item)
		}
		from = min(from, len(item))
		return []string{item[from:min(from+n, len(item))]}
	}
	for _, p := range []string{"%%", "##", "%", "#"} {
		str, ok := strings.CutPrefix(x, p)
		switch {
		case !ok:
			continue
		case !parallelPlain.MatchString(str) || len(str) > len(item):
		case p[0] == '%':
			return []string{item[:len(item)-len(str)], item}
		default:
			return []string{item[len(str):], item}
		}
		break
	}
	gs := []string{item, path.Base(item)}
	for d := item; path.Dir(d) != d; {
		d = path.Dir(d)
		gs = append(gs, d)
	}
	for k, c := range item {
		if c == '/' && k > 0 {
			gs = append(gs, item[k:])
		}
	}
	slices.SortStableFunc(gs, func(a, b string) int { return len(a) - len(b) })
	gs = slices.Compact(gs)
	if len(gs) > maxKnownItems {
		gs = append(gs[:maxKnownItems-1], item)
	}
	return gs
}

var (
	// parallelSubstr matches --plus's {:n} and {:n:m}.
	parallelSubstr = regexp.MustCompile(`^:([0-9]{1,6})(?::([0-9]{1,6}))?$`)
	// parallelPlain matches a regular expression each of whose
	// characters matches one character.
	parallelPlain = regexp.MustCompile(`^[A-Za-z0-9_.,=@~/-]+$`)
)

// parallelPerlRepl reports whether w holds a --plus replacement string
// whose text parallel puts into the Perl code it runs for each job
// ({/re/str} is s/re/str/;), when that text may close the code around
// it: {/a/b/;system q(id);s/c/d} runs id. A regular expression with a
// slash, or any text with a quote, a parenthesis, a sigil, a semicolon
// or a blank.
func parallelPerlRepl(w string) bool {
	for _, m := range parallelRepl.FindAllStringSubmatch(w, -1) {
		x := m[2]
		if x == "" || !strings.ContainsRune("/#%:^,", rune(x[0])) {
			continue
		}
		if _, ok := parallelFill(m[0], "x"); ok && !strings.HasPrefix(x, ":-") {
			continue
		}
		text := strings.TrimLeft(x, "#%:^,-")
		if x[0] == '/' {
			text = strings.TrimLeft(x, "/#%")
			if strings.Contains(text, "/") {
				return true
			}
		}
		if strings.ContainsAny(text, ";'\"$@`()\\ \t\n") {
			return true
		}
	}
	return false
}

// parallelQuote quotes s as parallel does a value it fills into a
// command it hands to a shell, leaving a name of plain characters as it
// is (~ too, which the line's shell expanded in an item it spelled out).
func parallelQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./~+,:@%=-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxKnownItems is the most items knownItems judges.
const maxKnownItems = 8

// wrapped judges what a wrapper runs: rest, after its options.
func (s *state) wrapped(name string, w *WrapperRule, prefix, rest []word, cx judgeCtx, j *judgement) info {
	var inf info
	switch {
	case w.StringOperand:
		if len(rest) > 0 {
			// The string runs later (a trap), after any directory change.
			s.enterRepeat()
			inf = inf.or(s.runString(rest[0], name, j))
			s.leaveRepeat()
		}
		return inf
	case w.Join:
		if len(rest) == 0 {
			return inf
		}
		joined := word{lit: true}
		parts := make([]string, len(rest))
		for k, r := range rest {
			parts[k] = r.s
			if r.lit && slices.Contains(w.KeyNames, r.s) {
				parts[k] = "\n" // the key runs the line typed so far
			}
			joined.lit = joined.lit && r.lit
			joined.subst = joined.subst || r.subst
			joined.download = joined.download || r.download
			joined.input = joined.input || r.input
		}
		joined.s = strings.Join(parts, " ")
		inf = inf.or(s.inputCode(name, "a command string", &joined, false, cx, j))
		if _, err := s.c.parse(joined.s); err != nil {
			// The shell would fail to parse it too; judge the words as
			// the command they look like, which is never less careful.
			j.add(Warning, name+" runs a string that does not parse as shell code")
			ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
			inf = inf.or(s.judge(slices.Clone(rest), ncx))
			// It has run the lines before the error, or reads what the
			// parser does not (see readable).
			if pre, pf := s.c.readable(joined.s, err); pf != nil {
				joined.s = pre
				inf = inf.or(s.runString(joined, name, j))
			}
			return inf
		}
		if cx.appended != "" {
			// parallel sh -c: each line it reads is added to the
			// words, as xargs adds it, so sh -c runs the line.
			ncx := judgeCtx{stdin: cx.stdin, stdinArgs: cx.stdinArgs, appended: cx.appended, reader: cx.reader, argFile: cx.argFile, via: append(slices.Clip(cx.via), name)}
			inf = inf.or(s.judge(slices.Clone(rest), ncx))
		}
		return inf.or(s.runString(joined, name, j))
	}
	inner := append(slices.Clip(prefix), rest...)
	if len(inner) == 0 {
		return inf
	}
	ncx := judgeCtx{stdin: cx.stdin, stdinArgs: cx.stdinArgs, appended: cx.appended, reader: cx.reader, argFile: cx.argFile, via: append(slices.Clip(cx.via), name)}
	return inf.or(s.judge(inner, ncx))
}

// markInput marks the words that hold fill (find's {}, xargs -I's text):
// the command gets them with a name read at run time in its place.
func markInput(ws []word, fill string) {
	for k := range ws {
		if strings.Contains(ws[k].s, fill) {
			ws[k].input = true
		}
	}
}

// inputWrites judges the files named by the input items that follow a
// command's arguments (xargs rm), when the command writes its operands.
func (s *state) inputWrites(name string, cx judgeCtx, j *judgement) {
	if cx.appended != "" {
		j.add(s.c.rules.Defaults.WriteOutside, fmt.Sprintf("%s writes to files named by what %s reads, known only when it runs, which may be a .git/config, a start-up file or outside the working directory", name, cx.appended))
	}
}

func (s *state) shell(name string, r *ShellRule, args []word, cx judgeCtx, j *judgement) info {
	cflag, sflag, interactive := false, false, false
	bashLike := r.Syntax == "bash"
	// The shell's own options are judged as the set and shopt commands
	// they stand for (bash -k is set -k, -O extdebug is shopt -s extdebug).
	var setArgs, shoptArgs []word
	var setShown, shoptShown []string
	value := func(k int) (word, bool) {
		if k < len(args) {
			return args[k], true
		}
		return word{}, false
	}
	i := 0
	for i < len(args) {
		a := args[i].s
		if a == "--" || a == "-" {
			i++
			break
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') || !args[i].lit || !isOptionWord(a) {
			// Not an option the shell would accept: judge it as the
			// command string rather than skip it.
			break
		}
		if !bashLike {
			if slices.Contains(r.ValueFlags, a) {
				i += 2
				continue
			}
			if strings.HasPrefix(a, "--") {
				i++
				continue
			}
		}
		if strings.HasPrefix(a, "--") {
			flag, _, hasEq := strings.Cut(a, "=")
			op := r.Options.lookup(flag)
			switch {
			case op == nil:
				j.add(Warning, fmt.Sprintf("%s: option %s is not on its allowlist", name, flag))
			case op.Level > Safe:
				j.add(op.Level, reasonOr(op.Reason, fmt.Sprintf("%s %s: %s", name, flag, genericReason(name, op.Level))))
			}
			if op != nil && op.Arg == RequiredArg && !hasEq {
				i++
			}
			i++
			continue
		}
		next := i + 1
		for k := 1; k < len(a); k++ {
			c := a[k]
			on := a[0] == '-'
			switch c {
			case 'c':
				cflag = on
			case 's':
				sflag = on
			case 'i':
				interactive = on
				if on {
					j.add(Warning, name+" -i is an interactive shell: it runs the start-up file ~/.bashrc and writes its history file")
				}
			case 'l', 'r', 'D':
				// Login (reads the person's own profile), restricted,
				// dump strings without running.
			case 'o', 'O':
				// The value is the next word, even inside a bundle.
				v, ok := value(next)
				if !ok {
					break
				}
				next++
				if !on {
					break // turning an option off
				}
				if c == 'o' {
					setArgs = append(setArgs, word{s: "-o", lit: true}, v)
					setShown = append(setShown, "-o "+v.s)
				} else {
					shoptArgs = append(shoptArgs, word{s: "-s", lit: true}, v)
					shoptShown = append(shoptShown, "-O "+v.s)
				}
			default:
				if on {
					setArgs = append(setArgs, word{s: "-" + string(c), lit: true})
					setShown = append(setShown, "-"+string(c))
				}
			}
		}
		i = next
	}
	if !bashLike {
		j.add(max(r.Level, Warning), name+"'s syntax is not bash's: what its code does is not understood (zsh's glob qualifiers, for one, run code)")
	} else {
		s.shellOptions(name, "set", setArgs, setShown, j)
		s.shellOptions(name, "shopt", shoptArgs, shoptShown, j)
	}
	ops := args[min(i, len(args)):]
	switch {
	case cflag:
		if len(ops) == 0 {
			if inf := s.inputCode(name+" -c", "a command string", nil, true, cx, j); inf.execStdin || cx.appended != "" {
				return inf
			}
			j.add(Warning, name+" -c without a command string")
			return info{}
		}
		var inf info
		if ops[0].input || cx.stdinArgs && strings.Contains(ops[0].s, "{}") {
			j.add(s.c.rules.Defaults.GeneratedCode, name+" -c runs a string that xargs or find fills with text from its input")
			inf.execStdin = cx.reader != ""
		}
		j.add(Safe, name+" -c runs a command string")
		if len(ops) > 1 {
			// The words after the string are its $0, $1, ... (sh -c
			// 'rm -rf "$1"' _ ~ is rm -rf ~), for the string's shell.
			defer func(old map[string]envVal) { s.cmdEnv = old }(s.cmdEnv)
			s.copying(len(s.cmdEnv))
			env := maps.Clone(s.cmdEnv)
			if env == nil {
				env = map[string]envVal{}
			}
			for k, w := range ops[1:min(len(ops), 11)] {
				// A glob or a name find fills in is not known.
				v, ok := knownValue(w, 0)
				env[strconv.Itoa(k)] = envVal{v: v, known: ok && !w.glob && !w.input}
			}
			s.cmdEnv = env
		}
		return inf.or(s.runString(ops[0], name+" -c", j))
	case len(ops) > 0 && !sflag && !isStdinPath(ops[0]):
		if ops[0].proc {
			s.generated(ops[0], name, j)
			return info{download: ops[0].download}
		}
		if !s.fdScript(name, ops[0], j) {
			j.add(r.Level, name+" runs the script "+ops[0].s)
		}
		s.runsFetched(name, ops[0], j)
		return s.runsWritten(name, ops[0], j)
	}
	if interactive && cx.stdin != nil && cx.stdin.doc && strings.Contains(cx.stdin.text, "!") {
		j.add(s.c.rules.Defaults.GeneratedCode, name+" -i expands history (!!, !$) in the code it reads, which then is not the code judged")
	}
	return s.stdinCode(name, r.Level, cx.stdin, j, nil)
}

// shellOptions judges a shell's invocation options (as written: shown) as
// the command cmd (set or shopt) given args: what is above Safe there is
// above Safe here.
func (s *state) shellOptions(name, cmd string, args []word, shown []string, j *judgement) {
	if len(args) == 0 {
		return
	}
	r, ok := s.c.commands.get(cmd)
	if !ok {
		j.add(Warning, fmt.Sprintf("%s: options %s are not understood", name, strings.Join(shown, " ")))
		return
	}
	sj := &judgement{}
	s.rule(cmd, r, args, judgeCtx{}, sj)
	for _, f := range sj.fs {
		if f.level > Safe {
			j.add(f.level, name+" "+strings.Join(shown, " ")+": "+f.reason)
		}
	}
}

// isStdinPath reports whether w names the standard input as a file
// (/dev/stdin, /dev/fd/0, /proc/self/fd/0): a script read from there is
// the standard input (curl ... | bash /dev/stdin).
func isStdinPath(w word) bool {
	if w.unknown() {
		return false
	}
	fd, beneath, ok := fdPath(w.s)
	return ok && !beneath && fd == "0"
}

// fetchedFiles records the files the downloader name given args writes
// (state.fetched), and returns those it knows it writes: the value of
// -o/--output (curl) or -O/--output-document (wget), and the remote name
// (curl -O URL, wget URL without -O, aria2c, fetch): the base name of
// each URL, with or without a scheme (curl and wget add http://), in the
// directory curl's --output-dir or wget's -P (--directory-prefix) names.
// wget's -o and -a name its log, which is not the download. A URL's base
// name is recorded also where the downloader writes to its standard
// output (curl URL, which a redirection may save under that name), but
// not returned. With curl's -J (--remote-header-name) or wget's
// --content-disposition the server names the file: any local script may
// be it (state.fetchedAny).
func (s *state) fetchedFiles(name string, args []word) []word {
	// curl's -O takes no value (it saves under the URL's name); wget's
	// -O names the file, its -o and -a the log and its -P the directory.
	valued, letters := "oO", "oO"
	switch name {
	case "curl":
		valued, letters = "o", "o"
	case "wget":
		valued, letters = "O", "OoaP"
	}
	var writes []word
	var dir *word
	named, remote := false, name == "wget" || name == "aria2c" || name == "fetch"
	for i := 0; i < len(args); i++ {
		a := args[i].s
		long, v, hasV := strings.Cut(a, "=")
		value := func() *word {
			if hasV {
				return &word{s: v, lit: args[i].lit}
			}
			if i+1 < len(args) {
				i++
				return &args[i]
			}
			return nil
		}
		switch {
		case long == "--output" || long == "--output-document":
			named = true
			if w := value(); w != nil {
				writes = append(writes, *w)
			}
		case name == "curl" && long == "--output-dir" || name == "wget" && long == "--directory-prefix":
			dir = value()
		case name == "curl" && (a == "--remote-name" || a == "--remote-name-all"):
			remote = true
		case a == "--remote-header-name" || a == "--content-disposition" || strings.HasPrefix(a, "--content-disposition="):
			s.fetchedAny = true
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			// A bundle ending in a valued letter takes the next word
			// (curl -sSLo FILE, wget -qO FILE); -oFILE has it attached.
			if name == "curl" && strings.Contains(a, "J") {
				s.fetchedAny = true
			}
			k := strings.IndexAny(a, letters)
			flags := a
			if k > 0 {
				flags = a[:k]
			}
			if name == "curl" && strings.Contains(flags, "O") {
				remote = true // curl -sSLO URL
			}
			var w *word
			switch {
			case k <= 0:
			case k+1 < len(a):
				w = &word{s: a[k+1:], lit: args[i].lit}
			case i+1 < len(args) && !strings.Contains(args[i+1].s, "://"):
				i++
				w = &args[i]
			}
			switch {
			case w == nil:
			case strings.IndexByte(valued, a[k]) >= 0:
				named = true
				writes = append(writes, *w)
			case a[k] == 'P':
				dir = w
			}
		}
	}
	if name == "curl" && dir != nil {
		for k := range writes {
			writes[k] = inDir(dir, writes[k])
		}
	}
	if !named || name == "curl" && remote {
		for _, a := range args {
			// A URL in a variable the line set (u=URL; curl -O "$u")
			// is judged as written.
			v, ok := pathValue(a)
			if !ok || strings.HasPrefix(v, "-") {
				continue
			}
			rest := v
			if _, r, ok := strings.Cut(v, "://"); ok {
				rest = r
			}
			rest, _, _ = strings.Cut(rest, "?")
			if b := path.Base(rest); strings.Contains(rest, "/") && b != "." && b != "/" {
				w := word{s: b, lit: true}
				if remote {
					w = inDir(dir, w)
				}
				s.recordFetched(w)
				if remote {
					writes = append(writes, w)
				}
			}
		}
	}
	writes = slices.DeleteFunc(writes, func(w word) bool { return w.s == "-" || w.s == "" })
	for _, w := range writes {
		s.recordFetched(w)
	}
	return writes
}

// remoteOperandRe matches an operand of scp, rsync or sftp on another
// host: [USER@]HOST:PATH, rsync://, scp:// or sftp://.
var remoteOperandRe = regexp.MustCompile(`^(([^ /:@]+@)?[^ /:@-][^ /:@]*:|(rsync|scp|sftp)://)`)

// rsyncValued are rsync's long options that take the next word as their
// value (popt reads --timeout 10 as --timeout=10), also after the
// operands.
var rsyncValued = strings.Fields(`--rsh --rsync-path --timeout --contimeout --log-file --log-file-format --out-format
	--exclude --include --exclude-from --include-from --files-from --filter --partial-dir --temp-dir --compare-dest
	--copy-dest --link-dest --backup-dir --suffix --chmod --chown --usermap --groupmap --bwlimit --port --sockopts
	--password-file --max-size --min-size --max-delete --modify-window --block-size --checksum-choice --cc
	--compress-choice --zc --compress-level --zl --skip-compress --iconv --address --write-batch --only-write-batch
	--read-batch --protocol --checksum-seed --info --debug --stderr --outbuf --remote-option --copy-as --max-alloc
	--stop-after --stop-at --early-input --config --dparam --bind-address --sparse-block`)

// copiedFromHost records (state.fetched) the files scp, rsync or sftp
// copy from another host (scp host:x.sh . writes ./x.sh; sftp
// host:x.sh [LOCAL]): text from elsewhere, so running one (&& sh x.sh)
// runs downloaded code, as curl -o x.sh URL && sh x.sh does. The local
// destination is the last operand (sftp's second, or "."); a
// destination that may be a directory gets the source's base name in it
// too, and a recursive copy (-r, -a, --recursive, --archive) makes it a
// tree of such files (state.cloned).
func (s *state) copiedFromHost(name string, args []word) {
	var ops []word
	recursive := false
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case a == "--recursive" || a == "--archive":
			recursive = true
		case name == "rsync" && slices.Contains(rsyncValued, a):
			k++ // rsync host:x.sh . --timeout 10: 10 is no destination
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			recursive = recursive || strings.Contains(a, "r") || name == "rsync" && strings.Contains(a, "a")
			// The value of scp's -P PORT, -i KEY, -o OPT, rsync's -e
			// CMD is no operand.
			valued := "cFiJlPSoXD" // scp's -B (batch mode) takes none
			switch name {
			case "sftp":
				valued += "BbRs"
			case "rsync":
				valued = "eBTfM"
			}
			if last := a[len(a)-1:]; strings.Contains(valued, last) && k+1 < len(args) {
				k++
			}
		default:
			ops = append(ops, args[k])
		}
	}
	if len(ops) == 0 {
		return
	}
	srcs, dst := ops[:len(ops)-1], ops[len(ops)-1]
	if name == "sftp" {
		srcs, dst = ops[:1], word{s: ".", lit: true, prefix: 1}
		if len(ops) > 1 {
			dst = ops[1]
		}
	}
	d, ok := pathValue(dst)
	if !ok || remoteOperandRe.MatchString(d) {
		return
	}
	d = path.Clean(d)
	dirLike := d == "." || d == ".." || d == "/" || d == "~" || strings.HasSuffix(dst.s, "/") || len(srcs) > 1
	for _, src := range srcs {
		loc := remoteOperandRe.FindString(src.s)
		if !src.lit || loc == "" {
			continue
		}
		rest := src.s[len(loc):]
		if i := strings.IndexByte(rest, '/'); i >= 0 && strings.HasSuffix(loc, "://") {
			rest = rest[i:] // rsync://HOST/MOD/x.sh: the host is no path
		}
		b := path.Base(strings.TrimRight(rest, "/"))
		if b != "." && b != "/" && b != "" {
			s.recordFetched(word{s: path.Join(d, b), lit: true})
			if recursive {
				s.cloned = append(s.cloned, path.Join(d, b))
			}
		}
		if !dirLike || name == "rsync" && strings.HasSuffix(rest, "/") {
			// rsync host:proj/ proj/ copies what proj holds into proj.
			s.recordFetched(word{s: d, lit: true})
			if recursive {
				s.cloned = append(s.cloned, d)
			}
		}
	}
}

// recordFetched records w, a literal name, as a file a downloader on the
// line wrote (state.fetched).
func (s *state) recordFetched(w word) {
	if !w.lit || w.s == "-" || w.s == "" {
		return
	}
	if s.fetched == nil {
		s.fetched = map[string]bool{}
	}
	s.fetched[path.Clean(w.s)] = true
}

// pathValue returns the value of w, a path, when it is known before it
// runs: a literal, a value knownValue knows (d=r; make -C "$d"), or one
// whose only unknown part is the working directory at its start ($PWD/r,
// $(pwd)/r, ~+/r), which is ".".
func pathValue(w word) (string, bool) {
	if w.lit {
		if r, ok := strings.CutPrefix(w.s, "~+"); ok && (r == "" || r[0] == '/') {
			return "." + r, true // ~+ is $PWD
		}
		return w.s, true
	}
	if v, ok := knownValue(w, 0); ok && !w.glob {
		return v, true
	}
	if w.dynParts == 1 && len(w.holes) == 1 && w.holes[0][0] == 0 && w.holes[0][1] <= len(w.s) && !w.glob {
		switch w.s[:w.holes[0][1]] {
		case "$PWD", "${PWD}", "$(pwd)", "`pwd`":
			return "." + w.s[w.holes[0][1]:], true
		}
	}
	return "", false
}

// computedNames judges the operands of a command that is Safe by its rule
// as the files it reads or lists: a name computed when the command runs
// (computedName) may be any file, a secret one among them, whose contents
// would go back to the model as those of a name spelled out do (cat
// $(echo a2V5 | base64 -d) is cat key, cat $(ls ~/.ssh | head -1) a
// private key). Secrets judge what such a name is spelled as; this, that
// it is not known. Commands whose operands open no file (textOperands)
// are not judged, nor the pattern or program before the files
// (patternFirst). So are the items xargs adds or fills in, unless they
// are known (see inputNames).
func (s *state) computedNames(name string, args []word, g *Options, sc optScan, cx judgeCtx, j *judgement) {
	cmd, _, _ := strings.Cut(name, " ")
	// The value of an option that reads a file is such a name too (grep
	// -f "$x"), also attached to it in a word the scan could not read as
	// options, since its value is not known (grep -f"$x").
	s.optionFiles(name, sc.uses, j)
	attached := map[int]bool{}
	for _, k := range sc.ops {
		if opt, v, ok := g.readsAttached(args[k]); ok {
			s.optionFile(name+" "+opt, v, j)
			attached[k] = true
		}
	}
	if textOperands[cmd] {
		return
	}
	if cx.reader != "" && (cx.appended != "" || slices.ContainsFunc(args, func(a word) bool { return a.input })) && !s.inputNames(cx) {
		j.add(Warning, fmt.Sprintf("%s: file names %s reads when the command runs; the classifier cannot tell which files, and one may be a secret one", name, cx.reader))
	}
	if len(sc.ops) == 0 {
		return
	}
	ops := sc.ops
	if given, ok := patternFirst[cmd]; ok && !slices.ContainsFunc(sc.uses, func(u optUse) bool {
		return slices.Contains(given, u.opt.Name)
	}) {
		// grep "$pat" FILE: the first operand is the pattern, unless an
		// unquoted expansion in it may split into more words.
		if !args[ops[0]].split {
			ops = ops[1:]
		}
	}
	values := len(args) // jq --args: every operand after it is a value
	if cmd == "jq" || cmd == "yq" {
		values = slices.IndexFunc(args, func(a word) bool { return a.s == "--args" || a.s == "--jsonargs" })
		if values < 0 {
			values = len(args)
		}
	}
	for _, k := range ops {
		var what string
		switch {
		case attached[k]:
			continue // judged as the option's value
		case s.computedName(args[k]):
			what = "a file name computed when the command runs (" + args[k].s + ")"
		case s.cwd.anywhere != "" && relativeName(args[k]):
			// cd $(echo fi5rdWJl | base64 -d) && cat config: ~/.kube/config.
			what = args[k].s + " in a directory not known until it runs (" + s.cwd.anywhere + ")"
		default:
			continue
		}
		if k > values || (cmd == "jq" || cmd == "yq") &&
			(k >= 1 && (args[k-1].s == "--arg" || args[k-1].s == "--argjson") ||
				k >= 2 && (args[k-2].s == "--arg" || args[k-2].s == "--argjson")) {
			continue // jq --arg NAME VALUE: a value, not a file
		}
		// A word judged above Safe as any option it may be needs no
		// second reason (kubectl get "$POD" names no file).
		if _, judged := slices.BinarySearch(sc.anyAt, k); !judged {
			j.add(Warning, fmt.Sprintf("%s: %s; the classifier cannot tell which file, and it may be a secret one", name, what))
		}
	}
}

// optionFile judges v, the value of option opt (as "grep -f") that names
// a file the command reads: a secret one by its name, written attached
// to the option too (grep -f.env, which secretArgs takes for an option);
// a name computed when the command runs, or a relative one in a
// directory that may be any, as the operands computedNames judges.
func (s *state) optionFile(opt string, v word, j *judgement) {
	if l, reason, ok := s.secretRule(v); ok {
		j.add(l, reason)
	}
	switch {
	case s.computedName(v):
		j.add(Warning, fmt.Sprintf("%s: a file name computed when the command runs (%s); the classifier cannot tell which file, and it may be a secret one", opt, v.s))
	case s.cwd.anywhere != "" && relativeName(v):
		j.add(Warning, fmt.Sprintf("%s: %s in a directory not known until it runs (%s); the classifier cannot tell which file, and it may be a secret one", opt, v.s, s.cwd.anywhere))
	}
}

// optionFiles judges the values of the options in uses that read a file
// (see optionFile); name is the command's.
func (s *state) optionFiles(name string, uses []optUse, j *judgement) {
	for _, u := range uses {
		if u.opt.Reads && u.has {
			s.optionFile(name+" "+u.name, u.val, j)
		}
	}
}

// outputCommand judges strace's -o '|CMD' and -o '!CMD', which pipe the
// trace into CMD, run by the shell (strace -o '|rm -rf ~' true): CMD is
// judged as shell code.
func (s *state) outputCommand(name string, uses []optUse, j *judgement) info {
	var inf info
	if name != "strace" {
		return inf
	}
	for _, u := range uses {
		if !u.has || u.opt.Writes != "value" || u.val.s == "" || (u.val.s[0] != '|' && u.val.s[0] != '!') {
			continue
		}
		via := name + " " + u.name
		j.add(Dangerous, via+" pipes its output into a shell command")
		cmd := word{s: u.val.s[1:], lit: u.val.lit, subst: u.val.subst, download: u.val.download}
		inf = inf.or(s.runString(cmd, via, j))
	}
	return inf
}

// readsAttached returns the option of g that reads a file and w holds
// with its value attached, when the literal start of w spells it and its
// value is not known (grep -f"$x", -rf"$x", --file="$x"; a long option
// may be abbreviated), and that value.
func (g *Options) readsAttached(w word) (string, word, bool) {
	lit := w.s[:min(w.prefix, len(w.s))]
	if !w.dyn || len(lit) < 2 || lit[0] != '-' {
		return "", word{}, false
	}
	if eq := strings.IndexByte(lit, '='); eq > 0 {
		flag := lit[:eq]
		if g.style() == "go" {
			flag = "-" + strings.TrimLeft(flag, "-")
		}
		op := g.lookup(flag)
		if op == nil && g.style() != "go" && strings.HasPrefix(flag, "--") {
			// An ambiguous abbreviation counts as every option it could
			// be, as the scan judges it (--fil may be --file).
			for _, c := range g.prefixed(flag) {
				if op == nil || c.Reads {
					op = c
				}
			}
		}
		if op != nil && len(flag) > 2 || strings.HasPrefix(flag, "--") || g.style() == "go" {
			if op == nil || !op.Reads {
				return "", word{}, false
			}
			return op.Name, w.cut(eq + 1), true
		}
	}
	if strings.HasPrefix(lit, "--") || g.style() == "go" {
		return "", word{}, false
	}
	// A bundle of single-letter options: the first that takes a value
	// takes the rest of the word.
	for k := 1; k < len(lit); k++ {
		op := g.lookup(lit[:1] + lit[k:k+1])
		if op == nil {
			return "", word{}, false
		}
		if op.Arg != NoArg {
			if !op.Reads {
				return "", word{}, false
			}
			return op.Name, w.cut(k + 1), true
		}
	}
	return "", word{}, false
}

// relativeName reports whether w names a file relative to the working
// directory: known, not absolute, not under ~, not "-" (standard input).
func relativeName(w word) bool {
	v, ok := pathValue(w)
	return ok && v != "" && v != "-" && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~")
}

// inputNames reports whether the items xargs reads are names the line
// judges: text it spells out (xargs cat <<< a.go, echo a.go | xargs cat:
// judged as those words, see knownItems), names a pipe of ls, find, git
// ls-files and the like lists (see listsWorkdir), or the line's own
// input, which is no pipe (a shell tool's is /dev/null). A file (xargs
// -a list, < list) or any other pipe may hold any name.
func (s *state) inputNames(cx judgeCtx) bool {
	if cx.argFile {
		return false
	}
	if _, ok := s.knownInput(cx); ok {
		return true
	}
	return cx.stdin == nil && s.pipeIn != pipeOther
}

// computedName reports whether w is a name computed when the command
// runs: it holds a command substitution (not one echo or printf spells
// out, whose text is known) or a variable whose value the line does not
// give. The working directory by name ($PWD, $(pwd)) and the home
// directory at its start are known directories, $PPID a number, the
// variable of a for loop over words that are all known (for f in *.go)
// one of them, which the loop judged as names, and the names a lister
// gives (cat $(ls), see listsWorkdir) are judged where it lists them.
func (s *state) computedName(w word) bool {
	if len(w.holes) == 0 || w.input || w.proc {
		return false
	}
	if _, ok := pathValue(w); ok {
		return false // ~/x, ./x
	}
	for i, h := range w.holes {
		if h[0] > h[1] || h[1] > len(w.s) {
			return true // the text was changed since: not known
		}
		t := w.s[h[0]:h[1]]
		v := plainVar(t)
		judged, loop := s.loopNames[v]
		switch {
		case i == 0 && h[0] == 0 && (t == "$HOME" || t == "${HOME}"):
		case i == 0 && h[0] == 0 && (t == "$PWD" || t == "${PWD}" || t == "$(pwd)" || t == "`pwd`"):
		case judged || numericVars[v]:
		case (t != "" && s.listedNames[t] || loop) && !strings.HasPrefix(w.s, "/") &&
			!strings.ContainsAny(w.s[:h[0]], "~$`") && !strings.Contains(w.s[:h[0]], ".."):
			// A name a lister gives, as it gives it or below a
			// relative directory (src/$(ls src)); after /etc/ or ~/
			// it is a file there.
		default:
			return true
		}
	}
	return false
}

// listsWorkdir reports whether the code of a command substitution only
// lists names of files the line judges (cat $(ls), wc -l $(find . -name
// '*.go'), grep x $(git ls-files)): those ls, git ls-files, git diff
// --name-only or rg --files list given literal names under the working
// directory, which are files of the directories the line changed into,
// judged as such by secretRule (cd ~/.aws && cat $(ls)), or those find
// or grep -l list under literal starting points, which their checks judge
// as a recursive read from there (find ~/.aws, grep -rl x /etc), or the
// programs which finds on PATH; with nothing that prints other text (ls
// -l's link targets, find -printf) or the hidden files ls hides (ls -a);
// then only line selectors (grep without -o, head -n, sort, uniq).
func listsWorkdir(stmts []*syntax.Stmt) bool {
	if len(stmts) != 1 {
		return false
	}
	var stages []*syntax.Stmt
	var flatten func(st *syntax.Stmt) bool
	flatten = func(st *syntax.Stmt) bool {
		if c, ok := st.Cmd.(*syntax.BinaryCmd); ok && len(st.Redirs) == 0 && !st.Negated && !st.Background {
			return c.Op == syntax.Pipe && flatten(c.X) && flatten(c.Y)
		}
		stages = append(stages, st)
		return true
	}
	return flatten(stmts[0]) && listsThrough(stages)
}

// listsThrough reports whether the stages of a pipe write only names the
// line judges: the first lists them, the others select lines (see
// listsWorkdir).
func listsThrough(stages []*syntax.Stmt) bool {
	return len(stages) > 0 && listedPrefix(stages) == len(stages)
}

// listedPrefix returns how many of the first stages of a pipe write only
// names the line judges (see listsThrough).
func listedPrefix(stages []*syntax.Stmt) int {
	for i, st := range stages {
		argv, ok := literalArgv(st)
		if !ok || i == 0 && !listsNames(argv) || i > 0 && !selectsLines(argv) {
			return i
		}
	}
	return len(stages)
}

// literalArgv returns the words of a simple command of literal words,
// with no assignment or redirection but 2>/dev/null.
func literalArgv(st *syntax.Stmt) ([]string, bool) {
	if st == nil || st.Negated || st.Background || st.Coprocess {
		return nil, false
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrOut || r.N == nil || r.N.Value != "2" || r.Word.Lit() != "/dev/null" {
			return nil, false
		}
	}
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 {
		return nil, false
	}
	argv := make([]string, len(c.Args))
	for i, w := range c.Args {
		if argv[i], ok = wordText(w, nil); !ok {
			return nil, false
		}
	}
	return argv, true
}

// listsNames reports whether argv only lists names the line judges (see
// listsWorkdir).
func listsNames(argv []string) bool {
	// A glob lists what it matches, but not hidden files (ls .*, whose
	// names ls prints).
	hiddenGlob := func(t string) bool {
		c := path.Clean(t)
		return strings.ContainsAny(t, "*?[") && c != "." && (strings.HasPrefix(c, ".") || strings.Contains(c, "/."))
	}
	under := func(t string) bool {
		c := path.Clean(t)
		return t != "" && !strings.ContainsAny(t[:1], "/~-:") && !hiddenGlob(t) && c != ".." && !strings.HasPrefix(c, "../")
	}
	switch argv[0] {
	case "which":
		// The programs of those names on PATH (ls -l $(which go)).
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "*?[") {
				return false
			}
		}
		return true
	case "ls":
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") {
				if strings.HasPrefix(a, "--") || strings.Trim(a[1:], "1trSvXUcu") != "" {
					return false
				}
			} else if !under(a) {
				return false
			}
		}
		return true
	case "find":
		// find prints names under its starting points, which its check
		// judges as a recursive read from there (find /etc, find ~/.aws):
		// any literal one.
		i := 1
		for ; i < len(argv) && !strings.HasPrefix(argv[i], "-") && argv[i] != "!" && argv[i] != "("; i++ {
			if strings.ContainsAny(argv[i], "*?[") {
				return false
			}
		}
		for ; i < len(argv); i++ {
			n, ok := findListTests[argv[i]]
			if !ok {
				return false
			}
			i += n
		}
		return i == len(argv)
	case "git":
		// git ls-files, and git diff --name-only (the files of the
		// repository that differ, from its top).
		if len(argv) < 2 || argv[1] != "ls-files" && (argv[1] != "diff" || !slices.Contains(argv, "--name-only")) {
			return false
		}
		for _, a := range argv[2:] {
			switch {
			case a == "--" || a == "-c" || a == "--cached" || a == "-m" || a == "--modified" || a == "-z":
			case argv[1] == "diff" && (a == "--name-only" || a == "--staged"):
			case !under(a):
				return false
			}
		}
		return true
	case "grep", "egrep", "fgrep", "rg":
		if argv[0] == "rg" && slices.Contains(argv, "--files") {
			// rg --files DIR: every file under DIR.
			for i := 1; i < len(argv); i++ {
				switch a := argv[i]; {
				case a == "--files" || a == "--hidden" || a == "--no-ignore" || a == "-0" || a == "--null" || a == "--":
				case a == "-g" || a == "--glob" || a == "-t" || a == "--type":
					i++ // a glob or a type, which only selects
				case strings.HasPrefix(a, "--glob=") || strings.HasPrefix(a, "--type="):
				case !under(a):
					return false
				}
			}
			return true
		}
		// grep -rl PATTERN DIR: the names of the files that match, under
		// DIR, which the recursive check judges as a read from there.
		names, pattern := false, true
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "-e" || a == "-g" || a == "--glob" || a == "-t" || a == "--type":
				pattern = pattern && a != "-e"
				i++
			case a == "--files-with-matches" || a == "--files-without-match":
				names = true
			case strings.HasPrefix(a, "--include=") || strings.HasPrefix(a, "--exclude=") ||
				strings.HasPrefix(a, "--exclude-dir=") || strings.HasPrefix(a, "--glob=") || strings.HasPrefix(a, "--type="):
			case a == "--hidden" || a == "--no-ignore" || a == "--":
			case strings.HasPrefix(a, "-") && len(a) > 1:
				if strings.Trim(a[1:], "rRlLiIEFwsHx") != "" {
					return false
				}
				names = names || strings.ContainsAny(a, "lL")
			case pattern:
				pattern = false // the pattern
			case hiddenGlob(a):
				return false
			}
		}
		return names
	}
	return false
}

// findListTests are the find tests and actions that print a name or
// nothing, with the number of values each takes.
var findListTests = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1,
	"-iregex": 1, "-type": 1, "-maxdepth": 1, "-mindepth": 1, "-mtime": 1, "-mmin": 1, "-size": 1,
	"-newer": 1, "-empty": 0, "-print": 0, "-print0": 0, "-prune": 0, "-not": 0, "!": 0, "-o": 0, "-or": 0, "-a": 0,
	"-and": 0, "(": 0, ")": 0,
}

// selectsLines reports whether argv only passes on some of the lines it
// reads, whole: grep without -o and files, head and tail -n, sort, uniq.
func selectsLines(argv []string) bool {
	valued := "-n" // head -n N
	if argv[0] == "grep" || argv[0] == "egrep" || argv[0] == "fgrep" {
		valued = "-e" // grep -e PATTERN: the pattern, as an operand
	}
	flags, ops := "", 0
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == valued:
			i++
			if a == "-e" {
				ops++
			}
			flags += a[1:]
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags += a[1:]
		default:
			ops++
		}
	}
	switch argv[0] {
	case "grep", "egrep", "fgrep":
		return ops <= 1 && strings.Trim(flags, "viEFwxGe") == ""
	case "head", "tail":
		return ops == 0 && strings.Trim(flags, "n0123456789") == ""
	case "sort":
		return ops == 0 && strings.Trim(flags, "runVf") == ""
	case "uniq":
		return ops == 0 && flags == ""
	}
	return false
}

// plainVar returns the name of the variable $NAME or ${NAME} expands (or
// of the special parameter $$, $?, $#, $!), or "" for any other
// expansion.
func plainVar(t string) string {
	n, ok := strings.CutPrefix(t, "$")
	if b, ok := strings.CutPrefix(n, "{"); ok {
		n, ok = strings.CutSuffix(b, "}")
		if !ok {
			return ""
		}
	}
	if !ok || !syntax.ValidName(n) && n != "$" && n != "?" && n != "#" && n != "!" {
		return ""
	}
	return n
}

// numericVars are the parameters whose value is a number the line cannot
// change (readonly, or special): cat /proc/$PPID/status names the
// parent's status file, no name computed when the command runs.
var numericVars = map[string]bool{"PPID": true, "UID": true, "EUID": true, "$": true, "?": true, "#": true, "!": true}

// textOperands are the commands Safe by their rule whose operands are no
// file they open: text (echo, printf, tr's sets), numbers (sleep, seq),
// a date's format, the names of variables, commands, users or
// processes, a directory to change into (cd judges that itself), and
// a test or a name function that prints nothing of a file (test -f,
// basename, realpath). A name computed when they run reads no file.
var textOperands = map[string]bool{
	"echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true, ":": true,
	"seq": true, "sleep": true, "wait": true, "shift": true, "exit": true, "return": true, "break": true,
	"continue": true, "unset": true, "read": true, "getopts": true, "let": true, "local": true,
	"export": true, "declare": true, "typeset": true, "readonly": true, "set": true, "shopt": true,
	"expr": true, "factor": true, "numfmt": true, "basename": true, "dirname": true, "realpath": true,
	"readlink": true, "date": true, "cal": true, "id": true, "groups": true, "whoami": true, "pgrep": true,
	"pidof": true, "kill": true, "tput": true, "ulimit": true, "umask": true, "which": true, "whereis": true,
	"type": true, "hash": true, "help": true, "whatis": true, "apropos": true, "getconf": true, "locale": true,
	"printenv": true, "jobs": true, "history": true, "uname": true, "hostname": true, "nproc": true,
	"tty": true, "clear": true, "cd": true, "pushd": true, "popd": true, "dirs": true, "tr": true,
	"pwd": true, "mapfile": true, "readarray": true,
}

// patternFirst are the commands whose first operand is a pattern or a
// program, not a file, unless one of the options given here gives it
// (grep -e PATTERN FILE, sed -f SCRIPT FILE).
var patternFirst = map[string][]string{
	"grep": {"-e", "--regexp", "-f", "--file"}, "egrep": {"-e", "--regexp", "-f", "--file"},
	"fgrep": {"-e", "--regexp", "-f", "--file"}, "zgrep": {"-e", "--regexp", "-f", "--file"},
	"rg": {"-e", "--regexp", "-f", "--file", "--files", "--type-list"}, "ag": nil, "ack": nil,
	"sed": {"-e", "--expression", "-f", "--file"},
	"awk": {"-f", "--file", "-e", "--exec", "--source"}, "gawk": {"-f", "--file", "-e", "--exec", "--source"},
	"mawk": {"-f", "--file", "-e", "--exec", "--source"}, "nawk": {"-f", "--file", "-e", "--exec", "--source"},
	"jq": {"-f", "--from-file"}, "yq": {"-f", "--from-file"},
}

// clonedFile returns the directory of a repository cloned on this line
// (git clone URL [DIR]) that the file w is in, or that w is, here or in a
// directory the line changed into, or "".
func (s *state) clonedFile(w word) string {
	later := s.repeat > 0 && len(s.laterCloned) > 0
	f, ok := pathValue(w)
	if !ok || len(s.cloned) == 0 && !later {
		return ""
	}
	in := []string{path.Clean(f)}
	if !strings.HasPrefix(f, "/") {
		for _, d := range s.cwd.dirs {
			in = append(in, path.Clean(d.s+"/"+f))
		}
	}
	// The directories the line cloned into before this point, and in a
	// loop or function body, which may run later, every clone of the
	// line; neither copied nor their names built for each file.
	for _, p := range in {
		if d := fileIn(p, s.cloned); d != "" {
			return d
		}
		if later {
			if d := fileIn(p, s.laterCloned); d != "" {
				return d
			}
		}
	}
	return ""
}

// fileIn returns the first of dirs that is p or holds it, or "".
func fileIn(p string, dirs []string) string {
	for _, d := range dirs {
		if strings.HasPrefix(p, d) && (len(p) == len(d) || p[len(d)] == '/') {
			return d
		}
	}
	return ""
}

// contentReaders are the commands that write out the files they are
// given, as they are or decompressed or decoded (zcat a.gz, gunzip -c,
// base64 -d a.b64): what they read of a downloaded or cloned file is
// downloaded content.
var contentReaders = map[string]bool{
	"cat": true, "tac": true, "head": true, "tail": true,
	"zcat": true, "gzcat": true, "bzcat": true, "xzcat": true, "lzcat": true, "zstdcat": true, "lz4cat": true,
	"gzip": true, "gunzip": true, "bzip2": true, "bunzip2": true, "xz": true, "unxz": true, "lzma": true,
	"unlzma": true, "zstd": true, "unzstd": true, "lz4": true,
	"base64": true, "base32": true, "basenc": true, "xxd": true, "uudecode": true,
	"openssl": true, "gpg": true, "gpg2": true, "age": true, "rage": true,
}

// decodedOutputOptions are the options that name the file a content
// reader writes what it decodes into (openssl -out a, gpg -o a, age -d
// -o a).
var decodedOutputOptions = map[string][]string{
	"openssl": {"-out"}, "gpg": {"-o", "--output"}, "gpg2": {"-o", "--output"}, "uudecode": {"-o", "--output-file"},
	"age": {"-o", "--output"}, "rage": {"-o", "--output"},
	// base64 -d -i in -o out (BSD's and macOS's base64).
	"base64": {"-o", "--output"},
}

// decodedOutputBundles are the short output options that may end a
// bundle of short options (gpg -qo a -d p.gpg).
var decodedOutputBundles = map[string]byte{"gpg": 'o', "gpg2": 'o', "age": 'o', "rage": 'o'}

// pythonDecoders are the modules of Python's standard library that print
// (or write) the file they are given decoded: python3 -m base64 -d p.b64
// of a download prints it, as base64 -d does.
var pythonDecoders = map[string]bool{"base64": true, "uu": true, "gzip": true, "quopri": true}

// xxdValueOptions are xxd's options that take the next word as their
// value, which is not an operand.
var xxdValueOptions = map[string]bool{
	"-c": true, "-cols": true, "-g": true, "-groupsize": true, "-l": true, "-len": true, "-n": true,
	"-name": true, "-o": true, "-offset": true, "-R": true, "-s": true, "-seek": true,
}

// decodedOutputs returns the files a content reader given args writes
// what it reads into: the value of its output option, or xxd's second
// operand (xxd -r -p in.hex out).
func decodedOutputs(name string, args []word) []word {
	var out []word
	opts := decodedOutputOptions[name]
	var operands []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name == "xxd" {
			if !strings.HasPrefix(a.s, "-") {
				operands = append(operands, a)
			} else if xxdValueOptions[a.s] {
				i++
			}
			continue
		}
		for _, o := range opts {
			if a.s == o && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
				break
			}
			if v, ok := strings.CutPrefix(a.s, o+"="); ok && a.lit {
				out = append(out, word{s: v, lit: true})
				break
			}
		}
		if bundled := decodedOutputBundles[name]; bundled != 0 && len(a.s) > 2 && a.s[0] == '-' && a.s[1] != '-' {
			// gpg -qo a -d p.gpg, age -do a: the letter ends a bundle of
			// short options, with its value the rest or the next word.
			if k := strings.IndexByte(a.s, bundled); k > 0 {
				switch {
				case k+1 < len(a.s) && a.lit:
					out = append(out, word{s: a.s[k+1:], lit: true})
				case k+1 == len(a.s) && i+1 < len(args):
					out = append(out, args[i+1])
					i++
				}
			}
		}
	}
	if len(operands) == 2 {
		out = append(out, operands[1])
	}
	if (name == "gpg" || name == "gpg2") && len(out) == 0 {
		out = gpgDefaultOutputs(args)
	}
	return out
}

// gpgNoFileCommands are gpg's commands that write no file of their
// operands' names: they print (-d, --decrypt), check (--verify) or keep
// keys (--import), or write NAME.gpg (-e, -c, -s).
var gpgNoFileCommands = map[string]bool{
	"-d": true, "--decrypt": true, "--verify": true, "--verify-files": true, "--import": true,
	"-e": true, "--encrypt": true, "-c": true, "--symmetric": true, "-s": true, "--sign": true,
	"--clear-sign": true, "--clearsign": true, "-b": true, "--detach-sign": true, "--encrypt-files": true,
	"--list-packets": true, "--dearmor": true, "--enarmor": true, "--show-keys": true,
}

// gpgDefaultOutputs returns the files gpg given no output option writes
// its operands decrypted into: gpg p.gpg (no command) and gpg
// --decrypt-files p.gpg write p, the name without .gpg, .pgp or .asc.
func gpgDefaultOutputs(args []word) []word {
	var out []word
	for _, a := range args {
		if gpgNoFileCommands[a.s] {
			return nil
		}
		if strings.HasPrefix(a.s, "-") || !a.lit {
			continue
		}
		for _, ext := range []string{".gpg", ".pgp", ".asc"} {
			if b, ok := strings.CutSuffix(a.s, ext); ok && b != "" && !strings.HasSuffix(b, "/") {
				out = append(out, word{s: b, lit: true})
			}
		}
	}
	return out
}

// copiers are the commands whose last operand (or the directory of -t,
// --target-directory) becomes a copy, the new name or a link of the
// others; install copies as cp does.
var copiers = map[string]bool{"cp": true, "mv": true, "ln": true, "rsync": true, "install": true}

// copiedClone records the destination of a clone copied, moved or linked
// (cp -r r w, mv r w, ln -s r w, rsync -a r/ w, mv -t w r) as a clone
// too: w, and w/r for a destination that is a directory; and so the
// destination of a file a downloader on the line wrote as one it wrote
// (curl -o x URL && mv x x.deb && dpkg -i x.deb, install -m755 x a.sh).
// The value of an option (install -m 755) is taken as a source, which
// is never a clone or a download.
func (s *state) copiedClone(name string, args []word) {
	var ops []word
	var target *word // -t DIR, --target-directory=DIR (not rsync's -t)
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case !strings.HasPrefix(a, "-"):
			ops = append(ops, args[k])
		case name == "rsync" || len(a) < 2:
		case strings.HasPrefix(a, "--target-directory="):
			w := args[k].cut(len("--target-directory="))
			target = &w
		case a == "--target-directory" && k+1 < len(args):
			k++
			target = &args[k]
		case a[1] != '-' && strings.Contains(a, "t"):
			// -t DIR, -vt DIR, -tDIR: the rest of the bundle, or the
			// next word, is the directory.
			if i := strings.IndexByte(a, 't'); i+1 < len(a) {
				w := args[k].cut(i + 1)
				target = &w
			} else if k+1 < len(args) {
				k++
				target = &args[k]
			}
		}
	}
	if target != nil {
		// The operands are all sources: the directory is the last.
		ops = append(ops, *target)
	}
	if len(ops) < 2 {
		return
	}
	dst, ok := pathValue(ops[len(ops)-1])
	if !ok {
		return
	}
	for _, src := range ops[:len(ops)-1] {
		v, ok := pathValue(src)
		if ok && s.fetched[path.Clean(v)] {
			s.recordFetched(word{s: dst, lit: true})
			s.recordFetched(word{s: path.Join(dst, path.Base(path.Clean(v))), lit: true})
		}
		if ok && s.isSecretSource(src) {
			// cp .env notes.txt: the copy holds the secret (see gitPushes).
			s.recordSecretCopy(dst)
			s.recordSecretCopy(path.Join(dst, path.Base(path.Clean(v))))
		}
		if d := s.clonedFile(src); !ok || d == "" || d != path.Clean(v) && !slices.ContainsFunc(s.cwd.dirs, func(c word) bool { return path.Join(c.s, v) == d }) {
			continue
		}
		s.cloned = append(s.cloned, path.Clean(dst), path.Join(dst, path.Base(path.Clean(v))))
	}
}

// readsFetched reports whether the file w is one a downloader on the line
// wrote or one of a repository it cloned: its text is downloaded content.
func (s *state) readsFetched(w word) bool {
	return s.clonedFile(w) != "" || w.lit && s.fetched[path.Clean(w.s)]
}

// readsFetchedValue is readsFetched of w, or of the value of an option
// spelled with = (openssl enc -d -in=p.b64, --input=p.age).
func (s *state) readsFetchedValue(w word) bool {
	if s.readsFetched(w) {
		return true
	}
	if n, v, ok := strings.Cut(w.s, "="); ok && strings.HasPrefix(n, "-") && v != "" {
		return s.readsFetched(word{s: v, lit: w.lit})
	}
	return false
}

// runsFetched judges running w (a script, or a command by its path) when
// a downloader on the line wrote it.
func (s *state) runsFetched(name string, w word, j *judgement) {
	if d := s.clonedFile(w); d != "" {
		// A file of a repository cloned on this line (git clone URL r
		// && bash r/install.sh; cd r && ./install.sh) is downloaded code.
		j.add(s.c.rules.Defaults.DownloadExec, strings.TrimSpace(name+" runs "+w.s+", a file of the repository the line cloned into "+d))
		return
	}
	if s.fetchedAny && w.lit && !systemDirs[path.Dir(path.Clean(w.s))] {
		j.add(s.c.rules.Defaults.DownloadExec, strings.TrimSpace(name+" runs "+w.s+", which may be the file a downloader on this line saved under the name the server chose"))
		return
	}
	// A name the line set in a variable (f=x.deb; dpkg -i "$f") is
	// judged as written.
	v, ok := pathValue(w)
	if !ok {
		return
	}
	if !s.fetched[path.Clean(v)] {
		if s.concurrent > 0 {
			s.ranEarly = append(s.ranEarly, ranFile{name: name, path: path.Clean(v)})
		}
		return
	}
	j.add(s.c.rules.Defaults.DownloadExec, strings.TrimSpace(name+" runs "+w.s+", which a downloader wrote on this line"))
}

// ranFile is a file a command in the background or in a pipe runs as a
// script (see state.ranEarly).
type ranFile struct {
	name string // the program that runs it
	path string // the file, cleaned
}

// checkRanEarly judges, once the whole line is walked, the files a
// command in the background or in a pipe runs before, in the text, a
// downloader writes them: it runs beside the rest of the line, so the
// download may be there first (and a FIFO waits for it: mkfifo p; sh < p
// & curl URL > p).
//
// So is text the line spells out written there later (mkfifo p; sh < p &
// echo 'rm -rf ~' > p), when a shell runs it: judged as that code.
func (s *state) checkRanEarly() {
	for _, r := range s.ranEarly {
		if s.fetched[r.path] {
			s.note(s.c.rules.Defaults.DownloadExec, strings.TrimSpace(r.name+" runs "+r.path+" beside the rest of the line, and a downloader on the line writes it"))
		}
		if _, shell := s.c.shells.get(r.name); shell && s.scripts != nil && !s.stopped {
			if text, ok := s.script(r.path); ok {
				s.reparse(text, strings.TrimSpace(r.name+" "+r.path))
			}
		}
	}
}

// fdScript judges running a script named /dev/fd/N (or /proc/self/fd/N)
// for N other than 0: the line opened that descriptor (3<<< CODE,
// 3< <(cmd)), and what it holds is not judged here. It reports whether w
// is such a path.
func (s *state) fdScript(name string, w word, j *judgement) bool {
	if w.unknown() {
		return false
	}
	fd, beneath, ok := fdPath(w.s)
	if !ok || beneath || fd == "0" {
		return false
	}
	j.add(s.c.rules.Defaults.GeneratedCode, fmt.Sprintf("%s runs the code descriptor %s holds (a here-document or a pipe the line opened), which is not judged", name, fd))
	s.fds.codeRead = append(s.fds.codeRead, name)
	return true
}

// isOptionWord reports whether a looks like a real option: a sign followed
// by letters, digits, '-', '_' or '='.
func isOptionWord(a string) bool {
	for i := 1; i < len(a); i++ {
		c := a[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			return false
		}
	}
	return true
}

// stdinCode judges a shell or interpreter that executes its standard input.
// match is nil for shells, whose input is parsed as shell code.
func (s *state) stdinCode(name string, l Level, in *stdinSrc, j *judgement, match []MatchRule) info {
	d := &s.c.rules.Defaults
	switch {
	case in == nil:
		j.add(l, name+" reads code from standard input")
		s.fds.codeRead = append(s.fds.codeRead, name)
		return info{execStdin: true}
	case in.doc:
		if in.download {
			j.add(d.DownloadExec, name+" runs downloaded content")
		} else if in.subst {
			j.add(d.GeneratedCode, name+" runs code produced by a command substitution")
		}
		if match != nil {
			j.add(l, name+" runs code from a here-document")
			for _, m := range match {
				if m.Regex != nil && m.Regex.MatchString(in.text) {
					j.add(m.Level, reasonOr(m.Reason, genericReason(name, m.Level)))
				}
			}
			return info{download: in.download}
		}
		j.add(Safe, name+" runs a here-document")
		inf := s.reparse(in.text, name+" <<")
		inf.download = inf.download || in.download
		return inf
	case in.proc:
		s.generated(word{download: in.download}, name, j)
		return info{download: in.download}
	default:
		j.add(l, name+" runs a script from a file")
		if in.download {
			j.add(d.DownloadExec, name+" runs what it reads from the network")
		}
		if in.file {
			// sh < r/install.sh runs the file as sh r/install.sh does.
			s.runsFetched(name, in.name, j)
		}
		return info{}
	}
}

func (s *state) interp(name string, r *InterpreterRule, args []word, cx judgeCtx, j *judgement) info {
	j.add(r.Level, name+" runs "+name+" code")
	s.matches(r.Match, name, args, nil, false, cx, j)
	if name == "deno" {
		// deno task runs the tasks of a deno.json the line may have
		// written, as shell code.
		for k, a := range args {
			if a.s == "task" && a.lit {
				s.writtenDenoTasks(args[k+1:], j)
			}
			if !strings.HasPrefix(a.s, "-") {
				break
			}
		}
	}
	if name == "bun" {
		s.installDirWrites(name, args, j) // bun add --cwd DIR
	}
	if name == "deno" || name == "bun" {
		// deno run NAME runs the task NAME of deno.json when no file has
		// that name, and bun run NAME package.json's script NAME, as npm
		// run NAME does.
		if k := slices.IndexFunc(args, func(a word) bool { return !strings.HasPrefix(a.s, "-") }); k >= 0 && args[k].s == "run" && args[k].lit {
			if n := slices.IndexFunc(args[k+1:], func(a word) bool { return !strings.HasPrefix(a.s, "-") }); n >= 0 {
				task := args[k+1+n]
				switch {
				case !task.lit || strings.ContainsAny(task.s, "./:"):
				case name == "deno":
					s.writtenDenoTasks([]word{task}, j)
				default:
					s.writtenPackageScripts(name, []word{args[k], task}, j)
				}
			}
		}
	}
	if name == "deno" && len(r.RunWords) > 0 {
		if k, broad, serves := s.denoRemote(name, args, j); k >= 0 && args[k].lit {
			// deno run -A npm:rimraf ~ runs the package's command with
			// every permission, as npx rimraf ~ does: judged as it. A
			// file server (npm:http-server, jsr:@std/http/file-server)
			// needs only to read files and use the network to serve
			// them, as npx http-server ~ does.
			c := ""
			switch m := args[k].s; {
			case strings.HasPrefix(m, "npm:"):
				c = packageCommand(strings.TrimPrefix(m, "npm:"))
				if broad == "" && (!serves || !denoFileServers[c]) {
					c = ""
				}
			case strings.HasPrefix(m, "jsr:") && (serves || broad != "") && denoFileServers[jsrModule(m)]:
				// Deno's own file server is judged by the directory
				// it serves, as serve's (check serves_dir).
				checkServesDir(s, name+" "+m, args[k+1:], cx, j)
			}
			if c != "" {
				ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
				s.judge(append([]word{{s: c, lit: true, prefix: len(c)}}, args[k+1:]...), ncx)
			}
		}
	}
	if powershells[name] {
		args = powershellArgs(name, args, j)
	}
	hasCode := false
	var code *word // the code word of a code flag (-c CODE, --eval=CODE)
	codeIdx := -1
	module := ""     // python -m MODULE
	inPlace := false // perl -i, ruby -i: the files after the code are rewritten
	var suffix word  // -iSUFFIX
	i := 0
	for i < len(args) && !hasCode {
		a := args[i].s
		if a == "--" {
			i++
			break
		}
		if a == "-" || len(a) < 2 || a[0] != '-' {
			break
		}
		switch {
		case slices.Contains(r.CodeFlags, a):
			hasCode = true
			if i+1 < len(args) {
				code, codeIdx = &args[i+1], i+1
				s.codeWord(name, args[i+1], j)
			}
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			f, _, _ := strings.Cut(a, "=")
			if slices.Contains(r.CodeFlags, f) {
				hasCode = true
				code, codeIdx = &args[i], i
				s.codeWord(name, args[i], j)
			}
		case slices.Contains(r.ValueFlags, a):
			if a == "-m" {
				hasCode = true // python -m module runs the module
				if i+1 < len(args) {
					code, codeIdx = &args[i+1], i+1
					module = args[i+1].s
				}
			}
			i++
		case a[1] != '-':
			for k := 1; k < len(a); k++ {
				f := "-" + a[k:k+1]
				if slices.Contains(r.InPlaceFlags, f) {
					inPlace = true
					suffix = args[i]
					suffix.s = a[k+1:]
					break // the rest of the word is the backup suffix (-i.bak)
				}
				if slices.Contains(r.CodeFlags, f) {
					hasCode = true
					if k+1 < len(a) {
						code, codeIdx = &args[i], i
						s.codeWord(name, args[i], j)
					} else if i+1 < len(args) {
						code, codeIdx = &args[i+1], i+1
						s.codeWord(name, args[i+1], j)
					}
					break
				}
				if slices.Contains(r.ValueFlags, f) {
					if f == "-m" {
						hasCode = true
						if k < len(a)-1 {
							code, codeIdx = &args[i], i
							module = a[k+1:]
						} else if i+1 < len(args) {
							code, codeIdx = &args[i+1], i+1
							module = args[i+1].s
						}
					}
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
		}
		i++
	}
	if !hasCode && i < len(args) {
		switch w := args[i].s; {
		case slices.Contains(r.CodeWords, w): // deno eval CODE
			hasCode = true
			if i+1 < len(args) {
				code, codeIdx = &args[i+1], i+1
				s.codeWord(name, args[i+1], j)
			}
		case slices.Contains(r.RunWords, w): // deno run [options] SCRIPT
			run := *r
			// The words after run are a script and its arguments:
			// bun run publish runs a script named publish.
			run.RunWords, run.CodeWords, run.CommandWords = nil, nil, nil
			return s.interp(name, &run, args[i+1:], cx, j)
		case r.CommandWords[w] != "" && !args[i].unknown() && !args[i].glob:
			// bun x PKG is bunx PKG: judged by bunx's rule, a package
			// from a URL included. x from a variable the line set (c=x;
			// bun $c PKG) is x as written.
			ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
			return s.judge(append([]word{{s: r.CommandWords[w], lit: true}}, args[i+1:]...), ncx)
		}
	}
	if inPlace {
		// The files follow the code (perl -pi -e CODE FILE...) or the
		// script (perl -i script.pl FILE...).
		from := len(args)
		switch {
		case codeIdx >= 0:
			from = codeIdx + 1
		case !hasCode && i < len(args):
			from = i + 1
		}
		j.add(Warning, name+" -i edits files in place")
		var files []word
		for _, f := range args[min(from, len(args)):] {
			if !strings.HasPrefix(f.s, "-") || f.unknown() {
				j.add(s.writeTarget(f))
				files = append(files, f)
			}
		}
		s.backupWrites(suffix, files, j)
		s.inputWrites(name, cx, j)
	}
	if hasCode {
		inf := s.inputCode(name, name+" code", code, code == nil, cx, j)
		if code != nil && strings.HasPrefix(name, "ruby") && loadsUn(args[:codeIdx]) {
			inf = inf.or(s.rubyUn(name, *code, args[codeIdx+1:], cx, j))
		}
		if _, ok := s.c.commands.get(module); ok && code != nil && moduleCommands[module] {
			// python -m pip is pip, with all its rule says (python3 -m
			// pip --log ~/.bashrc install x writes ~/.bashrc). It is
			// judged as that command on top of running python code.
			ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
			inner := append([]word{{s: module, lit: true}}, args[codeIdx+1:]...)
			inf = inf.or(s.judge(inner, ncx))
		} else if code != nil && module != "" {
			// python -m pip install . is pip install .
			inf = inf.or(checkProject(s, module, args[codeIdx+1:], cx, j))
			if pythonDecoders[module] && slices.ContainsFunc(args[codeIdx+1:], s.readsFetchedValue) {
				inf.download = true // python3 -m base64 -d p.b64 | sh
			}
			if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
				s.pythonModuleWrites(module, args[codeIdx+1:], j)
			}
		}
		if code != nil && (evalsCode(code.s) || strings.ContainsRune(code.s, '`') && backtickShell(name)) {
			// What it reads may be what it runs: a pipe into it is
			// a pipe into a shell (curl URL | perl -ne 'system $_').
			j.add(Dangerous, name+" code evaluates code or runs programs, which may be what it reads")
			if in := cx.stdin; in != nil && in.download {
				j.add(s.c.rules.Defaults.DownloadExec, name+" runs downloaded content")
			}
			inf.execStdin = true
		}
		return inf
	}
	if i < len(args) && args[i].s != "-" && !isStdinPath(args[i]) {
		if args[i].proc {
			s.generated(args[i], name, j)
			return info{download: args[i].download}
		}
		if name == "bun" && args[i].lit && !strings.ContainsAny(args[i].s, "./") && !slices.Contains(bunCommands, args[i].s) && s.c.Knows(args[i].s) {
			// bun NAME (bun run NAME) that is no file runs the
			// project's script or an installed package's command of
			// that name, as yarn NAME does: judged as that command
			// (bun rimraf ~ is rimraf ~).
			ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
			s.judge(slices.Clone(args[i:]), ncx)
		}
		if v, ok := pathValue(args[i]); ok && !args[i].glob && s.scripts != nil {
			// A script the line wrote with text it spells out (echo
			// CODE > x.py && python3 x.py) runs that text: judged by
			// the code rules, as python3 -c CODE is. Shell code in a
			// shell script (echo 'rm -rf ~' > a.sh; python3 a.sh) is no
			// code of the interpreter's, which fails on it; other text
			// under such a name is (python3 a.sh runs the Python in it).
			shellName := slices.Contains([]string{".sh", ".bash", ".zsh", ".ksh", ".fish"}, path.Ext(v))
			if text, ok := s.script(v); ok {
				if _, err := s.c.parse(text); !shellName || err != nil {
					s.matches(r.Match, name, []word{{s: text, lit: true, prefix: len(text)}}, nil, false, cx, j)
				}
			}
		}
		s.fdScript(name, args[i], j)
		s.runsFetched(name, args[i], j)
		return info{}
	}
	return s.stdinCode(name, r.Level, cx.stdin, j, r.Match)
}

// bunCommands are bun's own commands: bun NAME with any other NAME that is
// no file runs a script or an installed package's command.
var bunCommands = strings.Fields(`add a audit build create exec i info init install link outdated patch patch-commit pm
	publish remove repl rm run test unlink update upgrade why x`)

// denoRemote judges deno running a module from a URL (deno run -A
// https://x.test/y.ts; serve, test, bench, install and x, and deno URL
// with no subcommand, run it too). Deno runs it with the permissions the
// line grants: every one (-A, --allow-all), or one that runs programs,
// loads native code or writes any file (--allow-run, --allow-ffi,
// --allow-write, -W), lets the code do what it likes, so it is
// downloaded code run, Defaults.DownloadExec as curl URL | sh is; read,
// net, env or sys access, or a permission set from the configuration
// (-P), lets it send files out (Dangerous). Without any, deno's sandbox
// holds it, and the rule's level (Warning) stands, as it does for a
// local script and a package of the npm or JSR registry (npm:, jsr:),
// which is npx PKG's. The modules --preload (--import) runs before the
// main one, and the files deno repl --eval-file runs, are judged so too.
// It returns the index in args of the module deno runs (-1 for none, or
// one not known until it runs), the option that grants every
// permission or one that runs programs or writes files ("" for none),
// and whether the module may both read files and use the network (-A,
// -R with -N, or a permission set): what a file server needs.
func (s *state) denoRemote(name string, args []word, j *judgement) (int, string, bool) {
	broad, some := "", ""
	reads, nets := false, false
	sub := ""
	preload := "" // a URL given to --preload, --import or --eval-file
	isURL := func(a string) bool {
		low := strings.ToLower(a)
		return strings.HasPrefix(low, "https://") || strings.HasPrefix(low, "http://")
	}
	judge := func(a string) {
		switch {
		case broad != "":
			j.add(s.c.rules.Defaults.DownloadExec, name+" runs "+a+", code from a URL, with "+broad+": downloaded code that may run programs and write any file")
		case some != "":
			j.add(Dangerous, name+" runs "+a+", code from a URL, with "+some+": it may read files and send them out")
		}
	}
	defer func() {
		if preload != "" {
			judge(preload)
		}
	}()
	for k := 0; k < len(args); k++ {
		a := args[k].s
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			if a == "--" && k+1 < len(args) {
				k++
				a = args[k].s
			}
			if sub == "" && (denoRunners[a] || a == "repl") {
				sub = a // deno repl runs no module, but its --eval-file files
				continue
			}
			if sub == "" && denoCommands[a] || sub == "repl" {
				return -1, "", false // deno compile, eval, task, ...: no module run here
			}
			if args[k].unknown() {
				return -1, "", false
			}
			if isURL(a) {
				judge(a)
			}
			return k, broad, reads && nets
		}
		flag, value, attached := strings.Cut(a, "=")
		if flag == "--preload" || flag == "--import" || flag == "--eval-file" {
			if !attached && k+1 < len(args) {
				k++
				value = args[k].s
			}
			for _, v := range strings.Split(value, ",") {
				if !args[k].unknown() && isURL(v) {
					preload = v
				}
			}
			continue
		}
		switch flag {
		case "-A", "--allow-all", "-P", "--permission-set":
			reads, nets = true, true
		case "-R", "--allow-read":
			reads = true
		case "-N", "--allow-net":
			nets = true
		}
		switch {
		case flag == "-A" || flag == "--allow-all" || flag == "--allow-run" || flag == "--allow-ffi" || flag == "--allow-write" || flag == "-W":
			broad = flag
		case flag == "-P" || flag == "--permission-set" || flag == "--allow-read" || flag == "--allow-net" || flag == "--allow-env" ||
			flag == "--allow-sys" || flag == "-R" || flag == "-N" || flag == "-E" || flag == "-S":
			some = flag
		case denoValueFlags[flag] && !attached:
			k++
		case !strings.HasPrefix(a, "--") && !attached:
			// A bundle of short options (-gA): each letter is one.
			for _, c := range a[1:] {
				switch {
				case c == 'A' || c == 'W':
					broad = a
				case strings.ContainsRune("PRNES", c):
					some = a
				}
				reads = reads || c == 'A' || c == 'P' || c == 'R'
				nets = nets || c == 'A' || c == 'P' || c == 'N'
			}
			if last := "-" + a[len(a)-1:]; len(a) > 2 && denoValueFlags[last] {
				k++
			}
		}
	}
	return -1, "", false
}

// denoFileServers are the modules deno runs that serve a directory on
// the network: an npm package's command (packageCommand of npm:PKG),
// judged as that command, or a JSR module's name without its version
// (jsrModule), judged by the directory it serves.
var denoFileServers = map[string]bool{
	"http-server": true, "serve": true, "live-server": true, "sirv": true,
	"@std/http/file-server": true, "@std/http/file_server": true,
}

// jsrModule returns a JSR module specifier without jsr: and its version
// (jsr:@std/http@1.0.0/file-server is @std/http/file-server).
func jsrModule(spec string) string {
	spec = strings.TrimPrefix(spec, "jsr:")
	scope, rest, ok := strings.Cut(strings.TrimPrefix(spec, "@"), "/")
	if !ok {
		return spec
	}
	pkg, sub, _ := strings.Cut(rest, "/")
	pkg, _, _ = strings.Cut(pkg, "@")
	if sub != "" {
		sub = "/" + sub
	}
	return "@" + scope + "/" + pkg + sub
}

// denoRunners are the subcommands of deno that run the module named
// after their options; denoCommands are its other subcommands, which do
// not run one named so. A first operand that is neither is the module
// deno runs (deno URL).
var (
	denoRunners  = map[string]bool{"run": true, "serve": true, "test": true, "bench": true, "install": true, "x": true}
	denoCommands = map[string]bool{"compile": true, "eval": true, "task": true, "fmt": true, "lint": true, "check": true,
		"doc": true, "info": true, "cache": true, "repl": true, "upgrade": true, "uninstall": true, "types": true, "lsp": true,
		"jupyter": true, "coverage": true, "init": true, "add": true, "remove": true, "outdated": true, "publish": true,
		"vendor": true, "clean": true, "completions": true, "bundle": true, "help": true, "approve-scripts": true, "deploy": true}
	// denoValueFlags are deno's options that take their value as the
	// next word.
	denoValueFlags = map[string]bool{"-c": true, "--config": true, "--import-map": true, "--cert": true, "--location": true,
		"--seed": true, "-L": true, "--log-level": true, "--ext": true, "--preload": true, "--conditions": true, "-n": true,
		"--name": true, "--root": true}
)

// moduleCommands are the Python modules that python -m runs as the
// command of the same name (python -m pip is pip): their rule judges them.
// Other names are left to checkProject, since a module may share the name
// of an unrelated command (python -m rm is no rm).
var moduleCommands = map[string]bool{
	"pip": true, "pip3": true, "pipx": true, "uv": true, "poetry": true, "hatch": true, "pdm": true,
	"conda": true, "pytest": true, "tox": true, "nox": true, "twine": true, "flit": true,
}

// loadsUn reports whether ruby's options (before its -e) load un.rb:
// -run, or -r un.
func loadsUn(opts []word) bool {
	for i, a := range opts {
		if a.s == "-run" || a.s == "-r" && i+1 < len(opts) && opts[i+1].s == "un" {
			return true
		}
	}
	return false
}

// rubyUn judges ruby -run -e CMD [--] ARGS: un.rb's methods are the file
// commands of a shell, run with ARGS as their command line, so each is
// judged as that command (ruby -run -e rm -- -rf ~ is rm -rf ~); httpd
// serves files over the network, as php -S does.
func (s *state) rubyUn(name string, code word, args []word, cx judgeCtx, j *judgement) info {
	if len(args) > 0 && args[0].s == "--" {
		args = args[1:]
	}
	switch code.s {
	case "cp", "ln", "mv", "rm", "mkdir", "rmdir", "install", "chmod", "touch":
		ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
		return s.judge(append([]word{code}, args...), ncx)
	case "httpd":
		j.add(Dangerous, name+" -run -e httpd serves files over the network")
	}
	return info{}
}

// powershells are the names of PowerShell, whose parameters powershellArgs
// reads.
var powershells = map[string]bool{"pwsh": true, "powershell": true, "pwsh-preview": true}

// powershellArgs rewrites the arguments of PowerShell into the words
// interp reads. PowerShell takes its parameters in any case and by any
// prefix (-COMMAND, -comm, -c), and all of them are single words after
// one dash, not bundles of letters. -Command CODE becomes -c CODE;
// -Command - reads the commands from the standard input, and becomes
// "-", as -File - is; -File SCRIPT leaves SCRIPT and its arguments;
// -EncodedCommand (-e, -ec) runs base64 text the classifier does not
// read, which is Dangerous. The other parameters, and the values of
// those that take one, are dropped. A prefix of two names counts as the
// one that runs the most code (-co as -Command).
func powershellArgs(name string, args []word, j *judgement) []word {
	prefixOf := func(p, full string, min int) bool { return len(p) >= min && strings.HasPrefix(full, p) }
	// The parameters that take a value, by a prefix of three letters or
	// more, or by their own short names.
	valued := []string{"-executionpolicy", "-configurationname", "-configurationfile", "-custompipename",
		"-inputformat", "-outputformat", "-workingdirectory", "-settingsfile", "-windowstyle"}
	valuedShort := []string{"-ep", "-ex", "-if", "-o", "-of", "-wd", "-w"}
	for i := 0; i < len(args); i++ {
		p := strings.ToLower(args[i].s)
		if !args[i].lit || len(p) < 2 || p[0] != '-' || p == "--" {
			return args[i:]
		}
		switch {
		case prefixOf(p, "-command", 2):
			if i+1 < len(args) && args[i+1].s == "-" {
				return args[i+1 : i+2]
			}
			return append([]word{{s: "-c", lit: true, prefix: 2}}, args[i+1:]...)
		case p == "-e" || p == "-ec" || prefixOf(p, "-encodedcommand", 3):
			j.add(Dangerous, name+" -EncodedCommand runs base64-encoded code, which is not judged")
			i++
		case prefixOf(p, "-file", 2):
			return args[i+1:]
		case slices.Contains(valuedShort, p) || slices.ContainsFunc(valued, func(v string) bool { return prefixOf(p, v, 3) }):
			i++
		}
	}
	return nil
}

// pythonModules are the modules of Python's standard library whose
// command line (python -m MODULE ARGS) names files they write: the
// options that take a value, whether options end at the first operand
// (the script cProfile runs owns the words after it), and which words
// are written (see pythonModuleWrites).
var pythonModules = map[string]struct {
	valued  []string
	toFirst bool
}{
	"json.tool": {valued: []string{"--indent"}},
	"gzip":      {},
	"zipfile":   {},
	"tarfile":   {valued: []string{"--filter"}},
	"cProfile":  {valued: []string{"-o", "--outfile", "-s", "--sort", "-m"}, toFirst: true},
	"profile":   {valued: []string{"-o", "--outfile", "-s", "--sort", "-m"}, toFirst: true},
	"trace":     {valued: []string{"-f", "--file", "-C", "--coverdir", "--ignore-module", "--ignore-dir", "-m", "--module"}, toFirst: true},
	"zipapp":    {valued: []string{"-o", "--output", "-p", "--python", "-m", "--main"}},
	"venv":      {valued: []string{"--prompt"}},
}

// pythonModuleWrites judges, as writes, the files a module of Python's
// standard library writes when python -m runs it with args: json.tool
// its second operand (python3 -m json.tool in.json ~/.bashrc), gzip
// each operand with .gz added (or, with -d, taken away), zipfile and
// tarfile the archive of -c and the directory of -e, cProfile and
// profile -o, trace --file and --coverdir, zipapp -o, venv each
// operand.
func (s *state) pythonModuleWrites(module string, args []word, j *judgement) {
	m, ok := pythonModules[module]
	if !ok {
		return
	}
	var ops []word
	var flags []string
	values := map[string][]word{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a.s, "-") || a.s == "-" || !a.lit {
			if m.toFirst {
				break
			}
			ops = append(ops, a)
			continue
		}
		f, v, hasV := strings.Cut(a.s, "=")
		if !hasV && !strings.HasPrefix(f, "--") && len(f) > 2 && slices.Contains(m.valued, f[:2]) {
			f, v, hasV = f[:2], f[2:], true // -o~/.bashrc
		}
		flags = append(flags, f)
		if !slices.Contains(m.valued, f) {
			continue
		}
		switch {
		case hasV:
			w := a
			w.s = v
			values[f] = append(values[f], w)
		case i+1 < len(args):
			i++
			values[f] = append(values[f], args[i])
		}
	}
	has := func(fs ...string) bool {
		return slices.ContainsFunc(flags, func(f string) bool { return slices.Contains(fs, f) })
	}
	var out []word
	switch module {
	case "json.tool":
		if len(ops) >= 2 {
			out = append(out, ops[1])
		}
	case "gzip":
		for _, w := range ops {
			if has("-d", "--decompress") {
				if !strings.HasSuffix(w.s, ".gz") {
					continue // gzip refuses a name without .gz
				}
				w.s = strings.TrimSuffix(w.s, ".gz")
			} else {
				w.s += ".gz"
			}
			out = append(out, w)
		}
	case "zipfile", "tarfile":
		switch {
		case has("-c", "--create") && len(ops) > 0:
			out = append(out, ops[0])
		case has("-e", "--extract") && len(ops) > 1:
			out = append(out, ops[1])
		case has("-e", "--extract"):
			out = append(out, word{s: ".", lit: true, prefix: 1})
		}
	case "venv":
		out = ops
	default:
		for _, f := range []string{"-o", "--outfile", "-f", "--file", "-C", "--coverdir", "--output"} {
			out = append(out, values[f]...)
		}
	}
	for _, w := range out {
		j.add(s.writeTarget(w))
	}
}

// evalsCodeRe finds, in an interpreter's inline code, the calls that
// evaluate code or run programs (eval, exec, system, popen, spawn, new
// Function, ...): given what the interpreter reads, they may run it.
// Only the code is matched, not a script's arguments (train.py --eval).
var evalsCodeRe = regexp.MustCompile(`(?i)\b(eval|exec[a-z]*|system|popen[0-9]*|spawn[a-z]*|runIn[a-z]*Context|instance_eval|class_eval|module_eval|loadstring|dofile|child_process|subprocess|passthru|shell_exec|proc_open|pcntl_exec|pickle|marshal|qx)\b|(?-i:\bFunction\s*\()`)

// evalsCode reports whether an interpreter's inline code calls what
// evalsCodeRe finds, other than as a method of an object known to run
// nothing (platform.system() names the operating system; a regular
// expression's exec matches text).
func evalsCode(code string) bool {
	for _, m := range evalsCodeRe.FindAllStringIndex(code, -1) {
		obj := code[:m[0]]
		if !strings.HasSuffix(obj, ".") {
			return true
		}
		obj = strings.TrimSuffix(obj, ".")
		call := strings.ToLower(code[m[0]:m[1]])
		switch {
		case call == "system" && identBefore(obj) == "platform":
		case call == "exec" && (regexLiteralRe.MatchString(obj) || slices.Contains([]string{"re", "regex", "regexp", "rx", "pattern"}, identBefore(obj))):
		default:
			return true
		}
	}
	return false
}

// regexLiteralRe finds a JavaScript regular expression literal at the
// end of code (/v(\d+)/g before .exec).
var regexLiteralRe = regexp.MustCompile(`/[dgimsuvy]*$`)

// identBefore returns the identifier that code ends with: the object of
// a method call after it (platform in platform.system).
func identBefore(code string) string {
	i := len(code)
	for i > 0 && (code[i-1] == '_' || code[i-1] >= 'a' && code[i-1] <= 'z' || code[i-1] >= 'A' && code[i-1] <= 'Z' || code[i-1] >= '0' && code[i-1] <= '9') {
		i--
	}
	if i > 0 && code[i-1] == '.' {
		return "" // a.platform.system: not the module
	}
	return code[i:]
}

// backtickShell reports whether the interpreter runs `text` (and
// qx(...), %x(...)) as a shell command: perl, ruby and php do; in
// JavaScript a backquote starts a template string.
func backtickShell(name string) bool {
	return strings.HasPrefix(name, "perl") || strings.HasPrefix(name, "ruby") || strings.HasPrefix(name, "php")
}

func (s *state) codeWord(name string, w word, j *judgement) {
	d := &s.c.rules.Defaults
	if w.download {
		j.add(d.DownloadExec, name+" runs downloaded content")
	} else if w.subst {
		j.add(d.GeneratedCode, name+" runs code produced by a command substitution")
	}
}

// argScan is the option/operand split of a command's arguments.
type argScan struct {
	opts []string // option words (before "--"), values excluded
	ops  []int    // indexes of operands
}

func scanArgs(args []word, valueFlags []string) argScan {
	var sc argScan
	done := false
	for i := 0; i < len(args); i++ {
		a := args[i].s
		if done || len(a) < 2 || a[0] != '-' {
			sc.ops = append(sc.ops, i)
			continue
		}
		if a == "--" {
			done = true
			continue
		}
		sc.opts = append(sc.opts, a)
		if slices.Contains(valueFlags, a) {
			i++
			continue
		}
		if a[1] != '-' && len(a) > 2 {
			for k := 1; k < len(a); k++ {
				if slices.Contains(valueFlags, "-"+a[k:k+1]) {
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return sc
}

// systemDirs are the directories whose programs are the ones their names
// say: /usr/bin/ls is ls, ./ls is not.
var systemDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true, "/usr/local/sbin": true,
}

// hasFlag reports whether opts contain flag (see MatchRule.Flags). A long
// option may be abbreviated, as GNU getopt allows (--recur is --recursive).
func hasFlag(opts []string, flag string, valueFlags []string) bool {
	for _, o := range opts {
		if o == flag {
			return true
		}
		if strings.HasPrefix(o, flag+"=") {
			return true
		}
		if n, _, _ := strings.Cut(o, "="); strings.HasPrefix(flag, "--") && len(n) > 3 && strings.HasPrefix(flag, n) {
			return true
		}
		if len(flag) == 2 && flag[0] == '-' && flag[1] != '-' && len(o) > 2 && o[0] == '-' && o[1] != '-' {
			for k := 1; k < len(o); k++ {
				if o[k] == flag[1] {
					return true
				}
				if slices.Contains(valueFlags, "-"+o[k:k+1]) {
					break
				}
			}
		}
	}
	return false
}

// operandMatches reports whether operand op, path-cleaned, matches one of
// patterns where it is written or, when relative, in a directory the line
// may have changed into (cd ~ && rm -rf * is rm -rf ~/*).
func (s *state) operandMatches(patterns []string, op string) bool {
	for _, p := range []string{"$PWD", "${PWD}", "~+", "$(pwd)", "`pwd`"} {
		if op == p || strings.HasPrefix(op, p+"/") {
			// The working directory by name is . (cd ~ && rm -rf "$PWD").
			op = "." + op[len(p):]
			break
		}
	}
	if anyWildcard(patterns, cleanPath(op)) {
		return true
	}
	if op == "" || strings.HasPrefix(op, "/") || strings.HasPrefix(op, "~") || strings.HasPrefix(op, "$") {
		return false
	}
	// A directory known only at run time is tried as written (cd $HOME).
	in := func(d *dirSet) bool {
		return d.unknown != "" && anyWildcard(patterns, cleanPath(d.unknown+"/"+op)) ||
			slices.ContainsFunc(d.dirs, func(d word) bool { return anyWildcard(patterns, cleanPath(d.s+"/"+op)) })
	}
	return in(&s.cwd) || (s.later != nil && in(s.later))
}

// matches judges the match rules of a command. readOnly says the command
// is Safe by its own rule, so that words xargs supplies, which may meet a
// rule, must not leave it Safe.
func (s *state) matches(rules []MatchRule, name string, args []word, valueFlags []string, readOnly bool, cx judgeCtx, j *judgement) {
	if len(rules) == 0 {
		return
	}
	sc := scanArgs(args, valueFlags)
	joined := ""
	joinedSet := false
	// The items xargs adds after the arguments, or fills in for its
	// replace text, may be any words: any flag, argument or operand a rule
	// names (xargs fuser < list may run fuser -k), and after the
	// arguments as many operands as a rule counts (xargs uniq runs uniq A B).
	// find's {} is a path from its starting points, and is not taken so.
	// A command that is not Safe by itself keeps the rules its words
	// meet: xargs rm -rf is not rm -rf /.
	items := readOnly && cx.reader != "" && (cx.appended != "" || slices.ContainsFunc(args, func(a word) bool { return a.input }))
	for _, m := range rules {
		if m.MinOperands > 0 {
			n := len(sc.ops)
			if cx.stdinArgs {
				n++
			}
			if n < m.MinOperands && !(items && cx.appended != "") {
				continue
			}
		}
		if len(m.Flags) > 0 && !items && !slices.ContainsFunc(m.Flags, func(f string) bool { return hasFlag(sc.opts, f, valueFlags) }) {
			continue
		}
		if len(m.Args) > 0 && !items && !slices.ContainsFunc(args, func(a word) bool { return anyWildcard(m.Args, a.s) }) {
			continue
		}
		if len(m.Operands) > 0 && !items && !slices.ContainsFunc(sc.ops, func(i int) bool { return s.operandMatches(m.Operands, args[i].s) }) {
			continue
		}
		if m.Regex != nil {
			if !joinedSet {
				joined, joinedSet = strings.Join(strs(args), " "), true
			}
			if !m.Regex.MatchString(joined) {
				continue
			}
		}
		j.add(m.Level, reasonOr(m.Reason, genericReason(name, m.Level)))
	}
}

func (s *state) rule(name string, r *CommandRule, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	s.matches(r.Match, name, args, r.Options.valueFlags(), r.Level == Safe, cx, j)
	if r.Check != "" {
		if chk, ok := checks[r.Check]; ok {
			inf = inf.or(chk(s, name, args, cx, j))
		}
	}
	// A first argument may name a mode the way a subcommand does
	// (fdisk -l, iptables -L).
	if len(args) > 0 && !args[0].unknown() && strings.HasPrefix(args[0].s, "-") {
		if sub, ok := r.Subcommands[args[0].s]; ok && sub != nil {
			return inf.or(s.rule(name+" "+args[0].s, sub, args[1:], cx, j))
		}
	}
	if name == "go" {
		if moved, ok := goChdirFirst(args); ok {
			// go -C DIR build is go build -C DIR, never below go's own
			// level.
			j.add(r.Level, reasonOr(r.Reason, genericReason(name, r.Level)))
			args = moved
		}
	}
	// Options before a subcommand belong to the command; the subcommand
	// reads the rest with its own grammar.
	if len(r.Subcommands) > 0 {
		sc := scanOptions(name, args, &r.Options, true)
		if k := sc.stopped; k < len(args) && !args[k].unknown() {
			if sub, ok := r.Subcommands[args[k].s]; ok && sub != nil {
				s.judgeOptions(name, sc, j, true)
				return inf.or(s.rule(name+" "+args[k].s, sub, args[k+1:], cx, j))
			}
		}
	}
	j.add(r.Level, reasonOr(r.Reason, genericReason(name, r.Level)))
	sc := scanOptions(name, args, &r.Options, false)
	// A built-in check reads the arguments of a command that has no
	// grammar of its own (find's expressions, tar's modes).
	// The network checks only add to the grammar.
	strict := r.Level == Safe && (grammarCheck(r.Check) || r.Options.Len() > 0)
	s.judgeOptions(name, sc, j, strict)
	if strict {
		s.computedNames(name, args, &r.Options, sc, cx, j)
	}
	if cx.appended != "" && appendedOptionChecks[r.Check] {
		// These read options and expressions anywhere among their
		// arguments: what xargs adds may be -delete, -i, -c KEY=CMD.
		j.add(Dangerous, name+" gets more arguments from its input, and any of them may be an option or expression that writes or runs a program")
	}
	if cx.stdinArgs && r.Level == Safe && grammarCheck(r.Check) {
		// More arguments come from standard input: any may be an option.
		l, writes := r.Options.maxLevel()
		if writes {
			l = max(l, Dangerous)
		}
		if !r.Options.complete() {
			l = max(l, Warning)
		}
		if l > Safe {
			j.add(l, name+" gets more arguments from its input, and any of them may be an option")
		}
	}
	if len(r.SafeOperands) > 0 {
		for _, k := range sc.ops {
			if args[k].unknown() || !anyWildcard(r.SafeOperands, args[k].s) {
				j.add(Warning, fmt.Sprintf("%s: operand %s is not on its allowlist", name, args[k].s))
			}
		}
	}
	// An operand filled in at run time (find's {}, xargs -I) is judged by
	// writeTarget; items xargs adds after the operands by inputWrites.
	if sc.writesOperands() || r.Writes == "operands" {
		for _, k := range sc.ops {
			j.add(s.writeTarget(args[k]))
		}
		s.inputWrites(name, cx, j)
	}
	if r.Writes == "last" {
		if n := len(sc.ops); cx.appended != "" {
			// The last operand is one xargs adds.
			s.inputWrites(name, cx, j)
		} else if n > 1 {
			j.add(s.writeTarget(args[sc.ops[n-1]]))
		}
		if cx.appended == "" {
			s.intoDirWrites(args, sc, j)
		}
	}
	return inf
}

// goReleaseRe matches the names golang.org/dl gives go of another
// release: gotip, go1.22, go1.22.0, go1.23rc1.
var goReleaseRe = regexp.MustCompile(`^(gotip|go1\.[0-9]+(\.[0-9]+)?((rc|beta)[0-9]+)?)$`)

// goChdirFirst moves go's -C DIR (-C=DIR, --C DIR, --C=DIR), which go
// takes only as its first flag, after the subcommand that follows it
// (go -C dir build -o x is go build -C dir -o x), so that the
// subcommand's rule judges the line; ok is false when args start with no
// -C or no subcommand follows it.
func goChdirFirst(args []word) ([]word, bool) {
	if len(args) == 0 {
		return nil, false
	}
	// -C=$D is known only when it runs, but is -C all the same.
	lit := func(p string) bool {
		return strings.HasPrefix(args[0].s, p) && (!args[0].unknown() || args[0].prefix >= len(p))
	}
	n := 1
	switch a := args[0].s; {
	case !args[0].unknown() && (a == "-C" || a == "--C"):
		n = 2
	case args[0].unknown() && (lit("-C=") || lit("--C=")):
		// Judged as -C "$D", the value its own word.
		opt, _, _ := strings.Cut(a, "=")
		args = append([]word{{s: opt, lit: true, prefix: len(opt)}, args[0].cut(len(opt) + 1)}, args[1:]...)
		n = 2
	case lit("-C=") || lit("--C="):
	default:
		return nil, false
	}
	if len(args) <= n || args[n].unknown() || strings.HasPrefix(args[n].s, "-") {
		return nil, false
	}
	moved := make([]word, 0, len(args))
	moved = append(moved, args[n])
	moved = append(moved, args[:n]...)
	return append(moved, args[n+1:]...), true
}

// intoDirWrites judges the names a copy into a directory writes: DIR/NAME
// for each source (cp -a evil/.git . writes ./.git, ln -s ~/.ssh . makes
// ./.ssh). The directory is a -t value, or the last of two or more
// operands when there are more than two or it is spelled as a directory
// (., .., a trailing /); cp a b may copy a file onto a file and is not
// judged so.
func (s *state) intoDirWrites(args []word, sc optScan, j *judgement) {
	var dir *word
	srcs := sc.ops
	for _, u := range sc.uses {
		if u.has && u.opt.Writes == "value" {
			d := u.val
			dir = &d
		}
	}
	if n := len(sc.ops); dir == nil && n > 1 {
		last := args[sc.ops[n-1]]
		if n > 2 || last.s == "." || last.s == ".." || strings.HasSuffix(last.s, "/") {
			dir, srcs = &last, sc.ops[:n-1]
		}
	}
	if dir == nil || dir.unknown() || !dir.lit {
		return
	}
	for _, k := range srcs {
		src := args[k]
		if src.unknown() || src.input || !src.lit {
			continue
		}
		b := path.Base(strings.TrimRight(src.s, "/"))
		if b == "." || b == ".." || b == "/" {
			continue
		}
		j.add(s.writeTarget(word{s: strings.TrimRight(dir.s, "/") + "/" + b, lit: true}))
	}
}

// grammarCheck reports whether a command with built-in check c reads its
// arguments by its option grammar: no check, or one that only adds to the
// grammar (the network checks, go's tool flags).
func grammarCheck(c string) bool {
	return c == "" || c == "network" || c == "network_stdin" || c == "goflags" || c == "recursive" || c == "moves" || c == "mirrors" || c == "positional" || c == "later" || c == "cargo" || c == "ps" || c == "here" || c == "renders_url"
}

// appendedOptionChecks are the built-in checks of commands that read
// options and expressions after their operands (find, GNU getopt's
// permutation in sed and tar, git's global options before a subcommand),
// so that no argument xargs adds after them is safe.
var appendedOptionChecks = map[string]bool{"find": true, "sed": true, "tar": true, "git": true, "ip": true, "dd": true, "goenv": true}

// envSplitString splits the string of env -S the way GNU env does, which
// is not the shell's way: outside quotes \_ separates words, \t \n \r
// \f \v are control characters, \c ends the string, # starts a comment
// at the start of a word, and ${NAME} is replaced by the variable's value
// (a word known only at run time). 'x' and "x" quote.
func envSplitString(str string) []word {
	var out []word
	var cur strings.Builder
	in, dyn, prefix := false, false, 0
	emit := func() {
		if in {
			out = append(out, word{s: cur.String(), lit: !dyn, dyn: dyn, prefix: prefix})
		}
		cur.Reset()
		in, dyn, prefix = false, false, 0
	}
	dollar := func(i int) int {
		// ${NAME}: a value known only at run time; a lone $ too.
		if !dyn {
			dyn, prefix = true, cur.Len()
		}
		in = true
		if i+1 < len(str) && str[i+1] == '{' {
			if e := strings.IndexByte(str[i:], '}'); e >= 0 {
				cur.WriteString(str[i : i+e+1])
				return i + e
			}
		}
		cur.WriteByte('$')
		return i
	}
	// escape reads the escape at str[i] ('\\'); it returns the new index
	// and whether the string ends (\c).
	escape := func(i int, quoted bool) (int, bool) {
		if i+1 >= len(str) {
			cur.WriteByte('\\')
			in = true
			return i, false
		}
		c := str[i+1]
		switch c {
		case 'c':
			return i + 1, true
		case '_':
			if !quoted {
				emit()
				return i + 1, false
			}
			cur.WriteByte(' ')
		case 't':
			cur.WriteByte('\t')
		case 'n':
			cur.WriteByte('\n')
		case 'r':
			cur.WriteByte('\r')
		case 'f':
			cur.WriteByte('\f')
		case 'v':
			cur.WriteByte('\v')
		default:
			cur.WriteByte(c)
		}
		in = true
		return i + 1, false
	}
	for i := 0; i < len(str); i++ {
		c := str[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			emit()
		case c == '#' && !in:
			return out
		case c == '\'':
			in = true
			for i++; i < len(str) && str[i] != '\''; i++ {
				if str[i] == '\\' && i+1 < len(str) && (str[i+1] == '\\' || str[i+1] == '\'') {
					i++
				}
				cur.WriteByte(str[i])
			}
		case c == '"':
			in = true
			for i++; i < len(str) && str[i] != '"'; i++ {
				switch str[i] {
				case '\\':
					var end bool
					if i, end = escape(i, true); end {
						emit()
						return out
					}
				case '$':
					i = dollar(i)
				default:
					cur.WriteByte(str[i])
				}
			}
		case c == '\\':
			var end bool
			if i, end = escape(i, false); end {
				emit()
				return out
			}
		case c == '$':
			i = dollar(i)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	emit()
	return out
}
