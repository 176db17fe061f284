package approval

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/internal/namefold"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Mode is a Policy's default answer for calls no rule decides.
type Mode uint8

// The policy modes. The zero Mode is ModeAuto.
const (
	// ModeAuto approves safe calls, asks on warning and dangerous ones, and
	// refuses blocked ones. The "unsafe only" mode of other SDKs is this.
	ModeAuto Mode = iota
	// ModeAlwaysAsk asks about every call that no allow rule approves.
	ModeAlwaysAsk
	// ModeAllowAll approves every call that no deny or ask rule (or the
	// spec, or the operating mode) holds back. Blocked calls are still
	// refused.
	ModeAllowAll
	// ModeDenyAll refuses every call.
	ModeDenyAll
)

var modeNames = [...]string{"auto", "always_ask", "allow_all", "deny_all"}

// String returns "auto", "always_ask", "allow_all", "deny_all" or "mode(N)".
func (m Mode) String() string {
	if m <= ModeDenyAll {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// MarshalText encodes the mode as its name.
func (m Mode) MarshalText() ([]byte, error) {
	if m > ModeDenyAll {
		return nil, fmt.Errorf("approval: invalid mode %d", uint8(m))
	}
	return []byte(modeNames[m]), nil
}

// UnmarshalText decodes a mode name (see ParseMode).
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseMode parses "auto" (also "unsafe_only"), "always_ask" (also
// "prompt"), "allow_all" or "deny_all", case-insensitively; "-" may stand
// for "_".
func ParseMode(s string) (Mode, error) {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
	switch t {
	case "auto", "unsafe_only":
		return ModeAuto, nil
	case "always_ask", "prompt":
		return ModeAlwaysAsk, nil
	case "allow_all":
		return ModeAllowAll, nil
	case "deny_all":
		return ModeDenyAll, nil
	}
	return ModeAuto, fmt.Errorf("approval: unknown mode %q: use auto, always_ask, allow_all or deny_all", s)
}

// Action is what a Policy says to do with a call.
type Action uint8

// The policy actions.
const (
	// ActionAsk: ask an Approver. It is the zero value, so a forgotten
	// evaluation asks rather than allows.
	ActionAsk Action = iota
	// ActionAllow: run the call without asking.
	ActionAllow
	// ActionRefuse: do not run the call and do not ask.
	ActionRefuse
)

// String returns "ask", "allow" or "refuse".
func (a Action) String() string {
	switch a {
	case ActionAsk:
		return "ask"
	case ActionAllow:
		return "allow"
	case ActionRefuse:
		return "refuse"
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// Evaluation is a Policy's answer for one call.
type Evaluation struct {
	Action Action
	// Reason says why, in a sentence fit for a model or a log.
	Reason string
	// Rule is the rule that decided ("deny shell(rm *)"), if one did, or
	// the setting ("deny_dangerous").
	Rule string
	// EveryCall is set, with ActionAsk, when the called tool is on the
	// always-ask list (AlwaysAsk) or its spec requires approval
	// (tool.Spec.RequiresApproval: "ask a human every time"), whichever
	// ask rule matched first: this call must be asked about itself, and no
	// approval remembered for the session (approvalgate's session memory)
	// may stand in for it.
	EveryCall bool
}

// Policy decides, without asking anyone, whether a call is allowed, must be
// asked about, or is refused. Build one with NewPolicy; it is immutable and
// safe for concurrent use. The zero value is not usable.
//
// Evaluate applies, first match wins:
//
//  1. mode deny_all: refuse;
//  2. deny rules: refuse;
//  3. level blocked (or out of range): refuse, in every mode; level
//     dangerous, with DenyDangerous: refuse, in every mode;
//  4. ask rules, then the always-ask tool list: ask;
//  5. the spec's RequiresApproval: ask;
//  6. Request.Required (the operating mode demands approval): ask;
//  7. allow rules, then the always-approve tool list: allow;
//  8. the mode: allow_all allows, always_ask asks, auto allows safe calls
//     (and warning ones, with ApproveWarnings) and asks about the rest.
//
// A rule is a tool name, optionally with a pattern in parentheses:
// "read_file" matches every call to read_file, "shell(git status*)" the
// calls whose subject (see SubjectOf) matches "git status*". The tool name
// may use * as a wildcard. In the pattern, * and ** are wildcards:
//
//   - in a path or URL subject (an argument the tool's schema declares a
//     path, or else the fields path, file, url), * matches within one path
//     segment and ** across segments: write_file(docs/**). A path is
//     matched in its canonical form: resolved in the tool's workspace (see
//     SubjectOf and ResolvePathsIn) — "./docs/a.md", an absolute path
//     inside the workspace and a symlink into docs/ all match docs/**,
//     "docs/../src.go" and a link out of docs/ do not; an absolute pattern
//     matches the same path on the host (under the workspace's
//     directory); without a workspace, a relative path is taken from the
//     process's working directory (where a Go tool opens it), which an
//     absolute pattern matches, and where the host's symlinks lead is a
//     subject too (notes/id with notes -> HOME/.ssh is refused by
//     read_any(**/.ssh/**); a link out of the directory matches no allow
//     rule) — and a path that leaves the workspace (or, without one,
//     climbs out with "..") matches no allow rule and no relative
//     pattern, but every deny or ask rule with an absolute pattern, since
//     it may lead there. A URL is matched as the server
//     reads it: host in lower case without its default port or user
//     info, path decoded with its dot segments resolved, no fragment
//     ("https://H:443/docs/../admin" is "https://h/admin"). Every
//     declared path argument is a subject, one left out or empty counts as
//     the workspace root (see SubjectOf). A deny or ask rule matches when any subject matches, a
//     directory also when the pattern could match a path beneath it
//     (search_files(secrets/**) refuses a search of "."); an allow rule
//     only when every subject matches, a directory only when the pattern
//     covers all of it ("**", or ending in "/**" with a head that matches
//     the directory or one above it: list_directory(docs/**) approves
//     listing docs, list_directory(docs) does not). A deny or ask rule
//     matches a path also as a file system that compares names loosely
//     opens it (APFS, NTFS, ext4 casefold directories, vfat): both
//     folded by the sandbox's one fold of names (case, Unicode
//     normalisation, default-ignorable code points such as U+200B, a
//     component's trailing dots and spaces), so read_any(**/.ssh/**)
//     refuses ~/.SSH/id, ~/.ss\u200bh/id and ~/.ssh./id, and
//     read_any(/etc/**) /ETC/passwd; an allow rule keeps its spelling,
//     which folding would widen;
//   - in a command line (field command, or a tool's own Subject), both match
//     any text, except that in an allow rule they never match a shell
//     control character ( ; & | < > ` $ ( ) or a line break), so
//     shell(git status*) approves "git status -s" but not
//     "git status; rm -rf ~". To allow such a command, write the operator
//     literally in the pattern.
//
// A rule with a pattern matches only calls that have a subject. A wrapper
// that exposes the tool it runs (Unwrap, as the loader's go-type
// definitions do) is seen through for the tool's Subject and workspace,
// as it is for its Assessor (AssessorOf), and the deny and ask rules that
// name the tool it runs hold for its calls ("save" over write_file is
// refused by write_file(secrets/**)); allow rules approve only the name
// they give. Deny and
// ask rules on command lines match the whole line from its start, however
// it is spaced (blanks before it, runs of spaces or tabs, a
// backslash-newline: " git  push" is git push) or quoted (gi""t push,
// \git push, git${IFS}push, env git push), since they also match every
// simple command the line runs, as the default classifier's parser finds
// them (classify.Verdict.Commands): after ; && || | or a line break, in
// ( ), { }, $( ) and backquotes, in if, for and while bodies, behind
// wrappers such as sudo, timeout or xargs, and inside bash -c, name and
// arguments one space apart ("ls; git push" and "echo $(git push)" are
// refused by shell(git push*); "echo git push" only mentions it). A line
// that cannot all be read (it does not parse, and bash still runs the
// lines before the error; or it is over the classifier's limits:
// Verdict.Incomplete) is held by every deny and ask rule of its tool.
// They fail closed where the shell decides at run time what runs:
//
//   - a word the parser cannot read ($x, ${x:-git}, "${a[@]}",
//     $(printf git), the arguments xargs adds, an extended glob) may be
//     any text, and a glob (g*t, pu*) any text where its * ? [...] stand
//     (a command word's by its last path segment: /usr/bin/gi? is gi?),
//     so a rule holds when the command could be one it names
//     ("${x:-git} push" and "git $(echo push)" are refused by
//     shell(git push*), "git log $r" is not);
//   - a command the classifier has no rule for (fakeroot), or one that
//     runs a command after a subcommand (uv run, docker exec, nix-shell
//     --run), holds a rule when an argument is the rule's command word
//     (or a package at a version: npx npm@10 publish) and the rule
//     matches from there ("fakeroot git push"; "mytool git status" and
//     "echo git push" are not refused);
//   - a line that feeds a shell or an interpreter code from its input or
//     a process substitution ("printf 'git push' | sh"), runs a script it
//     writes, runs commands from awk or sed's e, runs another language's
//     code that may start a program (os.system(...)), or uses a nameref,
//     the alias or command hash tables (BASH_ALIASES, BASH_CMDS), prompt
//     expansion (${x@P}, PS4) or an assignment a special built-in keeps
//     (x=push :) is held by every rule;
//   - a line that runs other text as code (bash s.sh, source, eval,
//     alias, hash -p, make, parallel, mapfile -C, a DEBUG trap,
//     PROMPT_COMMAND, a program copied under another name) is held by
//     every rule whose command word (git in git push*) the line's text
//     or the commands' arguments name;
//   - a value that a program runs as a shell command (git's settings from
//     git -c, git config or GIT_CONFIG_*, such as core.fsmonitor,
//     diff.external or an alias "!..."; GIT_EDITOR, EDITOR,
//     GIT_SSH_COMMAND, PAGER and the like) holds every rule whose command
//     word it names ("git -c core.fsmonitor='touch x' status" is refused
//     by shell(touch *)), and every rule when it has quotes, escapes or
//     expansions the shell git starts would read, or when such a variable
//     is set without an assignment (read, printf -v); a line that writes a
//     file and points git at a config file (GIT_CONFIG_GLOBAL, HOME,
//     include.path) is held by every rule;
//   - a command the classifier calls dangerous because it runs a program
//     its arguments give (git rebase -x, git bisect run, git submodule
//     foreach, ssh -o ProxyCommand=, rsync -e) holds a rule when an
//     argument, or an option's value in one, is a command line that runs
//     what the rule names (as an unknown wrapper's arguments do); a value
//     the shell computes there ("$(printf ...)") is not seen;
//   - a relative word after a cd or pushd into a literal directory is read
//     also under that directory, for every cd the line may have run
//     before it ("cd /etc && cat shadow" is also cat /etc/shadow, "cd
//     secrets && rm -rf ." rm -rf secrets); after a cd into a directory
//     the shell computes (cd "$d", cd ~, cd -, popd, a relative one when
//     the line names CDPATH), a rule with an argument that names a path
//     (a word with a "/", or beginning with "." or "~") holds for every
//     command after it that the rule names. The directory a tool runs
//     the line in is not known here: rules match as if the line began
//     there.
//
// The refusal then asks for the command written out literally. Deny and
// ask rules also read a command's options as options (rule.reordered): the
// options a rule gives after its command word or a subcommand may be
// bundled, split or reordered anywhere before "--" ("rm -fr ~", "rm -r -f
// /" and "rm x -rf" for rm -rf *; "git reset -q --hard" and "git reset
// HEAD --hard" for git reset --hard*), spelled -R or --recursive for -r
// and --force for -f, or as a long option cut short ("--rec", "--har");
// and the rest of the rule, or its subcommand, may start after options
// and their values ("git -C . push" for git push*). Which options take a
// value is not known, so a word after an option may be skipped as its
// value ("git -C push status" is refused too). A word the shell computes
// there may be any option, the subcommand or nothing: git push* refuses
// `git -C . $x` and `git -C "$repo" status`, rm -rf * refuses `rm -r "$d"`;
// and so may a glob that could name such a file (`rm -r *`: a file named
// -f may be there; not `rm -f *.o`). npm runs a prefix of a subcommand as the
// subcommand (npm publi), git's dashed form is git and the subcommand
// (/usr/lib/git-core/git-push, a link to git, is git push), and docker's
// management commands are the commands they alias (docker container rm
// and docker container remove are docker rm, docker image rm is docker
// rmi). A line that sets a git alias or help.autocorrect
// (alias. or autocorrect, in any case) runs text as code. Past 64 words
// tried, the rule holds. Rules do not see into programs (a Makefile, a
// script, or a git alias or config on disk written by an earlier call), or
// other spellings of a subcommand (git send-pack for git push).
type Policy struct {
	mode       Mode
	denyDanger bool // DenyDangerous
	warnOK     bool // ApproveWarnings
	deny       []rule
	ask        []rule
	allow      []rule
	names      map[string]struct{} // exact tool names that some rule names
	wildNames  bool                // some rule's tool name has a wildcard
	ws         *sandbox.Workspace  // ResolvePathsIn
}

type rule struct {
	text    string // as written, with its list: "deny shell(rm *)"
	exact   string // tool name when it has no wildcard
	name    *regexp.Regexp
	pattern bool
	always  bool // from the always-ask tool list (Evaluation.EveryCall)
	// pathGlob is the pattern against a path subject, in the project's one
	// "**" dialect (doublestar, as sandbox.Match): docs/** matches docs and
	// everything under it, * stays within one segment.
	pathGlob string
	// foldGlob is a deny or ask rule's pathGlob folded (namefold.Glob):
	// such a rule matches a path subject folded too, as a file system
	// that compares names loosely opens it (see matchPaths). An allow
	// rule keeps its spelling, and has none.
	foldGlob string
	textRE   *regexp.Regexp // pattern against a text subject
	// glob is the pattern's bytes with anyText for each run of *, and
	// head its first literal word's base name, for deny and ask rules on
	// lines that compute what they run (rule.meets, rule.named).
	glob []int16
	head string
	// args is the pattern after its command word read as options and
	// words, for deny and ask rules that read a command's options as
	// options (rule.reordered); nil when the command word has a *.
	args *argPattern
	// namesPath: a deny or ask rule whose pattern has an argument that
	// names a path (a word with a "/", or beginning with "." or "~"). It
	// holds for a command it names after a cd the shell computes
	// (lineCommands.lost).
	namesPath bool
	// stopOps: an allow rule (or always-approve tool). Its wildcards stop
	// at shell control operators, and it matches a call only when it
	// matches every path subject, a directory only when it covers all of
	// it (see matchPaths).
	stopOps bool
}

// PolicyOption configures NewPolicy.
type PolicyOption func(*policyConfig)

type policyConfig struct {
	deny, ask, allow []string
	alwaysApprove    []string
	alwaysAsk        []string
	ws               *sandbox.Workspace
	denyDanger       bool
	warnOK           bool
}

// ResolvePathsIn resolves path subjects in ws (sandbox.Workspace.Resolve)
// for tools that do not name their own workspace, and for Approve, which
// sees no tool. Without it those paths are only cleaned lexically.
func ResolvePathsIn(ws *sandbox.Workspace) PolicyOption {
	return func(c *policyConfig) { c.ws = ws }
}

// DenyRules adds rules whose calls are refused.
func DenyRules(rules ...string) PolicyOption {
	return func(c *policyConfig) { c.deny = append(c.deny, rules...) }
}

// AskRules adds rules whose calls are asked about.
func AskRules(rules ...string) PolicyOption {
	return func(c *policyConfig) { c.ask = append(c.ask, rules...) }
}

// AllowRules adds rules whose calls are approved without asking.
func AllowRules(rules ...string) PolicyOption {
	return func(c *policyConfig) { c.allow = append(c.allow, rules...) }
}

// AlwaysApprove adds tools whose calls are approved without asking (unless
// a deny or ask rule, the spec or the mode says otherwise).
func AlwaysApprove(tools ...string) PolicyOption {
	return func(c *policyConfig) { c.alwaysApprove = append(c.alwaysApprove, tools...) }
}

// AlwaysAsk adds tools whose calls are always asked about (unless a deny
// rule refuses them): every call, one by one. An approval given "for this
// session" (ScopeSessionArgs, ScopeSessionTool) covers only the call it
// answers, so approvalgate's session memory never lets a later call of
// such a tool run unasked; a denial remembered for the session still
// refuses its later calls. Evaluation.EveryCall marks these calls.
func AlwaysAsk(tools ...string) PolicyOption {
	return func(c *policyConfig) { c.alwaysAsk = append(c.alwaysAsk, tools...) }
}

// DenyDangerous refuses every call assessed dangerous (Request.Level),
// whatever the mode and whatever an allow rule or the always-approve list
// says: AlwaysApprove("bash") with DenyDangerous approves bash, except what
// is dangerous (rm -rf build). It is for agents that run with nobody to
// ask, where a dangerous call would otherwise wait for a person. Deny rules
// still refuse first, with their own reason; blocked calls are refused
// anyway. The level of a tool without an Assessor comes from its spec (see
// LevelOf): every call of a high-risk or destructive tool is refused. In
// configuration: deny_dangerous: true.
func DenyDangerous() PolicyOption {
	return func(c *policyConfig) { c.denyDanger = true }
}

// ApproveWarnings makes mode auto approve calls assessed warning as well as
// safe ones, and ask only about dangerous ones; ask rules, the spec's
// RequiresApproval and the operating mode still ask. Note that a tool with
// no risk set is assessed warning (see LevelOf), so its calls run unasked
// too. It does nothing in allow_all (which approves them anyway) or
// deny_all, and NewPolicy refuses it with always_ask, which asks about
// every call. In configuration: prompt_on_warning: false.
func ApproveWarnings() PolicyOption {
	return func(c *policyConfig) { c.warnOK = true }
}

// PolicyConfig is a Policy as data, for configuration files: read it with
// ParsePolicyConfig (YAML or JSON), which refuses unknown settings, then
// call Policy.
//
// The seed's auto_approve_safe has no field: auto_approve_safe: false is
// mode always_ask, and true is what auto and allow_all do.
type PolicyConfig struct {
	Mode          Mode     `json:"mode" yaml:"mode"`
	AlwaysApprove []string `json:"always_approve,omitempty" yaml:"always_approve,omitempty"`
	AlwaysAsk     []string `json:"always_ask,omitempty" yaml:"always_ask,omitempty"`
	Deny          []string `json:"deny,omitempty" yaml:"deny,omitempty"`
	Ask           []string `json:"ask,omitempty" yaml:"ask,omitempty"`
	Allow         []string `json:"allow,omitempty" yaml:"allow,omitempty"`
	// DenyDangerous refuses calls assessed dangerous (see DenyDangerous).
	DenyDangerous bool `json:"deny_dangerous,omitempty" yaml:"deny_dangerous,omitempty"`
	// PromptOnWarning false makes mode auto approve calls assessed warning
	// (see ApproveWarnings). Left out (nil), it is true: auto asks.
	PromptOnWarning *bool `json:"prompt_on_warning,omitempty" yaml:"prompt_on_warning,omitempty"`
}

// Policy compiles c.
func (c PolicyConfig) Policy() (*Policy, error) {
	opts := []PolicyOption{DenyRules(c.Deny...), AskRules(c.Ask...), AllowRules(c.Allow...),
		AlwaysApprove(c.AlwaysApprove...), AlwaysAsk(c.AlwaysAsk...)}
	if c.DenyDangerous {
		opts = append(opts, DenyDangerous())
	}
	if c.PromptOnWarning != nil && !*c.PromptOnWarning {
		opts = append(opts, ApproveWarnings())
	}
	return NewPolicy(c.Mode, opts...)
}

// DefaultPolicy returns the auto policy with no rules.
func DefaultPolicy() *Policy {
	return &Policy{mode: ModeAuto, names: map[string]struct{}{}}
}

// NewPolicy compiles a policy. The error names every bad rule and how to
// write it.
func NewPolicy(mode Mode, opts ...PolicyOption) (*Policy, error) {
	if mode > ModeDenyAll {
		return nil, fmt.Errorf("approval: invalid mode %d: use ModeAuto, ModeAlwaysAsk, ModeAllowAll or ModeDenyAll", uint8(mode))
	}
	var c policyConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	p := &Policy{mode: mode, names: map[string]struct{}{}, ws: c.ws, denyDanger: c.denyDanger, warnOK: c.warnOK}
	var errs []error
	if c.warnOK && mode == ModeAlwaysAsk {
		errs = append(errs, errors.New("approval: ApproveWarnings (prompt_on_warning: false) contradicts mode always_ask, which asks about every call: use mode auto to approve safe and warning calls, or leave the setting out"))
	}
	add := func(list string, src []string, dst *[]rule, namesOnly bool) {
		for i, s := range src {
			r, err := parseRule(list, s, namesOnly)
			if err != nil {
				errs = append(errs, fmt.Errorf("approval: %s #%d %q: %w", list, i+1, s, err))
				continue
			}
			if r.exact != "" {
				p.names[r.exact] = struct{}{}
			} else {
				p.wildNames = true
			}
			*dst = append(*dst, r)
		}
	}
	add("deny rule", c.deny, &p.deny, false)
	add("ask rule", c.ask, &p.ask, false)
	add("always-ask tool", c.alwaysAsk, &p.ask, true)
	add("allow rule", c.allow, &p.allow, false)
	add("always-approve tool", c.alwaysApprove, &p.allow, true)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// MustPolicy is NewPolicy that panics on error, for static configuration.
func MustPolicy(mode Mode, opts ...PolicyOption) *Policy {
	p, err := NewPolicy(mode, opts...)
	if err != nil {
		panic(err)
	}
	return p
}

// CheckTools reports the rules whose tool name matches none of names: an
// exact name not among them, or a wildcard that matches none. A typo in a
// deny or ask rule never matches, so the real tool would run unasked (in
// allow_all mode, or when it is assessed safe). suggest, when non-nil,
// returns the closest names to a missing one for a did-you-mean.
// approvalgate's CheckRegistry runs it on the executor's registry.
func (p *Policy) CheckTools(names []string, suggest func(name string) []string) error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, list := range [][]rule{p.deny, p.ask, p.allow} {
		for _, r := range list {
			if r.exact != "" {
				if slices.Contains(names, r.exact) {
					continue
				}
				msg := fmt.Sprintf("approval: rule %q names tool %q, which is not registered", r.text, r.exact)
				if s := suggestion(suggest, r.exact); s != "" {
					msg += fmt.Sprintf(": did you mean %q?", s)
				} else {
					msg += ": register the tool before executor.New, or fix the name"
				}
				errs = append(errs, errors.New(msg))
				continue
			}
			if !slices.ContainsFunc(names, r.name.MatchString) {
				errs = append(errs, fmt.Errorf("approval: rule %q matches no registered tool: register the tools before executor.New, or fix the name", r.text))
			}
		}
	}
	return errors.Join(errs...)
}

func suggestion(suggest func(string) []string, name string) string {
	if suggest == nil {
		return ""
	}
	if s := suggest(name); len(s) > 0 {
		return s[0]
	}
	return ""
}

// Mode returns the policy's mode.
func (p *Policy) Mode() Mode { return p.mode }

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_*-]{1,64}$`)

func parseRule(list, s string, namesOnly bool) (rule, error) {
	s = strings.TrimSpace(s)
	kind := strings.Fields(list)[0]
	r := rule{text: kind + " " + s, stopOps: kind == "allow" || kind == "always-approve", always: kind == "always-ask"}
	name, pat := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		if namesOnly {
			return r, errors.New("a tool list takes tool names only: move patterned rules to the deny, ask or allow rules")
		}
		if !strings.HasSuffix(s, ")") {
			return r, errors.New(`missing closing ")": write tool(pattern), e.g. shell(git status*)`)
		}
		name, pat = s[:i], s[i+1:len(s)-1]
		if pat == "" {
			return r, fmt.Errorf("empty pattern: write %s to match every call of the tool, or %s(pattern)", name, name)
		}
		r.pattern = true
	}
	if !toolNameRE.MatchString(name) {
		return r, fmt.Errorf("tool name %q is not a tool name: use letters, digits, _ and -, with * as a wildcard", name)
	}
	if strings.Contains(name, "*") {
		r.name = regexp.MustCompile("^" + globRE(name, ".*", ".*") + "$")
	} else {
		r.exact = name
	}
	if r.pattern {
		var err error
		if !doublestar.ValidatePattern(pat) {
			return r, fmt.Errorf("pattern %q is malformed: use *, ?, [...], {a,b} and ** (github.com/bmatcuk/doublestar/v4)", pat)
		}
		r.pathGlob = sandbox.CleanPattern(pat)
		if !r.stopOps {
			r.foldGlob = namefold.Glob(r.pathGlob)
		}
		wild := ".*"
		if r.stopOps {
			wild = "[^;&|<>`$()\\n\\r]*"
		}
		if r.textRE, err = regexp.Compile(`^(?s:` + globRE(pat, wild, wild) + `)$`); err != nil {
			return r, err
		}
		if !r.stopOps {
			for i := 0; i < len(pat); i++ {
				if pat[i] != '*' {
					r.glob = append(r.glob, int16(pat[i]))
				} else if len(r.glob) == 0 || r.glob[len(r.glob)-1] != anyText {
					r.glob = append(r.glob, anyText)
				}
			}
			if f := strings.Fields(strings.ReplaceAll(pat, "*", " ")); len(f) > 0 {
				r.head = path.Base(f[0])
			}
			if words := strings.Fields(pat); len(words) > 0 && !strings.Contains(words[0], "*") {
				r.args = parseArgPattern(words[1:])
			}
			if words := strings.Fields(pat); len(words) > 1 {
				r.namesPath = slices.ContainsFunc(words[1:], func(w string) bool {
					return w[0] != '-' && (strings.Contains(w, "/") || w[0] == '.' || w[0] == '~')
				})
			}
		}
	}
	return r, nil
}

// globRE turns a glob into a regular expression: ** becomes double, * single,
// everything else is literal.
func globRE(glob, double, single string) string {
	var b strings.Builder
	lit := 0
	for i := 0; i < len(glob); {
		if glob[i] != '*' {
			i++
			continue
		}
		b.WriteString(regexp.QuoteMeta(glob[lit:i]))
		if i+1 < len(glob) && glob[i+1] == '*' {
			b.WriteString(double)
			for i < len(glob) && glob[i] == '*' {
				i++
			}
		} else {
			b.WriteString(single)
			i++
		}
		lit = i
	}
	b.WriteString(regexp.QuoteMeta(glob[lit:]))
	return b.String()
}

// subject is computed once per evaluation, and only if a rule needs it.
type subject struct {
	// runs are the names of the tools the called tool runs under other
	// names (tool.UnwrappedNames), which deny and ask rules match too.
	runs []string
	done bool
	callSubject
	ws *sandbox.Workspace
	// inner are the simple commands of a command line (innerCommands),
	// once a deny or ask rule needed them (innerDone).
	inner     []string
	unread    bool // the line cannot all be read: every such rule holds
	innerDone bool
	line      lineCommands // what readLine found, once innerDone
	// opaque: a rule held because the line computes what it runs
	// (lineCommands.wild, shellInput, runsCode).
	opaque bool
	// moved: a rule held because the line changes into a directory it
	// computes (lineCommands.lost).
	moved bool
}

// unreadNote says why a rule held for a line that cannot all be read.
func (sub *subject) unreadNote() string {
	if sub.moved {
		return ": the command line changes into a directory it computes at run time (cd \"$d\", cd ~, cd -, popd), so a relative path may name what the rule names; write the paths out absolute, or cd into a literal directory"
	}
	if sub.opaque {
		return ": the command line computes a command word at run time (a variable, $( ), a glob, input to xargs) or runs text as code (piped into a shell, a script, an alias, eval, another language), so it may run what the rule names; write the command and its arguments out literally"
	}
	if !sub.unread {
		return ""
	}
	return ": the command line cannot all be read (it does not parse, or is over a limit), so it may run what the rule names; send a complete, shorter command"
}

func (r *rule) match(t tool.Tool, req *Request, sub *subject) bool {
	if !r.names(req.Call.Name) {
		// A deny or ask rule holds too for a tool that runs the tool it
		// names under another name (sub.runs); an allow rule approves
		// only the name it gives.
		if r.stopOps || !slices.ContainsFunc(sub.runs, r.names) {
			return false
		}
	}
	if !r.pattern {
		return true
	}
	if !sub.done {
		sub.done = true
		sub.callSubject = subjectOf(subjectOwner(t), &req.Spec, sub.ws, req.Call.Args)
		if sub.has() && req.Subject == "" {
			req.Subject = sub.text
		}
	}
	if sub.kind == subjectPath {
		return r.matchPaths(sub.paths)
	}
	if !sub.has() {
		return false
	}
	if r.textRE.MatchString(sub.text) {
		return true
	}
	// An allow rule stays as strict as written. A deny or ask rule holds
	// for every simple command the line runs, as the parser reads it
	// (" git  push", gi''t push and git${IFS}push are git push), wherever
	// it is: after ; && || | or a line break, in ( ), { } and $( ), in a
	// loop, behind sudo or timeout, inside bash -c.
	if r.stopOps {
		return false
	}
	// A line that cannot all be read may run what the rule names: bash
	// runs the lines before a syntax error.
	if !sub.innerDone {
		sub.line, sub.innerDone = readLine(sub.text), true
		sub.inner, sub.unread = sub.line.cmds, sub.line.unread
	}
	if sub.unread || slices.ContainsFunc(sub.inner, r.textRE.MatchString) || slices.ContainsFunc(sub.line.argvs, r.reordered) {
		return true
	}
	// After a cd into a directory the shell computes, a relative path
	// may be the one the rule names.
	if r.namesPath && slices.ContainsFunc(sub.line.lost, r.named) {
		sub.moved = true
		return true
	}
	// A word the shell computes at run time, or picks from the files it
	// finds, may be any word: the rule holds when the command could be
	// one it names. A line that feeds a shell code it cannot read holds
	// every rule; one that runs other text as code (a script, an alias,
	// another language), every rule whose command it names.
	if slices.ContainsFunc(sub.line.wild, r.meets) || slices.ContainsFunc(sub.line.unknown, r.runByUnknown) {
		sub.opaque = true
		return true
	}
	if sub.line.shellInput || sub.line.runsCode && (r.named(escapedBlanks.Replace(sub.text)) ||
		slices.ContainsFunc(sub.inner, r.named)) || slices.ContainsFunc(sub.line.code, r.named) {
		sub.opaque = true
		return true
	}
	return false
}

// names reports whether the rule's tool name matches name.
func (r *rule) names(name string) bool {
	if r.exact != "" {
		return r.exact == name
	}
	return r.name.MatchString(name)
}

// subjectOwner is the tool that names a call's subject: t, or, when t is a
// wrapper that exposes the tool it runs (Unwrap, as the loader's go-type
// definitions do) and has no Subject or Workspace method of its own, the
// first tool beneath that has one. A wrapper must not hide what its tool
// acts on from the rules, as AssessorOf keeps it from hiding the tool's
// judgement. It gives up after 16 wrappers, returning t.
func subjectOwner(t tool.Tool) tool.Tool {
	u := t
	for range 16 {
		switch u.(type) {
		case Subjecter, interface{ Workspace() *sandbox.Workspace }:
			return u
		}
		w, ok := u.(interface{ Unwrap() tool.Tool })
		if !ok {
			return t
		}
		if u = w.Unwrap(); u == nil {
			return t
		}
	}
	return t
}

// matchPaths matches the rule's pattern against a call's path subjects.
// A deny or ask rule matches when some subject matches, a directory also
// when the pattern could match a path beneath it (sandbox.MatchBelow: a
// search of "." reaches secrets/**). An allow rule matches only when every
// subject matches, a directory only when the pattern covers everything
// beneath it (see covers). A subject that leaves the workspace (or climbs
// out with "..") matches no allow rule, and every deny or ask rule with an
// absolute pattern.
func (r *rule) matchPaths(paths []pathSubject) bool {
	if r.stopOps {
		for _, p := range paths {
			if p.alias {
				continue // judged in the form beside it
			}
			if !p.ok || p.outside {
				return false
			}
			name := r.nameOf(p)
			if p.dir && !covers(r.pathGlob, name) || !p.dir && !matchPath(r.pathGlob, name) {
				return false
			}
		}
		return len(paths) > 0
	}
	for _, p := range paths {
		if p.unjudged {
			return true // it may be any path
		}
		if p.out && strings.HasPrefix(r.pathGlob, "/") {
			// It leaves the workspace, or climbs out with "..": it is in
			// no place a relative pattern names, but it may well be in
			// the one an absolute pattern names, which no canonical
			// (relative) path can show: that rule holds
			// ("../../etc/passwd", or "/etc/passwd" in a workspace, for
			// /etc/**).
			return true
		}
		if !p.ok {
			continue
		}
		name := r.nameOf(p)
		if pathNamed(r.pathGlob, name, p.dir) {
			return true
		}
		// As a file system that compares names loosely opens it (APFS,
		// NTFS, ext4 casefold: ~/.SSH/id, /ETC/passwd and .ss\u200bh are
		// what .ssh and /etc name), folded (namefold; an ASCII name
		// without capitals or trailing dots and spaces folds to itself,
		// without allocating).
		if fname := namefold.Name(name); (fname != name || r.foldGlob != r.pathGlob) && pathNamed(r.foldGlob, fname, p.dir) {
			return true
		}
	}
	return false
}

// pathNamed reports whether a deny or ask rule's pattern names the path
// subject name: it matches name or a directory above it, or, for a
// directory (dir), could match a path beneath it.
func pathNamed(pattern, name string, dir bool) bool {
	return matchPath(pattern, name) || sandbox.MatchWithin(pattern, name) || dir && matchBelow(pattern, name)
}

// nameOf is the form of p the rule's pattern matches: the path on the host
// for an absolute pattern when p was resolved in a workspace, else the
// canonical path.
func (r *rule) nameOf(p pathSubject) string {
	if p.host != "" && strings.HasPrefix(r.pathGlob, "/") {
		return p.host
	}
	return p.path
}

// maxBraceAlternatives bounds the patterns a rule's braces expand to for
// matchBelow; past it, a directory is taken to hold what the rule names.
const maxBraceAlternatives = 256

// matchBelow reports whether pattern could match a path beneath the
// directory dir (sandbox.MatchBelow), for each alternative of its braces,
// which may hold a "/" ("{secrets/**,**/*.pem}").
func matchBelow(pattern, dir string) bool {
	alts, ok := expandBraces(pattern, maxBraceAlternatives)
	if !ok {
		return true
	}
	for _, a := range alts {
		if sandbox.MatchBelow(a, dir) {
			return true
		}
	}
	return false
}

// expandBraces returns the brace-free patterns pattern stands for
// ("a{b,c/d}" is "ab" and "ac/d"), nested braces included; ok is false
// past limit alternatives. A backslash escapes the next character, as in
// doublestar.
func expandBraces(pattern string, limit int) ([]string, bool) {
	open, depth := -1, 0
	var commas []int
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			head, tail := pattern[:open], pattern[i+1:]
			var out []string
			start := open + 1
			for _, c := range append(commas, i) {
				more, ok := expandBraces(head+pattern[start:c]+tail, limit-len(out))
				if !ok {
					return nil, false
				}
				out = append(out, more...)
				start = c + 1
			}
			return out, len(out) <= limit
		}
	}
	return []string{pattern}, limit >= 1
}

// matchPath matches a path subject ("." also as the empty path, as
// sandbox.Match takes the top).
func matchPath(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return ok && err == nil || sandbox.Match(pattern, name)
}

// covers reports whether pattern matches the directory dir and everything
// beneath it: it is "**", or it ends in "/**" and what comes before
// matches dir or a directory above it ("docs/**" covers "docs" and
// "docs/a", "**/build/**" covers "x/build"). Other patterns cover no
// directory, which keeps an allow rule from approving more than it names.
// It costs the length of dir, not its square (sandbox.MatchWithin).
func covers(pattern, dir string) bool {
	if pattern == "**" {
		return true
	}
	q, ok := strings.CutSuffix(pattern, "/**")
	return ok && q != "" && sandbox.MatchWithin(q, dir)
}

func firstMatch(rules []rule, t tool.Tool, req *Request, sub *subject) *rule {
	for i := range rules {
		if rules[i].match(t, req, sub) {
			return &rules[i]
		}
	}
	return nil
}

// Evaluate decides what to do with req (see Policy for the order). t is the
// called tool, for its Subjecter; it may be nil. When a rule needed the
// call's subject, Evaluate stores it in req.Subject.
func (p *Policy) Evaluate(t tool.Tool, req *Request) Evaluation {
	if p == nil {
		return Evaluation{Action: ActionAsk, Reason: "no approval policy is configured"}
	}
	if p.mode == ModeDenyAll {
		return Evaluation{Action: ActionRefuse, Reason: "the approval mode deny_all refuses every call"}
	}
	sub := subject{ws: p.ws, runs: tool.UnwrappedNames(t, req.Call.Name)}
	rulesApply := p.wildNames
	if !rulesApply {
		_, rulesApply = p.names[req.Call.Name]
		for _, n := range sub.runs {
			_, ok := p.names[n]
			rulesApply = rulesApply || ok
		}
	}
	if rulesApply {
		if r := firstMatch(p.deny, t, req, &sub); r != nil {
			return Evaluation{Action: ActionRefuse, Rule: r.text, Reason: fmt.Sprintf("the approval rule %q refuses this call", r.text) + sub.unreadNote()}
		}
	}
	if req.Level >= classify.Blocked || req.Level < classify.Safe {
		why := "the call is assessed " + req.Level.String()
		if len(req.Reasons) > 0 {
			why += ": " + strings.Join(req.Reasons, "; ")
		}
		return Evaluation{Action: ActionRefuse, Reason: why + "; blocked calls never run"}
	}
	if p.denyDanger && req.Level == classify.Dangerous {
		why := "the call is assessed dangerous"
		if len(req.Reasons) > 0 {
			why += ": " + strings.Join(req.Reasons, "; ")
		}
		return Evaluation{Action: ActionRefuse, Rule: "deny_dangerous",
			Reason: why + "; this approval policy refuses dangerous calls (deny_dangerous), whatever its mode and allow rules say: do this another way, or ask the user to run it"}
	}
	if rulesApply {
		if r := firstMatch(p.ask, t, req, &sub); r != nil {
			ev := Evaluation{Action: ActionAsk, Rule: r.text, Reason: fmt.Sprintf("the approval rule %q asks about this call", r.text) + sub.unreadNote()}
			// An ask rule may match before the always-ask entry that
			// names the same tool, or before the spec's RequiresApproval:
			// the list and the spec still hold.
			ev.EveryCall = r.always || req.Spec.RequiresApproval || slices.ContainsFunc(p.ask, func(a rule) bool { return a.always && a.match(t, req, &sub) })
			return ev
		}
	}
	if req.Spec.RequiresApproval {
		return Evaluation{Action: ActionAsk, Reason: fmt.Sprintf("tool %q requires approval for every call", req.Call.Name), EveryCall: true}
	}
	if req.Required != "" {
		return Evaluation{Action: ActionAsk, Reason: req.Required}
	}
	if rulesApply {
		if r := firstMatch(p.allow, t, req, &sub); r != nil {
			return Evaluation{Action: ActionAllow, Rule: r.text, Reason: fmt.Sprintf("the approval rule %q allows this call", r.text)}
		}
	}
	switch p.mode {
	case ModeAllowAll:
		return Evaluation{Action: ActionAllow, Reason: "the approval mode allow_all approves this call"}
	case ModeAlwaysAsk:
		return Evaluation{Action: ActionAsk, Reason: "the approval mode always_ask asks about every call"}
	}
	if req.Level == classify.Safe {
		return Evaluation{Action: ActionAllow, Reason: "the call is assessed safe"}
	}
	if p.warnOK && req.Level == classify.Warning {
		why := "the call is assessed warning"
		if len(req.Reasons) > 0 {
			why += ": " + strings.Join(req.Reasons, "; ")
		}
		return Evaluation{Action: ActionAllow, Reason: why + "; this approval policy approves warning calls (prompt_on_warning: false)"}
	}
	why := "the call is assessed " + req.Level.String()
	if len(req.Reasons) > 0 {
		why += ": " + strings.Join(req.Reasons, "; ")
	}
	return Evaluation{Action: ActionAsk, Reason: why}
}

// Approve makes a Policy usable as the first link of a FirstDecisive chain:
// it approves what the policy allows, denies what it refuses, and abstains
// (so the next approver is asked) on everything else. It judges the call
// with req.Tool, as Evaluate does with the tool it is given (the approval
// extension sets it): without it, a path would be resolved outside the
// tool's workspace, and the tool's own Subject and the tool a wrapper runs
// unseen, so a call the extension's policy asks about could be approved
// here. A request without a tool (read back from JSON) is judged on its
// argument fields only.
func (p *Policy) Approve(_ context.Context, req Request) (Decision, error) {
	ev := p.Evaluate(req.Tool, &req)
	switch ev.Action {
	case ActionAllow:
		return Decision{Kind: Approve, DecidedBy: "policy", Message: ev.Reason}, nil
	case ActionRefuse:
		return Denied("policy", ev.Reason), nil
	}
	return Decision{Kind: Abstain, DecidedBy: "policy", Message: ev.Reason}, nil
}
