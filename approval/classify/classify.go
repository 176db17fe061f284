package classify

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Verdict is the judgement of one command line.
type Verdict struct {
	// Level is the highest level of anything found in the command line.
	Level Level `json:"level"`
	// Reasons explain Level: the distinct reasons of every finding at
	// that level, in the order found.
	Reasons []string `json:"reasons"`
	// Commands are the simple commands found, in the order they were
	// judged (a command substitution is judged before the command it is an
	// argument of; a wrapper before the command it runs).
	Commands []Command `json:"commands"`
	// Incomplete is true when some of the line could not be judged: it
	// does not parse (bash still runs the lines before a syntax error), or
	// it is over a limit (Rules.Limits). Commands may then miss commands
	// that the line runs. Level is at least Defaults.Invalid.
	Incomplete bool `json:"incomplete,omitempty"`
}

// Command is one simple command found in a command line.
type Command struct {
	// Name is the base name of the command word as resolved (/bin/rm and
	// \rm are "rm"); for a command name that is not a literal word it is
	// the best guess, or the source text.
	Name string `json:"name"`
	// Args is the resolved argv, Args[0] included. Words that are not
	// literal appear as their source text ("$HOME").
	Args []string `json:"args"`
	// Level is this command's own level.
	Level Level `json:"level"`
	// Reasons explain Level.
	Reasons []string `json:"reasons"`
	// Via lists the wrappers and shells this command was found through,
	// outermost first ("sudo", "bash -c").
	Via []string `json:"via,omitempty"`
	// Depth is how many shell strings deep the command was found (0 for
	// the command line itself, 1 inside bash -c '...', and so on).
	Depth int `json:"depth"`
}

// Assessor is what a shell tool needs from a classifier: the verdict on a
// command line. *Classifier implements it, and tool/shell accepts any
// Assessor so that programs can plug in their own judgement.
type Assessor interface {
	Assess(command string) Verdict
}

// AssessorFunc adapts a function to Assessor.
type AssessorFunc func(command string) Verdict

// Assess calls f(command).
func (f AssessorFunc) Assess(command string) Verdict { return f(command) }

// Classifier judges command lines with a set of Rules. It is safe for
// concurrent use; build one with New and keep it.
type Classifier struct {
	rules    Rules
	commands lookup[*CommandRule]
	wrappers lookup[*WrapperRule]
	shells   lookup[*ShellRule]
	interps  lookup[*InterpreterRule]
	download map[string]bool
	paths    []patternSet // rules.Paths[i].Paths
	vars     []patternSet // rules.Variables[i].Names
	secrets  []patternSet // rules.Secrets[i].Paths
	parsers  sync.Pool
}

// lookup finds a rule by exact name, then by the longest matching "prefix*".
type lookup[T any] struct {
	exact    map[string]T
	prefixes []string
}

func newLookup[T any](m map[string]T) lookup[T] {
	l := lookup[T]{exact: m}
	for k := range m {
		if strings.HasSuffix(k, "*") {
			l.prefixes = append(l.prefixes, k)
		}
	}
	slices.SortFunc(l.prefixes, func(a, b string) int { return len(b) - len(a) })
	return l
}

func (l *lookup[T]) get(name string) (T, bool) {
	if v, ok := l.exact[name]; ok {
		return v, true
	}
	for _, p := range l.prefixes {
		if strings.HasPrefix(name, p[:len(p)-1]) {
			return l.exact[p], true
		}
	}
	var zero T
	return zero, false
}

// New builds a Classifier from rules (checked with Rules.Validate). Zero
// limits take their defaults.
func New(rules Rules) (*Classifier, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	def := defaultLimits()
	l := &rules.Limits
	if l.MaxLength == 0 {
		l.MaxLength = def.MaxLength
	}
	if l.MaxDepth == 0 {
		l.MaxDepth = def.MaxDepth
	}
	if l.MaxNesting == 0 {
		l.MaxNesting = def.MaxNesting
	}
	if l.MaxCommands == 0 {
		l.MaxCommands = def.MaxCommands
	}
	if l.MaxBraceExpansion == 0 {
		l.MaxBraceExpansion = def.MaxBraceExpansion
	}
	c := &Classifier{
		rules:    rules,
		commands: newLookup(rules.Commands),
		wrappers: newLookup(rules.Wrappers),
		shells:   newLookup(rules.Shells),
		interps:  newLookup(rules.Interpreters),
		download: map[string]bool{},
	}
	for _, d := range rules.Downloaders {
		c.download[d] = true
	}
	for _, r := range rules.Paths {
		c.paths = append(c.paths, newPatternSet(r.Paths))
	}
	for _, r := range rules.Variables {
		c.vars = append(c.vars, newPatternSet(r.Names))
	}
	for _, r := range rules.Secrets {
		c.secrets = append(c.secrets, newPatternSet(r.Paths))
	}
	c.parsers.New = func() any {
		return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	}
	return c, nil
}

// Rules returns the classifier's rules. The maps and slices are shared:
// do not change them.
func (c *Classifier) Rules() Rules { return c.rules }

// Shell returns the rule of the shell named name (a program's base name),
// found as Classify finds it: by its exact name, else by the longest
// "prefix*" key it starts with. Checkers of other command lines (the shell
// tool's check of placeholders spliced into code) read the rules with it,
// so that they find the rule Classify judges by.
func (c *Classifier) Shell(name string) (*ShellRule, bool) { return c.shells.get(name) }

// Wrapper returns the rule of the wrapper named name, found as [Classifier.Shell] finds a shell's.
func (c *Classifier) Wrapper(name string) (*WrapperRule, bool) { return c.wrappers.get(name) }

// Interpreter returns the rule of the interpreter named name ("python3.12"
// by "python3.*"), found as [Classifier.Shell] finds a shell's.
func (c *Classifier) Interpreter(name string) (*InterpreterRule, bool) { return c.interps.get(name) }

var defaultClassifier = sync.OnceValue(func() *Classifier {
	c, err := New(DefaultRules())
	if err != nil {
		panic("classify: built-in rules are invalid: " + err.Error())
	}
	return c
})

// Default returns the classifier built from DefaultRules, shared by the
// package-level Classify.
func Default() *Classifier { return defaultClassifier() }

// Classify judges command with the default rules. It never panics and never
// returns Safe for input it could not fully parse.
func Classify(command string) Verdict { return Default().Classify(command) }

// Assess implements Assessor; it is Classify.
func (c *Classifier) Assess(command string) Verdict { return c.Classify(command) }

// Classify parses command as bash and judges every simple command it
// contains, through wrappers, shell strings and substitutions. The verdict's
// level is the highest found. Classify never panics: an internal failure is
// reported as Defaults.Invalid.
func (c *Classifier) Classify(command string) (v Verdict) {
	s := &state{c: c, src: command}
	defer func() {
		if r := recover(); r != nil {
			s.note(max(c.rules.Defaults.Invalid, Dangerous), fmt.Sprintf("internal error while classifying: %v", r))
			s.incomplete = true
			v = s.verdict()
		}
	}()
	if len(command) > c.rules.Limits.MaxLength {
		s.overLimit(fmt.Sprintf("command is %d bytes, longer than the limit of %d", len(command), c.rules.Limits.MaxLength))
		return s.verdict()
	}
	if reason := hiddenText(command); reason != "" {
		s.note(max(c.rules.Defaults.Invalid, Dangerous), reason)
	}
	f, err := c.parse(command)
	if err != nil {
		s.invalid("cannot parse command: " + err.Error())
		// bash runs a command line by line: the lines before the one
		// with the error run before bash sees it (rm -rf ~ then fi); and
		// bash reads some lines the parser does not (! ! true).
		if src, pf := c.readable(command, err); pf != nil {
			s = c.walk(s, pf, src)
		}
		return s.verdict()
	}
	if len(f.Stmts) == 0 {
		s.note(c.rules.Defaults.Empty, "empty command")
		return s.verdict()
	}
	return c.walk(s, f, command).verdict()
}

// walk judges the parsed command line f (the text src) into s, and
// returns the state that holds the judgement.
func (c *Classifier) walk(s *state, f *syntax.File, src string) *state {
	s.src = src
	before := len(s.findings)
	s.collectFuncs(f.Stmts)
	s.walkStmts(f.Stmts)
	if s.repeated && (!s.seen.empty() || len(s.cloned) > 0) && !s.stopped {
		// A loop or function body may run after a directory change or a
		// clone that comes later in the text: walk again, judging the
		// writes in such bodies in every directory the line changes into,
		// and the clone's files in every clone. The first walk changed
		// the tree (brace expansion), so parse it again.
		if f, err := c.parse(src); err == nil {
			seen := s.seen
			s = &state{c: c, src: src, findings: s.findings[:before:before], incomplete: s.incomplete, later: &seen, laterCloned: s.cloned,
				dirSecrets: s.dirSecrets, dirSecretsLen: s.dirSecretsLen, judgedText: s.judgedText}
			s.collectFuncs(f.Stmts)
			s.walkStmts(f.Stmts)
		}
	}
	s.checkFdWrites()
	s.checkFdCode()
	s.checkFdShell()
	s.checkRanEarly()
	s.checkLinkedWrites()
	return s
}

// readable returns what bash runs of command, whose parse failed with
// err, as text the parser reads, parsed; nil when there is none. Where bash
// reads what the parser does not, the text is rewritten into what bash
// runs: a second ! (! ! true) and a ! after time are dropped, an arithmetic
// (( or $(( that does not parse is two parentheses (bash reads
// ((echo a); (echo b)) as subshells), and ${x~} is ${x^} (the case
// toggle). Otherwise it is the lines before the error (see parsedPrefix).
// The caller keeps the line Defaults.Invalid: this only adds to it.
func (c *Classifier) readable(command string, err error) (string, *syntax.File) {
	for range maxPrefixTries {
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			break
		}
		o := int(pe.Pos.Offset())
		if o < 0 || o >= len(command) {
			break
		}
		next := command
		switch {
		case command[o] == '!' && (strings.Contains(pe.Text, "cannot negate a command multiple times") ||
			strings.Contains(pe.Text, "can only be used in full statements")):
			next = command[:o] + " " + command[o+1:]
		case command[o] == '~' && strings.Contains(pe.Text, "not a valid parameter expansion operator"):
			next = command[:o] + "^" + command[o+1:]
		case strings.Contains(pe.Text, "arithmetic"):
			if i := strings.LastIndex(command[:o], "(("); i >= 0 {
				next = command[:i+1] + " " + command[i+1:]
			}
		}
		if next == command {
			break
		}
		command = next
		var f *syntax.File
		if f, err = c.parse(command); err == nil {
			if len(f.Stmts) == 0 {
				return "", nil
			}
			return command, f
		}
	}
	return c.parsedPrefix(command, err)
}

// maxPrefixTries bounds how many shorter prefixes parsedPrefix parses.
const maxPrefixTries = 8

// parsedPrefix returns the lines of command before the line of its parse
// error err, parsed, when they parse and hold a command: bash has run
// them when it reads the error. A prefix that ends inside a construct
// opened on an earlier line (if, a quote) fails to parse in turn, and is
// cut again before its own error's line.
func (c *Classifier) parsedPrefix(command string, err error) (string, *syntax.File) {
	for range maxPrefixTries {
		var pe syntax.ParseError
		if !errors.As(err, &pe) || pe.Pos.Line() <= 1 {
			return "", nil
		}
		end := 0
		for range pe.Pos.Line() - 1 {
			i := strings.IndexByte(command[end:], '\n')
			if i < 0 {
				return "", nil
			}
			end += i + 1
		}
		command = command[:end]
		var f *syntax.File
		if f, err = c.parse(command); err == nil {
			if len(f.Stmts) == 0 {
				return "", nil
			}
			return command, f
		}
	}
	return "", nil
}

// parse parses src as bash reads it. Bash ends a comment at the end of
// its line, a backslash before the newline included, where the parser
// reads that backslash and newline as a line continuation and the next
// line as more of the comment (ls # \ and rm -rf ~ on the next line run
// rm). Such a backslash is parsed as the blank it is to bash, and src
// parsed again, until no comment goes on past its line: the next line may
// end in a comment that does the same. The text keeps its length, so
// positions in the tree are positions in src.
func (c *Classifier) parse(src string) (*syntax.File, error) {
	for range maxCommentLines {
		p := c.parsers.Get().(*syntax.Parser)
		f, err := p.Parse(strings.NewReader(src), "")
		c.parsers.Put(p)
		if err != nil || !strings.Contains(src, "#") {
			return f, err
		}
		if err := checkComments(f, src); err != nil {
			return f, err
		}
		next, err := endComments(f, src)
		if err != nil || next == src {
			return f, err
		}
		src = next
	}
	return nil, fmt.Errorf("more than %d comments end in a backslash that the parser reads as joining the next line", maxCommentLines)
}

// maxCommentLines bounds how many times parse reads a line again after
// comments that end in a backslash.
const maxCommentLines = 64

// endComments returns src with the backslash that ends the line of a
// comment the parser continued onto the next line made a blank; src
// itself when there is none.
func endComments(f *syntax.File, src string) (string, error) {
	var b []byte
	var err error
	syntax.Walk(f, func(n syntax.Node) bool {
		cm, ok := n.(*syntax.Comment)
		if !ok || err != nil || !strings.Contains(cm.Text, "\n") {
			return err == nil
		}
		off := int(cm.Hash.Offset())
		nl := -1
		if off >= 0 && off < len(src) && src[off] == '#' {
			if i := strings.IndexByte(src[off:], '\n'); i > 0 {
				nl = off + i
			}
		}
		bs := nl - 1
		if bs > off && src[bs] == '\r' {
			bs--
		}
		if nl < 0 || bs <= off || src[bs] != '\\' {
			err = fmt.Errorf("%s: the parser reads a comment past the end of its line, which the shell would not do", cm.Hash)
			return false
		}
		if b == nil {
			b = []byte(src)
		}
		b[bs] = ' '
		return true
	})
	if err != nil || b == nil {
		return src, err
	}
	return string(b), nil
}

// checkComments rejects a comment that does not start a word. The parser
// reads "#" inside $(...) after some expansions as a comment where bash
// reads a literal, which would hide the rest of the line from judgement.
func checkComments(f *syntax.File, src string) error {
	var err error
	syntax.Walk(f, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		if cm, ok := n.(*syntax.Comment); ok {
			off := int(cm.Hash.Offset())
			if off > 0 && off <= len(src) && !strings.ContainsRune(" \t\n\r;&|()<>`", rune(src[off-1])) {
				err = fmt.Errorf("%s: '#' inside a word is read as a comment, which the shell would not do", cm.Hash)
			}
		}
		return true
	})
	return err
}

// envVal is a value in a command's environment, when known.
type envVal struct {
	v     string
	known bool
	// pwd, for a value not known that starts with the directory the
	// shell is in ($PWD/bin), is the path there (./bin).
	pwd string
}

type finding struct {
	level  Level
	reason string
}

// state is the work of one Classify call.
type state struct {
	c      *Classifier
	src    string
	depth  int // shell strings deep
	nest   int // syntactic nesting
	judged int // simple commands judged
	// judgedText is the length of the commands judged, words and one
	// blank each: see maxJudgedText.
	judgedText int
	// expanded is the length of the text expansions made: see
	// maxExpandedText.
	expanded int
	// copied counts the entries of what the line set that judging it
	// copied: see maxCopied.
	copied   int
	stopped  bool
	findings []finding
	cmds     []Command
	vars     map[string]string
	// arrays are the arrays the line set to known values (a=(~ /)), and
	// "@" the positional parameters set -- gave: "${a[@]}" is their
	// words. Any other assignment to the name forgets it.
	arrays map[string][]string
	// ifs is set once the line assigns IFS: unquoted expansions split
	// where it says from then on, so no value is known any more.
	ifs bool
	// fetched are the files a downloader wrote (curl -o FILE, wget URL,
	// curl URL > FILE), cleaned: running one is running downloaded code.
	fetched map[string]bool
	// fetchedAny: a downloader saved a file under the name the server
	// chose (curl -J, wget --content-disposition).
	fetchedAny bool
	// concurrent counts the background statements and pipes the walk
	// is inside: what runs there goes on beside the rest of the line.
	// ranEarly are the files such a command runs as a script before a
	// downloader on the line writes them, in the text; the download may
	// come first all the same (mkfifo p; sh < p & curl URL > p): see
	// checkRanEarly.
	concurrent int
	ranEarly   []ranFile
	// cloned are the directories the line cloned a repository into (git
	// clone URL [DIR]), cleaned: running a file in one runs downloaded
	// code.
	cloned []string
	// gitDeps: cargo add --git URL on the line made the project depend on
	// a crate from wherever the URL points, whose build script a later
	// cargo build runs (see cargoGitDeps).
	gitDeps bool
	// helmRepos are the chart repositories helm repo add NAME URL added
	// on the line: a chart of one (NAME/chart) comes from wherever the
	// URL points (see checkCluster).
	helmRepos map[string]bool
	// helmPulled: helm pull fetched a chart from a URL, or of a
	// repository the line added; a local chart installed after it may be
	// that chart (see checkCluster).
	helmPulled bool
	// fetchedScans counts the downloaded files fetchedUnder has looked
	// at on the line, which it bounds.
	fetchedScans int
	// pushRemotes are the git remotes the line pointed at a URL on
	// another host (git remote add NAME URL, git remote set-url NAME
	// URL, git config remote.NAME.url URL): a push to one sends the
	// repository there, as git push URL does (see gitPushes).
	pushRemotes map[string]bool
	// stagedSecret is a secret file the line staged (git add -f .env, git
	// commit .env): a push on the line sends its contents (see
	// gitPushes).
	stagedSecret string
	// pushedMessage says where the message of a commit, tag or note the
	// line made came from when it may hold a secret (git commit -m
	// "$(cat .env)", -F .env): a push on the line sends it (see
	// gitMessages).
	pushedMessage string
	// pushedRef is a branch or tag the line named with a secret (git tag
	// $TOKEN): a push on the line sends the name (see gitRefNames).
	pushedRef string
	// secretCopies are the files (cleaned) the line wrote a secret's
	// contents into (cp .env notes.txt, cat ~/.ssh/id_rsa > x): staged,
	// they are a secret staged. secretCopyHere is the first of them in
	// the work tree, which git add . and git commit -a stage.
	secretCopies   map[string]bool
	secretCopyHere string
	// pipedSecretData: a stage before the command being judged read a
	// secret file (cat .env | base64 > x), so what it writes holds it.
	pipedSecretData bool
	// scripts are the files the line wrote text to that it spells out
	// (echo 'rm -rf ~' > a.sh), cleaned, and the text: running one runs
	// that text.
	scripts map[string]string
	// pipedDownload: the command being judged is in a pipe after a
	// downloader, so what it writes holds downloaded content.
	pipedDownload bool
	// pipedAll: the command being judged reads, from the stage before
	// it, the name of every file under the home or root directory.
	pipedAll bool
	// pipedSecret: a stage before the command being judged writes the
	// names of secret files (find ~/.config); reading them is its level.
	pipedSecret finding
	// pipedText, when not nil, is the text the stage before the command
	// being judged writes, known from the line (echo ~ | xargs rm -rf).
	pipedText *string
	// pipedSome, when not nil, is text the stage before the command being
	// judged writes among other text not known ((crontab -l; echo LINE) |
	// crontab -), or all of it (pipedText).
	pipedSome *string
	// fetchedVars are the variables the line set to downloaded text
	// (x=$(curl URL), curl URL | read x): running their value is running
	// downloaded content.
	fetchedVars map[string]bool
	// secretVars are the variables the line set to text that holds a
	// secret (K=$API_KEY, u="https://x/?k=$API_KEY"): secretVar counts
	// them as the secret's own.
	secretVars map[string]bool
	// loopNames are the variables of for loops over words the line
	// spells out, all known (for f in *.go a.txt: true), which the loop
	// judged as names, and of loops over names a lister gives (for f in
	// $(ls), find . | while read f: false, see listsWorkdir), judged
	// where it lists them: "$f" in the body is one of them, not a name
	// computed when the command runs (see computedName). Any other
	// assignment to the name forgets it.
	loopNames map[string]bool
	// pipeIn is what the command being judged reads from a pipe: none
	// (the line's own input), names the line judges that the stages
	// before it list (pipeNames, see listsThrough), or other text.
	pipeIn pipeInput
	// listedNames are the command substitutions, by their text, that
	// only list names of files the line judges (see listsWorkdir): cat
	// $(ls) reads those files, not a name computed when the command
	// runs.
	listedNames map[string]bool
	// exported are the variables the line exported (export, declare -x);
	// cmdEnv, while a command is judged, the values its own assignments
	// give its environment (NAME=VALUE cmd, env NAME=VALUE cmd). A shell
	// string it runs knows those (see childVars).
	exported map[string]bool
	cmdEnv   map[string]envVal
	// pwdVars are the variables whose value, not known, starts with the
	// directory the shell was in ($PWD/bin, $(pwd)/bin), as the path
	// there that pathValue gives (./bin); any other assignment to the
	// name forgets it. An install directory is judged by it (see
	// installDirWrites).
	pwdVars map[string]string
	funcs   map[string]bool
	calls   map[string]funcCalls
	ints    map[string]bool // variables declared integer (declare -i)
	via     []string
	// arithDepth is how deeply arithmetic expressions nest.
	arithDepth int
	// cwd is where the shell may be at this point of the walk: the
	// directories the line has changed into so far (cd, pushd, git -C,
	// env -C), besides the working directory. Relative writes are judged
	// in each (see writeTarget).
	cwd dirSet
	// seen is every directory the walk has changed into, never forgotten.
	seen dirSet
	// later, in a second walk, is the first walk's seen: a loop or
	// function body may run after a change that comes later in the text,
	// so its writes are judged in these too.
	later *dirSet
	// laterCloned, in a second walk, is the first walk's cloned: such a
	// body may run after a clone that comes later in the text too.
	laterCloned []string
	// repeat counts the loop and function bodies being walked; repeated
	// records that there was one.
	repeat   int
	repeated bool
	// bindings counts the loop bodies walked with the variable bound to
	// one of its values (see walkBound).
	bindings int
	scratch  overlapScratch // for judging globs against path rules
	pathWork int            // see maxPathWork
	fds      fdState        // descriptors opened to read, for /dev/fd/N writes
	links    bool           // the line makes links (ln, cp -s)
	wrote    int            // files written (not standard streams)
	linkers  int            // writes made by the commands that make links
	// incomplete: some of the line was not judged (see Verdict.Incomplete).
	incomplete bool
	// secretWork is the work of comparing globs with Secrets: see
	// maxSecretWork.
	secretWork int
	// dirSecrets is what secretIn found of a name (no glob) in a
	// directory, by directory and name; dirSecretsLen counts them.
	dirSecrets    map[string]map[string]finding
	dirSecretsLen int
}

// pipeInput is what a command reads from a pipe (see state.pipeIn).
type pipeInput uint8

const (
	pipeNone  pipeInput = iota // no pipe: the line's own input
	pipeNames                  // names the line judges (find . | xargs cat, see listsWorkdir)
	pipeOther                  // any other text
)

func (s *state) note(l Level, reason string) {
	s.findings = append(s.findings, finding{l, reason})
}

// invalid notes a part of the line that could not be judged (it does not
// parse, or is over a limit), at Defaults.Invalid: the verdict is
// Incomplete.
func (s *state) invalid(reason string) {
	s.note(s.c.rules.Defaults.Invalid, reason)
	s.incomplete = true
}

// overLimit notes a line over one of Rules.Limits: Blocked, whatever
// Defaults.Invalid says, since bash runs the commands past the limit that
// were never judged, and no mode may run what was not looked at. The
// verdict is Incomplete.
func (s *state) overLimit(reason string) {
	s.note(Blocked, reason+": the rest is not judged, so the line never runs; split it")
	s.incomplete = true
}

func (s *state) verdict() Verdict {
	v := Verdict{Level: Safe, Commands: s.cmds, Incomplete: s.incomplete}
	all := s.findings
	for _, c := range s.cmds {
		v.Level = max(v.Level, c.Level)
	}
	for _, f := range all {
		v.Level = max(v.Level, f.level)
	}
	var reasons reasonList
	// Reasons of the commands at the top level, then of the line itself.
	for _, c := range s.cmds {
		if c.Level == v.Level {
			for _, r := range c.Reasons {
				reasons.add(r)
			}
		}
	}
	for _, f := range all {
		if f.level == v.Level {
			reasons.add(f.reason)
		}
	}
	v.Reasons = reasons.list
	if len(v.Reasons) == 0 {
		// Only shell syntax with no command in it, such as [[ -f x ]].
		v.Reasons = []string{"no command runs, only shell syntax"}
	}
	return v
}

// hiddenText reports bytes that can make a command read differently to a
// person than to bash: a carriage return or an escape sequence can hide
// the rest of the line in a terminal, a NUL ends the string early for some
// readers, invalid UTF-8 and C1 controls render unpredictably. Such a
// command is never Safe.
func hiddenText(cmd string) string {
	if !utf8.ValidString(cmd) {
		return "command is not valid UTF-8"
	}
	for _, r := range cmd {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("command holds the control character %U, which can hide text from a reviewer", r)
		case r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("command holds the C1 control character %U, which can hide text from a reviewer", r)
		case r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x206f) || (r >= 0x200b && r <= 0x200f) ||
			r == 0xfeff:
			// U+200C-200F and U+206A-206F are also ignored in file names
			// by macOS (HFS+): .g\u200cit is .git there.
			return fmt.Sprintf("command holds the invisible or direction-changing character %U", r)
		}
	}
	return ""
}
