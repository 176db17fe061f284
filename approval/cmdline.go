package approval

// Reading a command line for deny and ask rules: the simple commands it
// runs (as the default classifier's parser finds them), and where the
// shell decides at run time what runs, so that a rule fails closed there
// (see rule.match and the Policy godoc).

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
)

// lineCommands is what the default classifier finds in a command line,
// for deny and ask rules.
type lineCommands struct {
	// cmds is the text of each simple command: its name and arguments,
	// one space apart, and again with the command word as written when
	// that differs (/usr/bin/git push is also git push).
	cmds []string
	// argvs are the words of each simple command, the command word first,
	// for rule.reordered; expanded words as written ("$x").
	argvs [][]string
	// unread is the verdict's Incomplete: the line does not parse, or is
	// over a limit, and cmds may miss some.
	unread bool
	// wild are the simple commands with a word the shell computes at run
	// time or picks from the files it finds ($x, ${a[@]}, $(cmd), g*t),
	// or that xargs completes from its input: name and arguments one
	// space apart, each such word an anyText (it may be any text, blanks
	// included, as an unquoted expansion is split).
	wild [][]int16
	// shellInput: a shell or an interpreter reads its code from its
	// input, a process substitution or a computed word (printf ... | sh,
	// bash <(...), eval "$x").
	shellInput bool
	// unknown are the commands the classifier has no rule for (fakeroot
	// git push), and the argvRunners: any of them may run the rest of its
	// arguments (rule.runByUnknown).
	unknown []argvCommand
	// runsCode: the line runs text as code that the parser does not read:
	// a script (bash s.sh, source, .), eval, an alias (of the shell, or
	// git's alias.*), hash -p, another language, GNU parallel, or a shell
	// variable bash runs (PROMPT_COMMAND, BASH_ENV, ENV).
	runsCode bool
	// code are texts a program runs as a shell command that the parser
	// does not read: a git setting's value (git -c core.fsmonitor=...,
	// git config), a variable's (GIT_EDITOR=..., GIT_SSH_COMMAND=...,
	// PAGER=...). A rule whose command word one names holds.
	code []string
	// lost are the simple commands after a cd into a directory the shell
	// computes (cd "$d", cd ~, cd -, popd): their relative paths may name
	// any place. A rule naming a path holds for one it names.
	lost []string
}

// maxCdDirs bounds the directories the cds of one line may have moved to
// that readLine follows; past it, the line's commands are lost.
const maxCdDirs = 16

// cdTarget returns the directory a cd or pushd with args changes into,
// cleaned, or ok false when the shell computes it: no operand ($HOME), -,
// ~..., +N or -N (pushd's stack), an expansion, a glob, or a relative
// directory CDPATH may place elsewhere (cdpath: the line names CDPATH).
func cdTarget(args []string, cdpath bool) (dir string, ok bool) {
	i := 0
	for i < len(args) && len(args[i]) > 1 && args[i][0] == '-' && strings.Trim(args[i][1:], "LPe@") == "" {
		i++
	}
	if i < len(args) && args[i] == "--" {
		i++
	}
	if i >= len(args) {
		return "", false
	}
	d := args[i]
	switch {
	case d == "" || d == "-" || d[0] == '~' || d[0] == '+' || d[0] == '-' && len(d) > 1:
		return "", false
	case strings.ContainsAny(d, "$`*?[{\\"):
		return "", false
	case cdpath && !path.IsAbs(d) && !strings.HasPrefix(d, "./") && !strings.HasPrefix(d, "../") && d != "." && d != "..":
		return "", false
	}
	return path.Clean(d), true
}

// movedArgv returns argv with its relative words taken from dir, as
// "cat shadow" run after cd /etc is "cat /etc/shadow", or nil when no word
// moves. Options, absolute paths and computed words stay as they are.
func movedArgv(argv []string, dir string) []string {
	var out []string
	for i, a := range argv[1:] {
		if a == "" || a[0] == '-' || path.IsAbs(a) || strings.ContainsAny(a, "$`~") {
			continue
		}
		if out == nil {
			out = slices.Clone(argv)
		}
		out[i+1] = path.Join(dir, a)
	}
	return out
}

// startupVarRE finds the shell variables whose text bash or sh runs as
// code (when a prompt is shown, when a shell starts).
var startupVarRE = regexp.MustCompile(`PROMPT_COMMAND|BASH_ENV|(^|[^A-Za-z0-9_])ENV=`)

// escapedBlanks reads the escapes of blanks (\n, \t, \r: $'...', printf,
// echo -e) as blanks, so that rule.named finds the word after them.
var escapedBlanks = strings.NewReplacer(`\n`, " ", `\t`, " ", `\r`, " ", `\v`, " ", `\f`, " ")

// anyText stands for a word that may be any text in lineCommands.wild,
// and for a * in rule.glob.
const anyText = -1

// codeRunners run text the parser does not read as code, besides the
// classifier's shells and interpreters: from a file (source, .), from
// their input (at, batch), from an argument (eval, alias, hash -p,
// parallel), or text that only names what they run (make, trap, sed's e
// command, mapfile -C, a copy of a program under another name).
var codeRunners = map[string]int{
	"source": srcFile, ".": srcFile,
	"at": srcInput, "batch": srcInput,
	"eval": srcInline, "alias": srcInline, "hash": srcInline, "parallel": srcInline, "sem": srcInline,
	"make": srcMention, "gmake": srcMention, "crontab": srcMention, "systemd-run": srcMention,
	"fc": srcMention, "enable": srcMention,
}

// runnerOf says whether, and how, a command that runs code only with some
// arguments does: awk's system() or pipes, sed's e command, a callback
// (mapfile -C, complete -F), a trap that runs among the line's commands
// (DEBUG, RETURN, ERR: it may change their variables).
func runnerOf(name string, args []string) (src int, ok bool) {
	switch name {
	case "awk", "gawk", "mawk", "nawk":
		return srcInput, slices.ContainsFunc(args, func(a string) bool {
			return strings.Contains(a, "system") || strings.Contains(a, "|")
		})
	case "sed", "gsed":
		return srcInput, slices.ContainsFunc(args, sedRuns)
	case "mapfile", "readarray", "compgen", "complete":
		return srcInline, slices.ContainsFunc(args, func(a string) bool { return a == "-C" || a == "-F" })
	case "trap":
		return srcMention, slices.ContainsFunc(args, func(a string) bool {
			a = strings.TrimPrefix(strings.ToUpper(a), "SIG")
			return a == "DEBUG" || a == "RETURN" || a == "ERR"
		})
	}
	src, ok = codeRunners[name]
	return src, ok
}

// interpreterRunsRE finds inline code of another language that may run a
// program, or look up what it calls by a computed name: its strings can
// spell a command in escapes the rule cannot read.
var interpreterRunsRE = regexp.MustCompile("(?i)system|exec|popen|spawn|subprocess|child_process|pty|`|qx|getattr|__import__|importlib|compile|eval|open3|kernel|proc_open|passthru|shell|send|const_get|binding|dlopen|ctypes|ffi")

// sedRuns reports whether a sed script may run a command: the e command,
// or the e flag of s (s/x/y/e).
func sedRuns(script string) bool {
	if script == "e" || strings.HasPrefix(script, "e ") || strings.Contains(script, ";e") || strings.Contains(script, "\ne") {
		return true
	}
	if len(script) > 2 && script[0] == 's' {
		i := strings.LastIndexByte(script, script[1])
		flags := script[i+1:]
		return strings.IndexByte(flags, 'e') >= 0 && !strings.ContainsAny(flags, " /")
	}
	return false
}

// copiers make a program under another name (ln -s /usr/bin/git g; ./g).
var copiers = map[string]bool{"cp": true, "ln": true, "mv": true, "install": true, "rsync": true}

// fileWriters are commands that write a file a later command of the line
// may run, besides a > redirection.
var fileWriters = map[string]bool{
	"tee": true, "cp": true, "mv": true, "ln": true, "dd": true, "install": true,
	"rsync": true, "curl": true, "wget": true, "base64": true, "sed": true,
}

// Where a shell, an interpreter or a codeRunner takes its code from.
const (
	srcInline = iota // an argument (bash -c, python -c, eval)
	srcFile          // a file (bash s.sh, source s.sh)
	srcInput         // its input or a process substitution (sh, bash <( ))
	// srcMention: it runs code the line's text may name (make, trap),
	// and a computed argument hides no more than that.
	srcMention
)

// hiddenCode reports whether a line makes bash run text that no command
// word shows: the alias and command hash tables, prompt expansion
// (${x@P}, PS4 with set -x), a nameref (declare -n r=x: the classifier
// reads $r as the name x), an assignment that a special built-in keeps
// (x=push :). The regular expressions run only on a line
// that holds their key word.
func hiddenCode(line string) bool {
	if strings.Contains(line, "BASH_ALIASES") || strings.Contains(line, "BASH_CMDS") || strings.Contains(line, "@P}") {
		return true
	}
	if strings.Contains(line, "PS") && promptVarRE.MatchString(line) {
		return true
	}
	return (strings.Contains(line, "declare") || strings.Contains(line, "typeset") || strings.Contains(line, "local")) &&
		namerefRE.MatchString(line) || assignsForSpecialBuiltin(line)
}

// specialBuiltins are the POSIX special built-ins: an assignment before
// one of them (x=push :) stays set after it in sh (dash) and in bash's
// posix mode, which the classifier does not model.
var specialBuiltins = map[string]bool{
	":": true, ".": true, "eval": true, "export": true, "readonly": true, "set": true, "shift": true,
	"trap": true, "unset": true, "exec": true, "return": true, "exit": true, "break": true,
	"continue": true, "times": true, "source": true,
}

// assignsForSpecialBuiltin reports whether a line has a word NAME=value
// followed by a special built-in's name.
func assignsForSpecialBuiltin(line string) bool {
	sep := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')'
	}
	prevAssign := false
	for i := 0; i < len(line); {
		for i < len(line) && sep(line[i]) {
			if line[i] != ' ' && line[i] != '\t' {
				prevAssign = false // a new command
			}
			i++
		}
		j := i
		for j < len(line) && !sep(line[j]) {
			j++
		}
		if j == i {
			break
		}
		word := line[i:j]
		if prevAssign && specialBuiltins[word] {
			return true
		}
		eq := strings.IndexByte(word, '=')
		prevAssign = eq > 0 && isName(word[:eq])
		i = j
	}
	return false
}

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !wordByte(c) || i == 0 && c >= '0' && c <= '9' {
			return false
		}
	}
	return s != ""
}

var (
	promptVarRE = regexp.MustCompile(`(^|[^A-Za-z0-9_])PS[0-4]=`)
	namerefRE   = regexp.MustCompile(`(^|[^A-Za-z0-9_])(declare|typeset|local)([ \t]+[-+][A-Za-z]+)*[ \t]+-[A-Za-z]*n`)
)

// readLine returns what the default classifier finds in a command line
// (classify.Verdict.Commands and Incomplete).
func readLine(line string) lineCommands {
	c := classify.Default()
	v := c.Classify(line)
	l := lineCommands{unread: v.Incomplete}
	rules := c.Rules()
	runsFile, writes := false, writesFile(line)
	copies, byPath := false, false
	// The directories the line's cds may have moved to, in the order the
	// commands come (over every branch: a cd in ( ) or after || counts
	// for what follows), and whether one went where the shell computes.
	var dirs []string
	lostCd, cdpath := false, strings.Contains(line, "CDPATH")
	for _, cmd := range v.Commands {
		if len(cmd.Args) == 0 {
			continue
		}
		argv := append([]string{cmd.Name}, cmd.Args[1:]...)
		l.argvs = append(l.argvs, argv)
		l.cmds = append(l.cmds, strings.Join(argv, " "))
		if cmd.Args[0] != cmd.Name {
			l.cmds = append(l.cmds, strings.Join(cmd.Args, " "))
		}
		if g := aliasForm(argv); g != nil {
			l.argvs = append(l.argvs, g)
			l.cmds = append(l.cmds, strings.Join(g, " "))
		}
		// A relative path after a cd is a path under the cd's directory:
		// "cd /etc && cat shadow" is also cat /etc/shadow to the rules.
		switch w := path.Base(cmd.Name); w {
		case "cd", "pushd":
			d, ok := cdTarget(cmd.Args[1:], cdpath)
			if !ok || len(dirs) >= maxCdDirs {
				lostCd = true
				break
			}
			moved := []string{d}
			if !path.IsAbs(d) {
				for _, prev := range dirs {
					moved = append(moved, path.Join(prev, d))
				}
			}
			for _, m := range moved {
				if !slices.Contains(dirs, m) {
					dirs = append(dirs, m)
				}
			}
		case "popd":
			lostCd = true
		default:
			for _, d := range dirs {
				if m := movedArgv(argv, d); m != nil {
					l.argvs = append(l.argvs, m)
					l.cmds = append(l.cmds, strings.Join(m, " "))
				}
			}
			if lostCd {
				l.lost = append(l.lost, strings.Join(argv, " "))
			}
		}
		fromInput := len(cmd.Via) > 0 && (cmd.Via[len(cmd.Via)-1] == "xargs" || strings.HasPrefix(cmd.Via[len(cmd.Via)-1], "find"))
		if w, ok := wildCommand(cmd, fromInput); ok {
			l.wild = append(l.wild, w)
		}
		name := path.Base(cmd.Name)
		if len(cmd.Args) > 1 && (argvRunners[name] || !classify.Default().Knows(name)) {
			l.unknown = append(l.unknown, argvCommand{args: cmd.Args[1:], lines: argvRunners[name]})
		}
		writes = writes || fileWriters[name]
		if runsValues(cmd) {
			l.unknown = append(l.unknown, argvCommand{args: optionValues(cmd.Args[1:]), lines: true})
		}
		if name == "git" {
			code, file, hidden, runs := gitSettings(cmd.Args[1:])
			l.code = append(l.code, code...)
			runsFile = runsFile || file
			l.runsCode = l.runsCode || file || runs
			l.shellInput = l.shellInput || hidden
		}
		src, runner := runnerOf(name, cmd.Args[1:])
		copies = copies || copiers[name]
		byPath = byPath || strings.Contains(cmd.Args[0], "/")
		if r, ok := lookupRule(rules.Shells, name); ok {
			var values []string
			if r != nil {
				values = r.ValueFlags
			}
			src, runner = codeSource(line, cmd.Args[1:], []string{"-c"}, append(values, "-o", "+o", "-O", "+O"), true), true
			if src == srcInline {
				continue // the classifier read the -c string
			}
		} else if r, ok := lookupRule(rules.Interpreters, name); ok {
			var code, values []string
			if r != nil {
				code, values = r.CodeFlags, r.ValueFlags
			}
			src, runner = codeSource(line, cmd.Args[1:], code, values, false), true
			if src == srcInline && slices.ContainsFunc(cmd.Args[1:], interpreterRunsRE.MatchString) {
				src = srcInput // its strings may spell the command: os.system("\x67it push")
			}
		}
		if !runner {
			continue
		}
		if slices.ContainsFunc(cmd.Args[1:], func(a string) bool { return operandSource(a) == srcInput }) {
			src = srcInput // make -f /dev/stdin, source <(...)
		}
		l.runsCode = true
		runsFile = runsFile || src == srcFile
		if src == srcInput || src != srcMention && slices.ContainsFunc(cmd.Args[1:], expandedWord) {
			l.shellInput = true
		}
	}
	code, file, hidden := commandVars(line)
	l.code = append(l.code, code...)
	runsFile = runsFile || file
	l.runsCode = l.runsCode || file
	l.shellInput = l.shellInput || hidden
	// A config file in a home the line sets (HOME=., then .gitconfig).
	runsFile = runsFile || strings.Contains(line, "HOME=") && configHomeRE.MatchString(line)
	if runsFile && writes || hiddenCode(shellUnquote.Replace(line)) {
		// A script the line writes may hold anything (printf '\x67it
		// push' > s.sh; bash s.sh).
		l.shellInput = true
	}
	if !l.runsCode {
		// A copy of a program run by a path or through PATH, or a
		// variable bash runs: the text may name the program.
		// Or an alias of git (hg, jj) set on the line: it renames a
		// command (git -c alias.p=push p), or runs one ("!rm -rf ~").
		// Or git's help.autocorrect, which runs a misspelled command as
		// the one it is near (psuh). Git's names ignore case (Alias.p).
		lower := strings.ToLower(line)
		l.runsCode = copies && (byPath || strings.Contains(line, "PATH")) ||
			strings.Contains(lower, "alias.") || strings.Contains(lower, "autocorrect") ||
			strings.Contains(line, "PROMPT_COMMAND") || strings.Contains(line, "BASH_ENV") ||
			strings.Contains(line, "ENV=") && startupVarRE.MatchString(line)
	}
	return l
}

// runsValues reports whether a command may run a program its arguments or
// option values give (git rebase -x, git bisect run, ssh -o
// ProxyCommand=, rsync -e): every command the classifier judges dangerous
// or worse is taken to, whatever its reasons say, which only makes a deny
// or ask rule hold more often.
func runsValues(cmd classify.Command) bool {
	return cmd.Level >= classify.Dangerous
}

// optionValues returns a command's arguments, and after each one the
// value an option word gives in it: after "=" (--exec=CMD,
// -oProxyCommand=CMD), and after a short option's letter (-OCMD); without
// a leading "!" (an alias or helper "!CMD").
func optionValues(args []string) []string {
	out := make([]string, 0, 2*len(args))
	for _, a := range args {
		out = append(out, strings.TrimLeft(a, "!"))
		if _, v, ok := strings.Cut(a, "="); ok {
			out = append(out, strings.TrimLeft(v, "!"))
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			out = append(out, a[2:])
		}
	}
	return out
}

// gitSettings reads the settings a git command gives (args after its
// command word): the values of -c key=value, and every argument of git
// config, are code git may run as a shell command (core.fsmonitor,
// diff.external, core.sshCommand, an alias "!..."); file: an include.*
// setting reads a config file; hidden: a value the parser does not read
// (quotes, escapes or an expansion left for the shell git starts, or
// --config-env's variable); runs: an alias or help.autocorrect, in any
// case, as the parser reads the words (ali""as.p).
func gitSettings(args []string) (code []string, file, hidden, runs bool) {
	setting := func(kv string) {
		key, val, _ := strings.Cut(kv, "=")
		file = file || strings.HasPrefix(strings.ToLower(key), "include")
		code = append(code, val)
	}
	config := slices.Contains(args, "config")
	for i := 0; i < len(args); i++ {
		a := args[i]
		lower := strings.ToLower(a)
		runs = runs || strings.Contains(lower, "alias.") || strings.Contains(lower, "autocorrect")
		switch {
		case a == "-c" && i+1 < len(args):
			i++
			setting(args[i])
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			setting(a[2:])
		case strings.HasPrefix(a, "--config-env"):
			hidden = true
		case config:
			setting("=" + a)
			file = file || strings.HasPrefix(lower, "include")
		}
	}
	for _, c := range code {
		hidden = hidden || !plainCode(c)
	}
	return code, file, hidden, runs
}

// plainCode reports whether a shell command holds no quote, escape,
// expansion or glob, so that its words are as written.
func plainCode(c string) bool {
	return !strings.ContainsAny(c, "\\'\"$`*?[")
}

// commandVarRE finds an assignment to a variable whose value a program
// runs as a shell command (a pager, an editor, git's ssh command, git
// settings given in the environment) or reads as git's config file.
var commandVarRE = regexp.MustCompile(`\b(PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|LESSOPEN|LESSCLOSE|BROWSER|GIT_CONFIG[A-Z0-9_]*)\b`)

// configHomeRE finds an assignment to a variable that moves where git
// reads its user config file.
var configHomeRE = regexp.MustCompile(`(^|[^A-Za-z0-9_])(HOME|XDG_CONFIG_HOME)=`)

// commandVars reads the variables commandVarRE finds in a line: code are
// the values assigned to them; file: one names git's config file
// (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG); hidden: a value the
// parser does not read (plainCode), or one set without an assignment
// word (read, printf -v). A read of one ($EDITOR, ${PAGER}) sets nothing.
func commandVars(line string) (code []string, file, hidden bool) {
	for _, m := range commandVarRE.FindAllStringSubmatchIndex(line, -1) {
		if m[0] > 0 && (line[m[0]-1] == '$' || line[m[0]-1] == '{') {
			continue
		}
		name := line[m[2]:m[3]]
		val, ok := "", false
		if m[1] < len(line) && line[m[1]] == '=' {
			val, ok = assignedValue(line[m[1]+1:])
		}
		switch {
		case name == "GIT_CONFIG" || name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM":
			file = true
		case !ok || !plainCode(val):
			hidden = true
		default:
			code = append(code, val)
		}
	}
	return code, file, hidden
}

// assignedValue reads the value of an assignment at the start of s, its
// quotes taken out: ok is false when it has an escape or an expansion.
func assignedValue(s string) (val string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 || c == '"' && strings.ContainsAny(s[i+1:i+1+j], "\\$`") {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '\\' || c == '$' || c == '`':
			return "", false
		case strings.IndexByte(" \t\n;&|<>()", c) >= 0:
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// writesFile reports whether a line may write a file: an output
// redirection to a file other than /dev/null and the standard streams.
func writesFile(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] != '>' {
			continue
		}
		j := i + 1
		for j < len(line) && (line[j] == '>' || line[j] == '|' || line[j] == ' ' || line[j] == '\t') {
			j++
		}
		k := j
		for k < len(line) && !strings.ContainsRune(" \t\n;&|)", rune(line[k])) {
			k++
		}
		switch line[j:k] {
		case "", "/dev/null", "/dev/stdout", "/dev/stderr":
		default:
			return true
		}
		i = k - 1
	}
	return false
}

// argvRunners are commands the classifier has a rule for that run a
// command given in their arguments after a subcommand or an option (uv
// run, bundle exec, docker exec, gdb --args), which the classifier does
// not follow: rule.runByUnknown looks at their arguments too.
var argvRunners = map[string]bool{
	"uv": true, "uvx": true, "poetry": true, "pipenv": true, "pdm": true, "hatch": true, "rye": true,
	"pipx": true, "conda": true, "mamba": true, "micromamba": true, "bundle": true, "npx": true,
	"npm": true, "pnpm": true, "yarn": true, "bunx": true, "bun": true, "docker": true, "podman": true,
	"kubectl": true, "gdb": true, "nix-shell": true, "nix": true, "sg": true, "expect": true,
	"tmux": true, "screen": true, "direnv": true, "devbox": true, "mise": true, "asdf": true,
}

// maxUnknownStarts bounds the words rule.runByUnknown tries as the start
// of a command; past it, the rule holds.
const maxUnknownStarts = 8

// maxUnknownWords bounds the words rule.runByUnknown reads of a command
// from a start; the words past it are read as any text ("$@").
const maxUnknownWords = 2 * maxOptionRun

// argvCommand is a command that may run its arguments (lineCommands.unknown).
type argvCommand struct {
	args []string // after the command word
	// lines: an argument may be a whole command line (an argvRunner:
	// nix-shell --run 'git push'), not only a command word.
	lines bool
}

// runByUnknown reports whether a command the classifier has no rule for
// (or an argvRunner) may run what the rule names: some argument is the
// rule's command word (git for git push*) and the rule matches from there
// ("fakeroot git push", "prlimit -- git push"), or, for an argvRunner, an
// argument is a command line that runs it. "echo git push" is not held:
// echo has a rule.
func (r *rule) runByUnknown(c argvCommand) bool {
	if r.head == "" {
		return false
	}
	args := c.args
	starts := 0
	var named []string // the command from a start, its word as the rule's
	for i, a := range args {
		// Another name of the command word: git's dashed form (git-push),
		// a package at a version (npx npm@10 publish).
		b := path.Base(a)
		sub, dashed := strings.CutPrefix(b, "git-")
		dashed = dashed && sub != "" && r.head == "git"
		other := b != r.head && (dashed || unversioned(b) == r.head)
		if b != r.head && !other && (!c.lines || !strings.HasPrefix(a, r.head+" ") && !strings.Contains(a, " "+r.head+" ")) {
			continue
		}
		if starts++; starts > maxUnknownStarts {
			return true
		}
		if b != r.head && !other {
			// A command line in one argument (nix-shell --run 'git
			// push', tmux new 'git push', expect -c 'spawn git push').
			if innerRun(r, a) {
				return true
			}
			continue
		}
		end := min(len(args), i+maxUnknownWords)
		words := args[i:end]
		if other {
			named = append(named[:0], r.head)
			if dashed {
				named = append(named, sub)
			}
			words = append(named, args[i+1:end]...)
		}
		if end < len(args) {
			// The rest of a long command may be any text.
			words = append(words[:len(words):len(words)], "$@")
		}
		named = words
		if r.runsWords(words) {
			return true
		}
		if g := dockerAlias(words); g != nil && r.runsWords(g) {
			return true
		}
	}
	return false
}

// unversioned returns a package name without the version a package
// runner takes after it (npm@10 is npm, @scope/pkg@1 is pkg once its base
// name is taken).
func unversioned(name string) string {
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		return name[:i]
	}
	return name
}

// runsWords reports whether a command (its words, the rule's command word
// first) runs what the rule names: as written, with a word the shell
// computes read as any text, or with its options read as options.
func (r *rule) runsWords(words []string) bool {
	cmd := classify.Command{Name: r.head, Args: words}
	w, wild := wildCommand(cmd, false)
	return wild && r.meets(w) || !wild && r.textRE.MatchString(r.head+" "+strings.Join(words[1:], " ")) || r.reordered(words)
}

// undashGit returns git's dashed form of a command (git-push, as git's
// exec-path holds it: /usr/lib/git-core/git-push is a link to git, which
// runs push) as git and the subcommand, or nil for any other command.
func undashGit(words []string) []string {
	sub, ok := strings.CutPrefix(path.Base(words[0]), "git-")
	if !ok || sub == "" {
		return nil
	}
	return append([]string{"git", sub}, words[1:]...)
}

// aliasForm returns a command (its words, the command word first) as the
// command it is another name of: git's dashed form (undashGit), docker's
// management commands (dockerAlias); or nil.
func aliasForm(words []string) []string {
	if g := undashGit(words); g != nil {
		return g
	}
	return dockerAlias(words)
}

// dockerAlias returns a docker (or podman) management command, after the
// options before it, as the top-level command it is an alias of: docker
// container rm and docker container remove are docker rm, docker image rm
// is docker rmi, docker container ls is docker ps; or nil.
func dockerAlias(words []string) []string {
	if b := path.Base(words[0]); b != "docker" && b != "podman" {
		return nil
	}
	args := words[1:]
	for k := 0; k+1 < len(args) && k < maxOptionRun; k++ {
		if mgmt := args[k]; mgmt == "container" || mgmt == "image" {
			sub := args[k+1]
			switch {
			case (sub == "rm" || sub == "remove") && mgmt == "image":
				sub = "rmi"
			case sub == "remove":
				sub = "rm"
			case (sub == "ls" || sub == "list") && mgmt == "image":
				sub = "images"
			case sub == "ls" || sub == "list":
				sub = "ps"
			}
			return slices.Concat(words[:k+1], []string{sub}, args[k+2:])
		}
		if !optionWord(args, k) {
			return nil
		}
	}
	return nil
}

// maxOptionRun bounds the words rule.reordered tries as the start of the
// rest of a rule (options, their values, a subcommand): past it, the rule
// holds.
const maxOptionRun = 64

// argPattern is a deny or ask rule's pattern after its command word, read
// as options and words (rule.reordered): "-rf *" of "rm -rf *", "reset
// --hard*" of "git reset --hard*".
type argPattern struct {
	// opts are the options it starts with ("-rf"; "--hard" of "--hard*").
	opts []string
	// word is a literal word after them that more of the pattern follows
	// (a subcommand: "reset"), and next that pattern.
	word string
	next *argPattern
	// rest is, when word is "", the pattern after the options, matched
	// from a word on; lead is its literal start up to a blank or a *
	// ("publish" of "publish*"), which a program that takes abbreviated
	// subcommands (abbreviates) also runs as any prefix of it.
	rest *regexp.Regexp
	lead string
}

// parseArgPattern reads the words of a rule's pattern after its command
// word.
func parseArgPattern(words []string) *argPattern {
	p := &argPattern{}
	i := 0
	for i < len(words) && strings.HasPrefix(words[i], "-") && !strings.Contains(words[i], "*") {
		i++
	}
	p.opts = slices.Clip(words[:i])
	switch {
	case i == len(words)-1 && len(words[i]) > 2 && words[i][0] == '-' && strings.IndexByte(words[i], '*') == len(words[i])-1:
		// "--hard*": the option, then anything.
		p.opts = append(p.opts, strings.TrimSuffix(words[i], "*"))
		p.rest = regexp.MustCompile(`^(?s:.*)$`)
	case i < len(words)-1 && !strings.Contains(words[i], "*"):
		p.word, p.next = words[i], parseArgPattern(words[i+1:])
	default:
		w := strings.Join(words[i:], " ")
		p.rest = regexp.MustCompile(`^(?s:` + globRE(w, ".*", ".*") + `)$`)
		p.lead = w[:strings.IndexAny(w+" ", " *")]
	}
	return p
}

// abbreviates are the programs that run a unique prefix of a subcommand
// as the subcommand (npm publi is npm publish).
var abbreviates = map[string]bool{"npm": true}

// cmdArgs are a command's arguments after its command word, for
// argPattern.match: the words, their text one space apart, and where each
// word starts in it.
type cmdArgs struct {
	words  []string
	text   string
	at     []int
	abbrev bool // the program takes abbreviated subcommands
}

// match reports whether the command's words from the from'th on run what
// p names, read as options: p's options are all among them before any
// "--", however bundled, split, ordered or spelled (hasOptions), and p's
// word (then the rest of p from the word after it) or p's rest matches
// from some word on, every word before it being an option or an option's
// value. Which options take a value is not known, so an operand after an
// option may be skipped too. A word the shell computes there may be the
// rest, an option or nothing, and so may a glob that could name a file
// called p's word, so p holds. budget counts the words tried; past it, p
// holds.
func (p *argPattern) match(c *cmdArgs, from int, budget *int) bool {
	if !hasOptions(c.words[from:], p.opts) {
		return false
	}
	for k := from; ; k++ {
		if *budget--; *budget < 0 {
			return true
		}
		if p.word != "" {
			if k < len(c.words) && (c.words[k] == p.word || c.abbrev && abbrevOf(c.words[k], p.word)) && p.next.match(c, k+1, budget) {
				return true
			}
		} else if k < len(c.words) && c.abbrev && abbrevOf(c.words[k], p.lead) || p.rest.MatchString(c.text[min(c.at[k], len(c.text)):]) {
			return true
		}
		if k == len(c.words) {
			return false
		}
		if w := c.words[k]; expandedWord(w) || extglobWord(w) || globWord(w) && p.globMay(w) {
			return true
		}
		if !optionWord(c.words, k) {
			return false
		}
	}
}

// globMay reports whether a glob may name a file that is p's word, or
// the start of p's rest ("pu[s]h" and "p*" for push*; not "status?").
func (p *argPattern) globMay(glob string) bool {
	s := p.word
	if s == "" {
		s = p.lead
	}
	ok, err := path.Match(glob, s)
	return ok || err != nil || s == ""
}

// abbrevOf reports whether w is a shorter prefix of word.
func abbrevOf(w, word string) bool {
	return w != "" && len(w) < len(word) && strings.HasPrefix(word, w)
}

// reordered reports whether a command (its words, the command word first)
// runs what the rule names once its options are read as options
// (argPattern.match): "rm -r -f x", "rm x -fr" and "rm -R --force x" for
// rm -rf *, "git -C . push" for git push*, "git reset -q --hard" for git
// reset --hard*.
func (r *rule) reordered(words []string) bool {
	if r.args == nil || !r.isCommand(words) || !hasOptions(words[1:], r.args.opts) {
		return false
	}
	c := &cmdArgs{words: words[1:], text: strings.Join(words[1:], " "), at: make([]int, len(words)), abbrev: abbreviates[r.head]}
	for k, w := range c.words {
		c.at[k+1] = c.at[k] + len(w) + 1
	}
	budget := maxOptionRun
	return r.args.match(c, 0, &budget)
}

// isCommand reports whether a command's word (the first of words) is the
// rule's command word, by its base name (/usr/bin/git is git).
func (r *rule) isCommand(words []string) bool {
	return r.head != "" && len(words) > 0 && path.Base(words[0]) == r.head
}

// optionWord reports whether args[k] may be an option or an option's
// value: it starts with "-", or follows an option word without "=".
func optionWord(args []string, k int) bool {
	if strings.HasPrefix(args[k], "-") {
		return true
	}
	return k > 0 && len(args[k-1]) > 1 && args[k-1][0] == '-' && !strings.Contains(args[k-1], "=")
}

// optionSpellings are spellings of one option that the programs deny
// rules name accept alike (rm -R and --recursive for -r, --force for -f).
var optionSpellings = [][]string{{"-r", "-R", "--recursive"}, {"-f", "--force"}}

// hasOptions reports whether args give every option of want before any
// "--" (givesOption): a long option, and each letter of a short bundle
// ("-rf") in some word.
func hasOptions(args, want []string) bool {
	if end := slices.Index(args, "--"); end >= 0 {
		args = args[:end]
	}
	for _, w := range want {
		if strings.HasPrefix(w, "--") || len(w) < 2 {
			if !slices.ContainsFunc(args, func(a string) bool { return givesOption(a, w) }) {
				return false
			}
			continue
		}
		for i := 1; i < len(w); i++ {
			o := "-" + w[i:i+1]
			if !slices.ContainsFunc(args, func(a string) bool { return givesOption(a, o) }) {
				return false
			}
		}
	}
	return true
}

// givesOption reports whether a command's word may give the option o (a
// letter "-r", or a long option "--force"): it is o or one of its other
// spellings (optionSpellings) — a letter in a short bundle ("-rfv"), a
// long option as written, with "=value", or cut to a prefix ("--rec", as
// getopt_long and git take an unambiguous one) — or a word the shell
// computes, or a glob that may name a file such as "-f" (mayBeOption).
func givesOption(a, o string) bool {
	if mayBeOption(a) {
		return true
	}
	if spelled(a, o) {
		return true
	}
	for _, g := range optionSpellings {
		if slices.Contains(g, o) {
			return slices.ContainsFunc(g, func(s string) bool { return s != o && spelled(a, s) })
		}
	}
	return false
}

// spelled reports whether word a gives option o as written.
func spelled(a, o string) bool {
	if len(o) == 2 && o[0] == '-' && o[1] != '-' {
		return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], o[1]) >= 0
	}
	if a == o || strings.HasPrefix(a, o+"=") {
		return true
	}
	name, _, _ := strings.Cut(a, "=")
	return strings.HasPrefix(o, "--") && strings.HasPrefix(name, "--") && len(name) >= 3 && strings.HasPrefix(o, name)
}

// mayBeOption reports whether a word may be any option when the shell
// runs it: a word it computes ($x, $(cmd)), or a glob that may name a
// file whose name is an option (-?, *, [-]f; not *.o or src/*).
func mayBeOption(a string) bool {
	if !strings.ContainsAny(a, "$`<>*?[(") {
		return false // the common case, in one pass
	}
	return expandedWord(a) || extglobWord(a) ||
		globWord(a) && strings.IndexByte("-*?[", a[0]) >= 0 && !strings.ContainsAny(a, "./")
}

// innerRun reports whether a command line given as one argument runs what
// r names, from the rule's command word on.
func innerRun(r *rule, arg string) bool {
	k := strings.Index(arg, r.head+" ")
	for k > 0 && arg[k-1] != ' ' {
		next := strings.Index(arg[k+1:], " "+r.head+" ")
		if next < 0 {
			return false
		}
		k += next + 2
	}
	return k >= 0 && (r.textRE.MatchString(squeezeBlanks(arg[k:])) || r.reordered(strings.Fields(arg[k:])))
}

// lookupRule finds a classifier rule for a command: by its name, or by a
// "prefix*" key (python3.*).
func lookupRule[R any](m map[string]R, name string) (R, bool) {
	if r, ok := m[name]; ok {
		return r, true
	}
	for k, r := range m {
		if p, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(name, p) {
			return r, true
		}
	}
	var zero R
	return zero, false
}

// codeSource says where a shell (shell) or an interpreter run with args
// in line takes its code from: inline after one of the code flags (also
// bundled, as in bash -lc or perl -ne), from a file (its first operand),
// or from its input (no operand, "-", -s for a shell, or <( ), /dev/stdin,
// /dev/fd/N) when the line has a pipe, a redirection or a coprocess that
// may feed it.
// values are the options that take a value.
func codeSource(line string, args, code, values []string, shell bool) int {
	src := codeSourceOf(args, code, values, shell)
	if src == srcInput && !strings.ContainsAny(line, "|<") && !strings.Contains(line, "coproc") {
		return srcInline // no pipe, redirection or coprocess feeds it code (bash --version)
	}
	return src
}

func codeSourceOf(args, code, values []string, shell bool) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case slices.Contains(code, a):
			return srcInline
		case !shell && a == "-m":
			return srcFile // python -m: a module on disk
		case slices.Contains(values, a):
			i++
		case a == "--":
			if i+1 < len(args) {
				return operandSource(args[i+1])
			}
			return srcInput
		case a == "-":
			return srcInput
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			for _, f := range code {
				if len(f) == 2 && f[0] == '-' && strings.IndexByte(a[1:], f[1]) >= 0 {
					return srcInline
				}
			}
			if shell && strings.IndexByte(a[1:], 's') >= 0 {
				return srcInput
			}
		default:
			return operandSource(a)
		}
	}
	return srcInput
}

// operandSource says where a script operand takes its code from.
func operandSource(a string) int {
	if strings.HasPrefix(a, "<(") || strings.HasPrefix(a, "/dev/") || strings.HasPrefix(a, "/proc/") {
		return srcInput
	}
	return srcFile
}

// expandedWord reports whether a word of a classified command is not
// literal: the classifier gives such words as their source text, so a $,
// a backquote or a process substitution shows it. A literal word that
// holds one (echo '$5') is taken as expanded, which only makes a deny or
// ask rule hold more often.
func expandedWord(w string) bool {
	return strings.ContainsAny(w, "$`") || strings.Contains(w, "<(") || strings.Contains(w, ">(")
}

// extglobWord reports whether a word holds an extended glob (@(git),
// +(x), !(x)): with shopt -s extglob it may match any file name.
func extglobWord(w string) bool {
	return strings.Contains(w, "@(") || strings.Contains(w, "+(") || strings.Contains(w, "!(") ||
		strings.Contains(w, "*(") || strings.Contains(w, "?(")
}

// globWord reports whether a word may be a glob that bash replaces with
// the names of the files it matches: it has a * or ?, or a [ with a ]
// after it ("[" alone is the test command).
func globWord(w string) bool {
	if strings.ContainsAny(w, "*?") {
		return true
	}
	i := strings.IndexByte(w, '[')
	return i >= 0 && strings.IndexByte(w[i+1:], ']') >= 0
}

// wildCommand returns cmd as lineCommands.wild holds it, when some word
// is expanded or a glob (or, fromInput, when a command xargs or find
// -exec runs takes its arguments, or {}, from the input): ok is false when
// every word is literal. An expanded word becomes one anyText, a glob
// keeps its letters with an anyText for each *, ? and [...].
func wildCommand(cmd classify.Command, fromInput bool) (w []int16, ok bool) {
	wild := func(a string) bool {
		return expandedWord(a) || globWord(a) || extglobWord(a) || strings.Contains(a, "{}")
	}
	if !fromInput && !slices.ContainsFunc(cmd.Args, wild) {
		return nil, false
	}
	for i, word := range cmd.Args {
		if i == 0 && !wild(word) {
			word = cmd.Name
		} else if i == 0 && globWord(word) && !expandedWord(word) && !extglobWord(word) {
			// The file a glob names is run by its base name's rule
			// (/usr/bin/gi? is git).
			word = path.Base(word)
		}
		if i > 0 {
			w = append(w, ' ')
		}
		switch {
		case expandedWord(word) || extglobWord(word) || fromInput && i > 0 || strings.Contains(word, "{}"):
			w = append(w, anyText)
		case globWord(word):
			for j := 0; j < len(word); j++ {
				switch c := word[j]; c {
				case '*', '?', '[':
					if c == '[' {
						if k := strings.IndexByte(word[j+1:], ']'); k >= 0 {
							j += k + 1
						}
					}
					if len(w) == 0 || w[len(w)-1] != anyText {
						w = append(w, anyText)
					}
				default:
					w = append(w, int16(c))
				}
			}
		default:
			for j := 0; j < len(word); j++ {
				w = append(w, int16(word[j]))
			}
		}
	}
	if fromInput {
		w = append(w, ' ', anyText)
	}
	return w, true
}

// meets reports whether some command line matches both the rule's
// pattern and w (a lineCommands.wild entry): whether the command could be
// one the rule names. It takes len(glob)·len(w) steps.
func (r *rule) meets(w []int16) bool {
	p := r.glob
	cur := make([]bool, len(p)+1)
	next := make([]bool, len(p)+1)
	cur[0] = true
	for j := 0; ; j++ {
		// Steps that take no character of w: a * of the rule matches
		// nothing, or w's anyText takes the rule's next character.
		for i := 0; i < len(p); i++ {
			if cur[i] && (p[i] == anyText || j < len(w) && w[j] == anyText) {
				cur[i+1] = true
			}
		}
		if j == len(w) {
			return cur[len(p)]
		}
		clear(next)
		alive := false
		for i := 0; i <= len(p); i++ {
			if !cur[i] {
				continue
			}
			if w[j] == anyText || i < len(p) && p[i] == anyText {
				next[i] = true // anyText ends, or a * takes w[j]
				alive = true
			}
			if i < len(p) && p[i] != anyText && p[i] == w[j] {
				next[i+1] = true
				alive = true
			}
		}
		if !alive {
			return false
		}
		cur, next = next, cur
	}
}

// named reports whether text names the rule's command: the first literal
// word of its pattern (its base name: git for "git push*", curl for
// "/usr/bin/curl *"), standing as a word of its own.
func (r *rule) named(text string) bool {
	if r.head == "" {
		return true
	}
	for i := 0; ; {
		k := strings.Index(text[i:], r.head)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(r.head)
		if (k == 0 || !wordByte(text[k-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = k + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// shellUnquote takes a command line's quotes and backslashes out and
// reads $IFS as a blank, for hiddenCode.
var shellUnquote = strings.NewReplacer("'", "", `"`, "", `\`, "", "${IFS}", " ", "$IFS", " ")

// squeezeBlanks returns a command line with its line continuations
// (backslash-newline) removed, each run of spaces and tabs made one space,
// and the white space around it trimmed.
func squeezeBlanks(s string) string {
	if !strings.ContainsAny(s, " \t\n\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\\\n", "")
	var b strings.Builder
	b.Grow(len(s))
	blank := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' {
			blank = true
			continue
		}
		if blank && b.Len() > 0 {
			b.WriteByte(' ')
		}
		blank = false
		b.WriteByte(c)
	}
	return strings.TrimSpace(b.String())
}
