// Package policy is the governance extension: operating modes and per-tool
// rules loaded from a YAML governance file.
//
// A Policy holds the current operating mode (normal, alert, degraded,
// lockdown, recovery, or a mode the file declares). The mode changes at run
// time without a restart: p.SetMode("lockdown") is one atomic store, and the
// next call sees it. A call still in progress of a tool the new mode
// refuses, or requires approval for when the call's own mode did not (so
// nobody was asked), waiting further in (for a person's approval, a lock,
// a retry) or running, is stopped: its context is cancelled and it fails
// with the refusal. With WithDegradeOnExhaustion, a call that fails because
// the host ran out of disk space or memory switches normal or alert to
// degraded by itself, and tells the operator.
//
// The governance file:
//
//	version: 1                      # optional
//	global:
//	  mode: normal                  # the mode at start
//	  modes: [maintenance]          # modes beyond the five built-ins
//	  path_fields: [path, dest]     # which arguments hold paths (default below)
//	  allowed_paths: ["$HOME/work/**"]
//	  forbidden_paths: ["/etc/**", "**/.ssh/**"]
//	  max_arg_bytes: 1MiB
//	  max_field_bytes: {content: 10MiB}
//	tools:
//	  write_file:
//	    category: system_write          # informational
//	    allowed_in_modes: [NORMAL]      # alias allowed_modes; empty: every mode
//	    requires_approval_in_modes: [ALERT, DEGRADED, RECOVERY]  # alias approval_modes
//	    forbidden_in_modes: [LOCKDOWN]  # alias forbidden_modes
//	    path_fields: [path]
//	    allowed_paths: ["$HOME/Dev/agent/**"]
//	    forbidden_paths: ["/System/**", "$HOME/.ssh/**"]
//	    max_arg_bytes: 65536
//	    max_file_size_mb: 10            # limits the content_field argument
//	    content_field: content          # default "content"
//	    max_field_bytes: {patch: 64KiB}
//
// Mode names are case-insensitive. Sizes are byte counts or strings with a
// unit (B, KB, KiB, MB, MiB, GB, GiB); max_file_size_mb counts MiB. Path
// patterns expand $VAR, ${VAR} and a leading ~ (to the path they hold,
// taken literally: "[", "{", "*" and "?" in it are not wildcards), and
// match with "**" for any number of path segments ("/System/**" matches
// "/System" and everything under it).
//
// Loading is strict: an unknown field, a misspelt mode, a malformed glob, an
// unset environment variable or a bad size is refused with the file, the
// line, the field and a suggestion, e.g.
//
//	governance.yaml:12: tools.write_file.allowed_in_modes[0]: unknown mode "lockdwn": did you mean "lockdown"?
//
// A rule for a tool the registry does not have is not an error (the file
// may serve several programs); Check reports it as a Warning. A tool that
// runs another under its own name (it exposes it with Unwrap() tool.Tool,
// as a tool file's go tool over a Loader.Funcs entry does) is held to the
// other's rules as well as its own: write_file's forbidden_in_modes and
// forbidden_paths hold for "save" when save runs write_file.
//
// Per call, in this order, the first broken rule refuses the call with
// tool.CodePolicyDenied, a message naming the rule ("tools.write_file.forbidden_in_modes")
// and the rule's name in the result metadata under MetaRule:
//
//  1. the tool's forbidden_in_modes contains the current mode;
//  2. the tool's allowed_in_modes (together with requires_approval_in_modes)
//     is not empty and lacks the current mode;
//  3. the tool's own tool.Spec.AllowedModes lacks the current mode
//     (rule "spec.allowed_modes");
//  4. the arguments are larger than max_arg_bytes (the tool's, else global;
//     counted as sent, a byte of invalid UTF-8 as the three bytes of the
//     U+FFFD the tool decodes it to);
//  5. a named argument is larger than its max_field_bytes / max_file_size_mb
//     (a string counts its bytes, any other value its JSON encoding, a
//     byte of invalid UTF-8 in it as three, as for max_arg_bytes);
//  6. a path argument matches a forbidden_paths glob (the tool's and the
//     global ones), or there are allowed_paths (the tool's, else global) and
//     it matches none (the path as written: its other readings below, a
//     word, an option's value, are judged by forbidden_paths only), or it climbs out with ".." (rule "paths.parent"), or
//     it leaves the workspace it is resolved in (rule "paths.resolve",
//     code filesystem_policy). For a tool with a workspace, a declared path
//     argument left out is judged as the workspace root ("."), the place
//     the built-in list, search and git_diff tools then use, and a directory that
//     holds paths the tool's own forbidden_paths name is refused to that
//     tool (listing or searching it would reach them).
//
// Paths are judged after resolution. The arguments that are paths are those
// the tool's input schema declares (sandbox.PathKeyword, set by the
// toolbelt:"path" tag; the built-in file tools declare theirs), also
// inside objects, lists and maps the arguments hold (a nested struct's
// tagged field, "options.backup"; "files[].name"; through a local $ref),
// each value given judged as a path argument is; a schema whose paths
// cannot all be read (deeper than 32 levels, more than 256, or behind
// $refs that loop) has its calls refused (rule "paths.schema"); path_fields
// in the file overrides that for tools that declare none (a tool rule's
// path_fields adds to what its tool declares, never takes one away), and only a tool
// that declares none and has no path_fields falls back to the names in
// DefaultPathFields. Argument names match without regard to case, as
// encoding/json matches them to a struct's fields: "Path" and "PATH" are
// judged as "path" (and sized as max_field_bytes names them), every
// occurrence of a repeated key too. A path argument of a tool that names its workspace
// (a Workspace() *sandbox.Workspace method, as the built-in file tools
// have, also behind wrappers with an Unwrap() tool.Tool method, as a tool
// file's go tool naming one), or of any tool when WithWorkspace is given, is resolved with
// sandbox.Workspace.Resolve: relative, absolute inside the workspace, "./",
// ".." and symlinks inside it all become one canonical workspace-relative
// path. Relative globs ("secrets/**") match that path; absolute globs
// ("/etc/**", "$HOME/.ssh/**") match the same path on the host (under the
// workspace's directory). Other paths are cleaned lexically; a relative
// one is placed in WithBaseDir's directory or, without it, in the
// process's working directory, where a Go tool's os.Open takes it (and
// refused when that directory cannot be named: it was removed):
// absolute patterns match it there, relative ones its part below that
// directory. Each is judged also as the host's file system reaches it,
// through symlinks and ".." after a link ("notes/id" with notes ->
// HOME/.ssh is HOME/.ssh/id), both as written and cleaned first (as
// filepath.Clean or filepath.Join leave it: "out/../notes/id" with out
// a link elsewhere is notes/id to such a tool), and as a tool that expands a leading ~ or
// $VAR in it reads it ("~/.ssh/id" and "$HOME/.ssh/id" are
// HOME/.ssh/id too), and as a program the tool hands it to reads an
// option's or an operand's value or a response file in it ("--file=.env",
// "-f.env", "if=.env" and "@.env" are .env too; not for the built-in file tools, which take it
// as written), and as a script that takes it unquoted splits it ("notes/a
// .env" is notes/a and .env, each judged; up to 64 words, else refused;
// not for the built-in file tools either), and, in a call that names two
// paths or more, as a program that changes to one of them reads it: each
// relative one under each other that is a directory on the host (tar -C
// DIR FILE, git -C, make -C: FILE is DIR/FILE; up to 1024 such paths a
// call, else refused; not for the built-in file tools), and as a tool that expands it
// as a glob reads it
// (filepath.Glob, Python's glob.glob: "~/.ss?/id" is each host path it
// matches; read level by level, up to 1024 paths a level and 16,384
// directory entries for all of a call's arguments, past which the call
// is refused; and each path its {a,b} alternatives
// stand for, up to 64; with "**", which such a tool may take
// across directories, the directory in front of the first wildcard is
// refused when paths under it may match a forbidden pattern, and "**"
// matches any number of directories, through symbolic links, as
// doublestar reads it; an argument holding an extended glob group,
// "@(secrets)/key", "!(notes)/key" or zsh's "(secrets|x)/key", which a
// shell with extglob expands, is refused with rule "paths.resolve"). A backslash is read as a separator, as a Windows
// tool reads it, and off Windows also as the character of a name it is
// there ("secrets/x\..\..\notes.txt" is a file inside secrets to a
// Linux tool, notes.txt to a Windows one), and a name's NTFS stream is
// cut off ("secrets:$I30:$INDEX_ALLOCATION/key" is secrets/key, and
// ".env::$DATA" .env, to NTFS). A forbidden pattern refuses any form, and each must
// be under an allowed one. A forbidden pattern matches each form also as
// a file system that compares names loosely opens it (APFS and NTFS by
// default, ext4 casefold directories, vfat): the form and the pattern
// both folded by the sandbox workspace's one fold of names (case, Unicode
// normalisation, default-ignorable code points such as U+200B, a
// component's trailing dots and spaces), so "**/.ssh/**" refuses
// "~/.SSH/id", "~/.ss\u200bh/id" and "~/.ssh./id", and "/etc/**"
// "/ETC/passwd"; and by the 8.3 short names vfat and NTFS open a
// name by (a literal name of the pattern that is not a valid 8.3 name:
// "**/.ssh/**" refuses "~/SSH~1/id", "secret-keys/**" "SECRET~1/k");
// Hide folds as well. Allowed patterns keep their
// spelling, which folding would widen. A file: URL in any argument but the content
// ("file:///home/u/.ssh/id" given to a browser's navigate or a fetch
// tool, in any case, with localhost as its host, percent-encoded, or in a
// list or object the argument holds, {"request": {"url": ...}}) is judged as the local path it names, since a tool that opens
// URLs reads that file whatever its argument is called. A tool that runs its calls in a
// directory of its own names it (Workdirer, also behind wrappers): its
// relative path arguments are taken from that directory first, then
// judged as above ("key" for a tool run in secrets is secrets/key); an
// argv shell tool (tool/shell's Command) names its Config.Workdir so. A
// bash tool's command line is
// not read for paths at all (only arguments are; its workdir when
// path_fields names it): what its commands reach is bounded by the
// sandbox engine. The rules judge names, not files: a hard link is a
// second name of a file, so a link in an allowed directory to a
// forbidden file ("notes/k", the inode of "secrets/key"), made before the
// policy ran or by a program it does not judge, is read by its allowed
// name. A call that would make one with a forbidden path declared as an
// argument (ln in either order, cp -l, link) is refused; finding the
// existing ones would take a walk of every forbidden pattern's files on
// each call of a file with more than one link (a pnpm or Nix store holds
// nothing else), which the policy does not make. An absolute pattern matches also with the
// directories in front of its first wildcard resolved on the host (at
// load), so "/tmp/agent/**" still matches where /tmp is a symlink.
// Patterns are read in the same form ("./secrets/" is "secrets"),
// and a forbidden pattern that matches a directory forbids everything
// inside it ("secrets" as "secrets/**").
//
// Tools that list or search do not pass every file they touch as an
// argument; they learn what is forbidden from their workspace, which
// Policy.Hide feeds: sandbox.OpenWorkspace(dir, sandbox.WithHide(pol.Hide))
// hides the global forbidden_paths from listings and searches (which say
// how many entries were hidden) and refuses them to every file operation.
// With global forbidden_paths, a call of a tool whose workspace does not
// hide them is refused, saying how to open it: a workspace opened without
// a hide function (sandbox.Workspace.Hides), or whose hide functions leave
// visible a path that a pattern names in it (the workspace is asked about
// one such path per pattern, once per configuration; a pattern naming no
// path in the workspace, or with a negated class, is not asked about).
// Only tools that name their workspace are judged so: a program a shell
// tool runs (ls, find, grep -r) lists what its directory holds, which no
// hide function filters.
//
// When the current mode is in requires_approval_in_modes, the call is not
// refused: the policy records the fact for the approval extension with
// req.Set(approval.RequiredKey, "policy rule <name>: mode <mode> requires approval").
// The policy also writes the current mode into req.Call.Mode for the
// extensions further in, and, when its rules look at the arguments, leaves
// itself under approval.JudgeKey (JudgeArgs): arguments an approver gives
// in place of the model's are judged by the same rules before they run.
package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/hostpath"
	"github.com/toolbelt-go/toolbelt/internal/jsonargs"
	"github.com/toolbelt-go/toolbelt/internal/namefold"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Name is the extension's name.
const Name = "policy"

// MetaRule is the result metadata key naming the rule that refused a call.
const MetaRule = "policy.rule"

// MetaMode is the result metadata key holding the mode a refused call was
// judged in.
const MetaMode = "policy.mode"

// DefaultPathFields are the argument names treated as paths for a tool whose
// input schema declares no path argument (sandbox.PathKeyword) when neither
// the tool's rule nor the global section sets path_fields. It is a fallback
// for tools written before the declaration; declare paths instead.
var DefaultPathFields = []string{"path", "file", "filepath", "dir", "directory", "target", "src", "dst"}

var builtinModes = []string{tool.ModeNormal, tool.ModeAlert, tool.ModeDegraded, tool.ModeLockdown, tool.ModeRecovery}

type modeSet []string

func (s modeSet) has(m string) bool { return slices.Contains(s, m) }
func (s modeSet) add(m string) modeSet {
	if s.has(m) {
		return s
	}
	return append(s, m)
}

type pathRule struct {
	glob   glob
	source string // as written in the file
	rule   string // e.g. "tools.write_file.forbidden_paths[1]"
	line   int
}

type toolRule struct {
	name string // "tools.write_file" or "global"
	tool string
	line int

	allowed, approval, forbidden modeSet
	allowedLine, forbiddenLine   int
	pathFields                   []string
	pathFieldsSet                bool
	pathFieldsLine               int
	allowedPaths, forbiddenPaths []pathRule
	maxArgBytes                  int64
	maxArgLine                   int
	fieldMax                     map[string]int64
	fieldRule                    map[string]string
	fieldOrder                   []string // fieldMax's keys, sorted
	contentField                 string
}

func (r *toolRule) setFieldMax(field string, n int64, rule string) {
	if r.fieldMax == nil {
		r.fieldMax, r.fieldRule = map[string]int64{}, map[string]string{}
	}
	r.fieldMax[field], r.fieldRule[field] = n, rule
	r.fieldOrder = sortedKeys(r.fieldMax)
}

type config struct {
	file       string
	mode       string
	modes      []string
	pathFields []string
	global     toolRule
	tools      map[string]*toolRule
	order      []string
}

// Option configures a Policy.
type Option func(*Policy)

// WithFilename names the governance source in errors and warnings (Load
// uses the path; the default is "governance.yaml").
func WithFilename(name string) Option { return func(p *Policy) { p.filename = name } }

// WithMode sets the mode at start, overriding the file's global.mode.
func WithMode(mode string) Option { return func(p *Policy) { p.initialMode = mode } }

// WithEnv replaces os.LookupEnv for $VAR expansion in path patterns.
func WithEnv(lookup func(string) (string, bool)) Option {
	return func(p *Policy) {
		if lookup != nil {
			p.env = lookup
		}
	}
}

// WithBaseDir resolves relative path arguments against dir before matching:
// absolute patterns match the resolved path, relative ones its part below
// dir (as they match the workspace-relative path in a workspace; a path
// outside dir has none, and no relative pattern matches it, except that a
// forbidden pattern beginning with "**" ("**/.ssh/**") matches it as an
// absolute path). The path is judged also where the host's symlinks lead
// (a link in dir to HOME/.ssh is judged as HOME/.ssh). Without
// it, relative paths are judged in the process's working directory, where
// a Go tool opens them. It applies only to
// paths not resolved in a workspace (see WithWorkspace).
func WithBaseDir(dir string) Option { return func(p *Policy) { p.baseDir = dir } }

// WithWorkspace resolves the path arguments of every tool in ws
// (sandbox.Workspace.Resolve), unless the tool names its own workspace.
// Without it, only tools that name their workspace (the built-in file
// tools) have their paths resolved.
func WithWorkspace(ws *sandbox.Workspace) Option { return func(p *Policy) { p.ws = ws } }

// Policy is the governance extension. It is safe for concurrent use.
type Policy struct {
	filename    string
	initialMode string
	env         func(string) (string, bool)
	baseDir     string
	ws          *sandbox.Workspace
	initErr     error
	degrade     bool                           // WithDegradeOnExhaustion
	notify      func(from string, cause error) // WithDegradeOnExhaustion

	cfg     atomic.Pointer[config]
	mode    atomic.Pointer[string]
	flying  flights      // calls in progress of tools with mode rules
	probed  sync.Map     // *sandbox.Workspace -> probe (unhidden)
	nprobed atomic.Int64 // workspaces in probed, about
}

// maxProbed bounds how many workspaces' probes (unhidden) a policy keeps.
const maxProbed = 1024

var (
	_ extension.Extension    = (*Policy)(nil)
	_ extension.ChainChecker = (*Policy)(nil)
)

func newPolicy(opts []Option) *Policy {
	p := &Policy{filename: "governance.yaml", env: os.LookupEnv}
	for _, o := range opts {
		if o != nil {
			o(p)
		}
	}
	return p
}

// New returns a policy without a governance file: the mode starts at
// normal (or WithMode) and only the tools' own Spec.AllowedModes are
// enforced.
func New(opts ...Option) *Policy {
	p := newPolicy(opts)
	p.install(&config{file: p.filename, mode: tool.ModeNormal, modes: slices.Clone(builtinModes), tools: map[string]*toolRule{}})
	return p
}

func (p *Policy) install(cfg *config) {
	p.cfg.Store(cfg)
	m := cfg.mode
	if p.initialMode != "" {
		if err := p.checkMode(cfg, p.initialMode); err != nil {
			p.initErr = err
		} else {
			m = strings.ToLower(p.initialMode)
		}
	}
	p.mode.Store(&m)
}

// Err reports a bad WithMode option (the policy then starts in the file's
// mode).
func (p *Policy) Err() error { return p.initErr }

func (p *Policy) checkMode(cfg *config, mode string) error {
	m := strings.ToLower(strings.TrimSpace(mode))
	if slices.Contains(cfg.modes, m) {
		return nil
	}
	hint := didYouMean(m, cfg.modes)
	if hint == "" {
		hint = ": known modes are " + strings.Join(cfg.modes, ", ")
	}
	return fmt.Errorf("policy: unknown mode %q%s", mode, hint)
}

// SetMode switches the current mode at once; calls that start afterwards
// are judged in the new mode, and the calls still in progress of tools the
// new mode refuses (forbidden_in_modes, allowed_in_modes,
// Spec.AllowedModes), or requires approval for (requires_approval_in_modes)
// when the mode they began in did not, are stopped: one waiting further in
// the chain (for a person's approval, a lock, a slot, a retry) does not
// run, and one running has its context cancelled. Such a call fails with the policy's
// refusal. An unknown mode is refused and the mode stays as it was.
func (p *Policy) SetMode(mode string) error {
	if err := p.checkMode(p.cfg.Load(), mode); err != nil {
		return err
	}
	m := strings.ToLower(strings.TrimSpace(mode))
	p.mode.Store(&m)
	p.revoke(m)
	return nil
}

// Mode returns the current mode.
func (p *Policy) Mode() string { return *p.mode.Load() }

// Modes returns the modes the policy knows: the five built-ins and those
// the file declares.
func (p *Policy) Modes() []string { return slices.Clone(p.cfg.Load().modes) }

// Name implements extension.Extension.
func (p *Policy) Name() string { return Name }

// Priority implements extension.Extension: extension.PriorityPolicy.
func (p *Policy) Priority() int { return extension.PriorityPolicy }

// mustRunInside lists the extensions that must run inside the policy, by
// name, with what goes wrong outside it and the priority they belong at.
var mustRunInside = []struct {
	name, why string
	priority  int
}{
	// extension/cache's Name.
	{"cache", "it answers calls from the results it kept before the policy judges them, so a call the current mode or a path rule refuses is served a result kept earlier", extension.PriorityCache},
	{extension.NameApproval, "it lets calls through before the policy demands approval for them (requires_approval_in_modes), so they run with nobody asked", extension.PriorityApproval},
}

// CheckChain implements extension.ChainChecker: the result cache and the
// approval extension must run inside the policy, where their priorities
// put them. Placed outside it (extension.WithPriority), the cache answers
// a call from a result kept before the policy judges the call (a tool the
// current mode forbids, lockdown, is served the result kept in normal
// mode; a path the rules forbid, the result another executor sharing the
// cache read), and the approval extension has let a call through before
// the policy demands approval for it, so nobody is asked. executor.New
// runs it.
func (p *Policy) CheckChain(exts []extension.Extension) error {
	sorted := extension.Sort(exts)
	// p itself or a re-placement of it, whose priority is the one it runs at.
	at := slices.IndexFunc(sorted, func(x extension.Extension) bool {
		q, ok := extension.As[*Policy](x)
		return ok && q == p
	})
	if at < 0 {
		return nil
	}
	var errs []error
	for _, x := range sorted[:at] {
		for _, in := range mustRunInside {
			if x.Name() == in.name {
				errs = append(errs, fmt.Errorf("policy: extension %q runs outside the policy (priority %d, the policy's %d): %s; leave both at their priorities (%d and the policy's %d), or give extension.WithPriority priorities that put it after the policy",
					x.Name(), x.Priority(), sorted[at].Priority(), in.why, in.priority, extension.PriorityPolicy))
			}
		}
	}
	return errors.Join(errs...)
}

// Warning is a rule that cannot apply, found by Check.
type Warning struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// String formats as "file:line: field: message".
func (w Warning) String() string {
	return (&LoadError{File: w.File, Line: w.Line, Field: w.Field, Msg: w.Msg}).Error()
}

// Check compares the policy with the tools of reg: a rule for a tool reg
// does not have, path_fields naming an argument the tool's input schema
// does not declare, or path globs applied to a tool whose schema declares
// no path argument (so its paths are found by name only), is a warning.
// Warnings are not errors: the rule is kept (the tool may be registered
// later). A nil registry has no tools to compare: no warnings.
func (p *Policy) Check(reg *registry.Registry) []Warning {
	if reg == nil {
		return nil
	}
	cfg := p.cfg.Load()
	var out []Warning
	globalPaths := len(cfg.global.allowedPaths)+len(cfg.global.forbiddenPaths) > 0
	for _, spec := range reg.List(registry.Filter{}) {
		tr := cfg.tools[spec.Name]
		if tr != nil && tr.pathFieldsSet || len(sandbox.PathArguments(spec.InputSchema)) > 0 {
			continue
		}
		if !globalPaths && (tr == nil || len(tr.allowedPaths)+len(tr.forbiddenPaths) == 0) {
			continue
		}
		var guessed []string
		props := schemaProperties(spec.InputSchema)
		fields, _ := pathFieldsFor(cfg, nil, &spec)
		for _, f := range fields {
			if slices.Contains(props, f) {
				guessed = append(guessed, f)
			}
		}
		if len(guessed) > 0 {
			field, line := "global", 0
			if tr != nil {
				field, line = tr.name, tr.line
			}
			out = append(out, Warning{File: cfg.file, Line: line, Field: field,
				Msg: fmt.Sprintf("tool %q declares no path argument, so the path rules take %s as paths by name only: declare them (toolbelt:\"path\", or \"%s\": true in the schema) or list them in path_fields", spec.Name, strings.Join(guessed, ", "), sandbox.PathKeyword)})
		}
	}
	for _, name := range cfg.order {
		tr := cfg.tools[name]
		e, ok := reg.Lookup(name)
		if !ok {
			msg := fmt.Sprintf("rule for tool %q, which is not registered", name)
			if s := reg.Suggest(name, 1); len(s) > 0 {
				msg += fmt.Sprintf(": did you mean %q?", s[0])
			}
			out = append(out, Warning{File: cfg.file, Line: tr.line, Field: tr.name, Msg: msg})
			continue
		}
		if tr.pathFieldsSet {
			props := schemaProperties(e.Spec.InputSchema)
			for _, f := range tr.pathFields {
				if props != nil && !slices.Contains(props, f) {
					out = append(out, Warning{File: cfg.file, Line: tr.pathFieldsLine, Field: tr.name + ".path_fields",
						Msg: fmt.Sprintf("tool %q has no argument %q%s", name, f, didYouMean(f, props))})
				}
			}
		}
	}
	return out
}

// CheckRegistry fails when the policy has rules for tools reg does not
// have (with the closest names): a typo would leave the real tool
// ungoverned. The other findings of Check are warnings and do not fail it.
// executor.New runs it; register tools before building the executor.
func (p *Policy) CheckRegistry(reg extension.ToolLister) error {
	cfg := p.cfg.Load()
	names := reg.Names()
	var errs []error
	for _, name := range cfg.order {
		if slices.Contains(names, name) {
			continue
		}
		tr := cfg.tools[name]
		msg := fmt.Sprintf("rule for tool %q, which is not registered", name)
		if s := reg.Suggest(name, 1); len(s) > 0 {
			msg += fmt.Sprintf(": did you mean %q?", s[0])
		} else {
			msg += ": register the tool before executor.New, or fix the name"
		}
		errs = append(errs, &LoadError{File: cfg.file, Line: tr.line, Field: tr.name, Msg: msg})
	}
	return errors.Join(errs...)
}

// CheckTool fails when the policy's rule for the tool names path_fields
// the tool's input schema does not have: those arguments would never be
// checked. executor.New runs it on every tool, now and when registered.
func (p *Policy) CheckTool(spec tool.Spec) error {
	cfg := p.cfg.Load()
	tr := cfg.tools[spec.Name]
	if tr == nil || !tr.pathFieldsSet {
		return nil
	}
	props := schemaProperties(spec.InputSchema)
	var errs []error
	for _, f := range tr.pathFields {
		if props != nil && !slices.Contains(props, f) {
			errs = append(errs, &LoadError{File: cfg.file, Line: tr.pathFieldsLine, Field: tr.name + ".path_fields",
				Msg: fmt.Sprintf("tool %q has no argument %q%s", spec.Name, f, didYouMean(f, props))})
		}
	}
	return errors.Join(errs...)
}

func schemaProperties(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil || s.Properties == nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Wrap implements extension.Extension.
func (p *Policy) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		// Tracked before the mode is read: a mode set from now on either
		// is the one the call is judged in, or stops the call (revoke).
		// The rules of every tool the call runs hold: its own, and those
		// of the tools it runs under other names (runsAlso).
		specs := append([]*tool.Spec{req.Spec}, runsAlso(req.Tool, req.Spec.Name)...)
		var f *flight
		var mode string
		if slices.ContainsFunc(specs, p.modeBound) {
			ctx, f = p.track(ctx, specs)
			defer p.untrack(f)
			mode = f.mode
		} else {
			mode = p.Mode()
		}
		req.Call.Mode = mode
		rule, err := p.unhidden(req.Tool)
		at := p.placeOf(req.Tool, req.Call.Args)
		for _, s := range specs {
			if err != nil {
				break
			}
			rule, err = p.evaluate(mode, s, at, req.Call.Args)
		}
		if err != nil {
			res := tool.Failure(&req.Call, err)
			res.SetMeta(MetaRule, rule)
			res.SetMeta(MetaMode, mode)
			return res
		}
		judges, required := false, false
		for _, s := range specs {
			if reason := p.approvalReason(mode, s.Name); reason != "" && !required {
				req.Set(approval.RequiredKey, reason)
				required = true
			}
			judges = judges || p.judgesArgs(s.Name)
		}
		if judges {
			// Arguments an approver gives in place of these (a Modify
			// decision) are judged by the same rules (JudgeArgs).
			req.Set(approval.JudgeKey, p)
		}
		res := next(ctx, req)
		if f != nil {
			revoked(ctx, res)
		}
		if p.degrade {
			p.degradeOn(res)
		}
		return res
	}
}

// unhidden refuses a tool whose own workspace does not hide the global
// forbidden paths (sandbox.WithHide(p.Hide)): the rules judge the paths a
// call names, and a listing or a search of "." would show and read the
// files under them.
func (p *Policy) unhidden(t tool.Tool) (string, error) {
	cfg := p.cfg.Load()
	wt, ok := tool.As[interface{ Workspace() *sandbox.Workspace }](t)
	if !ok || len(cfg.global.forbiddenPaths) == 0 {
		return "", nil
	}
	ws := wt.Workspace()
	if ws == nil {
		return "", nil
	}
	if !ws.Hides() {
		return p.denial(cfg, "global.forbidden_paths", 0, "the workspace of this tool (%s) was opened without sandbox.WithHide, so its listings and searches would show the forbidden paths: open it with sandbox.OpenWorkspace(dir, sandbox.WithHide(policy.Hide)) using this policy", ws.Dir())
	}
	// A hide function is there; whether it hides this policy's paths (and
	// not only the application's own, or another policy's) the workspace
	// answers for a path each pattern names. Asked once per workspace and
	// configuration.
	if v, ok := p.probed.Load(ws); ok && v.(probe).cfg == cfg {
		if pr := v.(probe).unhidden; pr != nil {
			return p.unhiddenDenial(cfg, ws, pr)
		}
		return "", nil
	}
	var miss *pathRule
	for i, pr := range cfg.global.forbiddenPaths {
		w := pr.glob.witnessIn(filepath.ToSlash(ws.Dir()))
		if w == "" {
			continue // none found (outside the workspace): Hides is all that is known
		}
		if _, err := ws.Rel(w); !errors.Is(err, sandbox.ErrHidden) && !errors.Is(err, sandbox.ErrDeniedByRule) {
			miss = &cfg.global.forbiddenPaths[i]
			break
		}
	}
	// Workspaces opened per session or tenant come and go: the memory is
	// bounded by forgetting them all now and then.
	if _, known := p.probed.Swap(ws, probe{cfg: cfg, unhidden: miss}); !known && p.nprobed.Add(1) > maxProbed {
		p.probed.Clear()
		p.nprobed.Store(0)
	}
	if miss != nil {
		return p.unhiddenDenial(cfg, ws, miss)
	}
	return "", nil
}

// probe is what unhidden found of a workspace under one configuration.
type probe struct {
	cfg      *config
	unhidden *pathRule // the first global pattern the workspace does not hide
}

func (p *Policy) unhiddenDenial(cfg *config, ws *sandbox.Workspace, pr *pathRule) (string, error) {
	return p.denial(cfg, pr.rule, pr.line, "the workspace of this tool (%s) does not hide forbidden pattern %q (its sandbox.WithHide function is not this policy's Hide), so its listings and searches would show the forbidden paths: open it with sandbox.OpenWorkspace(dir, sandbox.WithHide(policy.Hide)) using this policy", ws.Dir(), pr.source)
}

// judgesArgs reports whether the rules for the tool look at its arguments
// (sizes or paths), not only at the mode.
func (p *Policy) judgesArgs(name string) bool {
	cfg := p.cfg.Load()
	for _, r := range []*toolRule{cfg.tools[name], &cfg.global} {
		if r != nil && (r.maxArgBytes > 0 || len(r.fieldMax) > 0 || len(r.allowedPaths)+len(r.forbiddenPaths) > 0) {
			return true
		}
	}
	return false
}

// JudgeArgs implements approval.ArgsJudge, which Wrap leaves for the
// approval extension under approval.JudgeKey: it judges call.Args for the
// tool t as Wrap judged the model's arguments, in call.Mode (the mode Wrap
// wrote into the call; the current mode when it is empty), so a
// modification an approver makes is held to the same rules. It returns
// the refusal Wrap would have given, or nil.
func (p *Policy) JudgeArgs(call tool.Call, t tool.Tool, spec *tool.Spec) error {
	if spec == nil {
		return tool.NewError(tool.CodePolicyDenied, "policy: the call carries no tool spec, so its arguments cannot be judged")
	}
	mode := call.Mode
	if mode == "" {
		mode = p.Mode()
	}
	at := p.placeOf(t, call.Args)
	for _, s := range append([]*tool.Spec{spec}, runsAlso(t, spec.Name)...) {
		if _, err := p.evaluate(mode, s, at, call.Args); err != nil {
			return err
		}
	}
	return nil
}

// runsAlso returns the specs of the tools t runs under names other than
// name: those it exposes with Unwrap() tool.Tool (a tool file's go tool
// over a Loader.Funcs entry, a tool registered again under another name),
// up to 16 deep. Their rules in the file hold for its calls too, so that
// write_file's forbidden_in_modes is not stepped round by calling it as
// "save".
func runsAlso(t tool.Tool, name string) []*tool.Spec {
	var out []*tool.Spec
	for _, u := range tool.Unwrapped(t) {
		s := u.Spec()
		if s.Name != name && !slices.ContainsFunc(out, func(o *tool.Spec) bool { return o.Name == s.Name }) {
			out = append(out, &s)
		}
	}
	return out
}

func (p *Policy) approvalReason(mode, name string) string {
	tr := p.cfg.Load().tools[name]
	if tr == nil || !tr.approval.has(mode) {
		return ""
	}
	return fmt.Sprintf("policy rule %s.requires_approval_in_modes: mode %s requires approval", tr.name, mode)
}

// denial builds the refusal for rule at line.
func (p *Policy) denial(cfg *config, rule string, line int, format string, args ...any) (string, error) {
	where := ""
	if line > 0 {
		where = fmt.Sprintf(" (%s:%d)", cfg.file, line)
	}
	return rule, tool.Errorf(tool.CodePolicyDenied, "policy rule %s%s: %s", rule, where, fmt.Sprintf(format, args...))
}

// Allows reports whether the rules let the tool spec describes run in the
// current mode, whatever its arguments: its forbidden_in_modes,
// allowed_in_modes and Spec.AllowedModes. A tool the mode requires approval
// for is allowed (it is asked). It is what registry.Filter.Keep and
// agent.Options.Offer take, to show the model only the tools it may call
// now; a call of a tool it hides is still judged, and refused, by Wrap.
func (p *Policy) Allows(spec *tool.Spec) bool {
	cfg := p.cfg.Load()
	_, err := p.modeDenial(cfg, cfg.tools[spec.Name], p.Mode(), spec)
	return err == nil
}

// Evaluate judges a call to the tool described by spec, with args, in mode.
// It returns the broken rule's name and a *tool.Error with
// CodePolicyDenied, or "" and nil. It does not consider approval (see
// ApprovalRequired).
//
// Path arguments are resolved in the workspace of WithWorkspace, if given;
// the extension itself (Wrap) also resolves in the called tool's own
// workspace.
func (p *Policy) Evaluate(mode string, spec *tool.Spec, args json.RawMessage) (rule string, err error) {
	return p.evaluate(mode, spec, place{ws: p.ws}, args)
}

func (p *Policy) evaluate(mode string, spec *tool.Spec, at place, args json.RawMessage) (rule string, err error) {
	// The directory entries its path arguments read as globs may look at,
	// all of them together (checkGlob), and the paths it names, for
	// checkBases (not for the built-in file tools, which take each path
	// from their workspace): one allocation for both.
	state := &struct {
		globLeft int
		named    []namedPath
		first    [2]namedPath
		wd       workdir
	}{globLeft: maxGlobEntries}
	at.globLeft = &state.globLeft
	at.wd = &state.wd
	if !at.own {
		state.named = state.first[:0]
		at.named = &state.named
	}
	cfg := p.cfg.Load()
	tr := cfg.tools[spec.Name]
	if rule, err := p.modeDenial(cfg, tr, mode, spec); err != nil {
		return rule, err
	}
	g := &cfg.global
	if limit, r, line := pick(tr, g, func(t *toolRule) int64 { return t.maxArgBytes }); limit > 0 && argsSize(args) > limit {
		return p.denial(cfg, r+".max_arg_bytes", line, "arguments are %d bytes, over the %d-byte limit: send less data", argsSize(args), limit)
	}
	fields, declared := pathFieldsFor(cfg, tr, spec)
	hasPaths := len(g.allowedPaths)+len(g.forbiddenPaths) > 0 || (tr != nil && len(tr.allowedPaths)+len(tr.forbiddenPaths) > 0)
	hasSizes := len(g.fieldMax) > 0 || (tr != nil && len(tr.fieldMax) > 0)
	if !hasPaths && !hasSizes {
		return "", nil
	}
	var buf [16]jsonargs.Member
	obj, ok := jsonargs.Members(args, buf[:0])
	if !ok && !noArgs(args) {
		return "", nil // the executor validated the arguments; a non-object has no fields to judge
	}
	if hasSizes {
		for _, r := range []*toolRule{tr, g} {
			if r == nil {
				continue
			}
			for _, f := range r.fieldOrder {
				// Every member a decoder may take for f (jsonargs.SameKey).
				for i := range obj {
					if !jsonargs.SameKey(obj[i].Key, f) {
						continue
					}
					if n := valueSize(obj[i].Val); n > r.fieldMax[f] {
						return p.denial(cfg, r.fieldRule[f], 0, "argument %q is %d bytes, over the %d-byte limit", obj[i].Key, n, r.fieldMax[f])
					}
				}
			}
		}
	}
	if hasPaths {
		for _, f := range fields {
			// Every occurrence of a duplicated key is judged, whichever one
			// the backend's decoder keeps, and every key it may take for
			// f (jsonargs.SameKey: "Path" for "path").
			found := false
			for i := range obj {
				if !jsonargs.SameKey(obj[i].Key, f) {
					continue
				}
				found = true
				if rule, err := p.checkPaths(cfg, tr, at, obj[i].Key, obj[i].Val); err != nil {
					return rule, err
				}
			}
			// A declared path argument left out leaves the place to the
			// tool: for a tool with a workspace, its root (list_directory
			// and search_files default to "."). It is judged as that, so
			// leaving it out cannot list or search what the rules forbid.
			if !found && declared && at.ws != nil {
				if rule, err := p.checkPath(cfg, tr, at, f, "."); err != nil {
					return rule, err
				}
			}
		}
		// Paths the schema declares inside objects and lists
		// (options.backup, files[].name), each value given judged. A
		// schema whose paths cannot all be read leaves some unjudged: the
		// call is refused.
		nested, cut := schema.NestedPaths(spec.InputSchema)
		if cut {
			return p.denial(cfg, "paths.schema", 0, "tool %q declares path arguments (%s) that cannot all be read: deeper than %d levels, more than %d of them, or behind $refs that loop, so its paths cannot be judged: declare them nearer the root of its input schema", spec.Name, sandbox.PathKeyword, schema.MaxNestedDepth, schema.MaxNestedPaths)
		}
		for _, np := range nested {
			for _, v := range jsonargs.Below(args, np.Segs, nil) {
				if rule, err := p.checkPaths(cfg, tr, at, np.Name, v); err != nil {
					return rule, err
				}
			}
		}
		// A file: URL in any argument names a local file, which a tool
		// that opens URLs reads: its path is judged. A file's content is
		// text to write, not a place (a note that begins "file:///").
		content := "content"
		if tr != nil && tr.contentField != "" {
			content = tr.contentField
		}
		for i := range obj {
			if jsonargs.SameKey(obj[i].Key, content) || jsonargs.SameKey(obj[i].Key, "content") {
				continue
			}
			for _, fp := range fileURLPaths(obj[i].Val) {
				if rule, err := p.checkPath(cfg, tr, at, obj[i].Key, fp); err != nil {
					return rule, err
				}
			}
		}
		if at.named != nil {
			return p.checkBases(cfg, tr, at, *at.named)
		}
	}
	return "", nil
}

// maxBasePairs bounds how many paths checkBases judges for one call (a
// relative path under a directory, each); a call that names more is
// refused.
const maxBasePairs = 1024

// checkBases judges each relative path a call names also under each other
// path it names that is a directory on the host: a program that changes
// directory to one argument (tar -C DIR, git -C DIR, make -C DIR, a
// script's cd "$1") takes the relative paths after it from there, where
// "tmp/p/secrets/key" under "/" is /tmp/p/secrets/key. It looks at the
// host only for a call that names two paths or more.
func (p *Policy) checkBases(cfg *config, tr *toolRule, at place, named []namedPath) (string, error) {
	if len(named) < 2 {
		return "", nil
	}
	var dirs []string
	for _, n := range named {
		if !p.hostDir(at, n.path) || slices.Contains(dirs, n.path) {
			continue
		}
		if dirs = append(dirs, n.path); len(dirs)*len(named) > maxBasePairs {
			return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: the call names %d paths, %d of them directories or more, and a program that changes to one directory takes the others' relative paths from there: more than the %d places judged; pass fewer paths in one call", len(named), len(dirs), maxBasePairs)
		}
	}
	at.named, at.valued, at.reading = nil, true, true // the joined paths are judged as written, by forbidden patterns
	for _, d := range dirs {
		for _, n := range named {
			if n.path == d || p.absolute(at, n.path) {
				continue
			}
			if rule, err := p.checkPath(cfg, tr, at, n.field, strings.TrimSuffix(d, "/")+"/"+n.path); err != nil {
				var te *tool.Error
				if errors.As(err, &te) {
					te.Message += fmt.Sprintf(" (path %q taken from directory %q, another path of the call, as tar -C, git -C and make -C take it: pass paths that reach nothing forbidden from there)", n.path, d)
				}
				return rule, err
			}
		}
	}
	return "", nil
}

// hostDir reports whether the path s a call names is a directory on the
// host (through symbolic links), taken as checkPath takes it: from the
// tool's directory, the workspace or the base directory, ~ and $VAR
// expanded when there is no workspace.
func (p *Policy) hostDir(at place, s string) bool {
	if at.ws == nil {
		if e, ok := hostpath.Expand(s); ok {
			s = e
		}
	}
	if !filepath.IsAbs(s) {
		switch {
		case at.dir != "":
			s = filepath.Join(at.dir, s)
		case at.ws != nil:
			s = filepath.Join(at.ws.Dir(), s)
		case p.baseDir != "":
			s = filepath.Join(p.baseDir, s)
		}
	}
	return hostpath.IsDir(s)
}

// absolute reports whether the path s a call names is absolute, ~ and
// $VAR expanded when there is no workspace: it is not taken from a
// directory.
func (p *Policy) absolute(at place, s string) bool {
	if at.ws == nil {
		if e, ok := hostpath.Expand(s); ok {
			s = e
		}
	}
	return filepath.IsAbs(s)
}

// modeDenial judges the rules on the mode alone (the first three of the
// package doc's order) for the tool spec describes, whose rule is tr.
func (p *Policy) modeDenial(cfg *config, tr *toolRule, mode string, spec *tool.Spec) (string, error) {
	if tr != nil {
		if tr.forbidden.has(mode) {
			return p.denial(cfg, tr.name+".forbidden_in_modes", tr.forbiddenLine, "tool %q is forbidden in mode %s", spec.Name, mode)
		}
		if len(tr.allowed) > 0 && !tr.allowed.has(mode) && !tr.approval.has(mode) {
			ok := slices.Concat(tr.allowed, tr.approval)
			return p.denial(cfg, tr.name+".allowed_in_modes", tr.allowedLine, "tool %q may run only in modes %s; the current mode is %s", spec.Name, strings.Join(ok, ", "), mode)
		}
	}
	if len(spec.AllowedModes) > 0 && !slices.ContainsFunc(spec.AllowedModes, func(m string) bool { return strings.EqualFold(m, mode) }) {
		return p.denial(cfg, "spec.allowed_modes", 0, "tool %q declares it may run only in modes %s; the current mode is %s", spec.Name, strings.Join(spec.AllowedModes, ", "), mode)
	}
	return "", nil
}

// workspaceOf returns the workspace t's path arguments are resolved in:
// its own (a Workspace method), else WithWorkspace's, else nil.
// A wrapper (a tool file's go tool naming a built-in file tool, with an
// Unwrap() tool.Tool method) has the workspace of the tool it wraps.
func (p *Policy) workspaceOf(t tool.Tool) *sandbox.Workspace {
	if wt, ok := tool.As[interface{ Workspace() *sandbox.Workspace }](t); ok && wt.Workspace() != nil {
		return wt.Workspace()
	}
	return p.ws
}

// Workdirer is implemented by a tool whose calls run in a directory of
// their own (an argv shell tool's fixed working directory): Workdir
// returns that directory for a call with args, absolute on the host (""
// for none), from which the call takes its relative path arguments. The
// policy judges a relative path argument of such a tool there, not in the
// base directory or the process's working directory; every path argument
// is taken from it, so a tool whose arguments name the directory itself
// (a bash call's workdir, relative to its workspace) should not implement
// it. It is asked through wrappers (an Unwrap() tool.Tool method), as
// Workspace is.
type Workdirer interface {
	Workdir(args json.RawMessage) string
}

// place is where a call's path arguments are judged: in ws (nil for none),
// a relative one from dir (when the tool names one, Workdirer).
type place struct {
	ws  *sandbox.Workspace
	dir string
	// below is set when the path is a directory the tool reads below (the
	// directory in front of a glob's "**"): it is refused when paths
	// under it may match a forbidden pattern.
	below bool
	// own is set when ws is the tool's own workspace (a Workspace
	// method), whose file operations take a path as written; a tool
	// resolved in WithWorkspace's may expand it as a glob (checkGlob).
	own bool
	// globLeft is how many more directory entries the call's path
	// arguments read as globs may look at (globBounded).
	globLeft *int
	// braced is set when the path is one {a,b} alternative of an
	// argument: its braces are not expanded again (checkGlob).
	braced bool
	// valued is set when the path is the value of an option or a
	// response file that an argument names (optionValue): it is not
	// read as one again.
	valued bool
	// named gathers the paths a call names (checkPath), each of which a
	// program may take the others' relative paths from (checkBases);
	// nil where they are not gathered.
	named *[]namedPath
	// wd is the process's working directory, asked of the kernel once a
	// call (getwd); nil where it is not kept.
	wd *workdir
	// reading is set when the path is another reading of the argument
	// than the path written: a blank-separated word, an option's value, a
	// name with its NTFS stream cut off, a path taken under another
	// path's directory. Forbidden patterns judge it; allowed ones judge
	// the path as written, so "docs/My Report.pdf" stays under "docs/**"
	// though its word "Report.pdf" is not.
	reading bool
}

// workdir is the process's working directory as getcwd gave it, and the
// name the process knows it by, once.
type workdir struct {
	name    string
	logical string
	err     error
	asked   bool
}

// getwd returns the kernel's name for the process's working directory
// (getcwd, which has no symlink in it) and, when that is absolute, the
// name the process knows it by (logicalWd of it, cleaned), asked once a
// call: a call's path arguments, and the words and option values in
// them, are judged from one place, and $PWD is looked at once, not for
// each of them.
func (at place) getwd() (wd, logical string, err error) {
	if at.wd == nil {
		return workdirNow()
	}
	if !at.wd.asked {
		at.wd.name, at.wd.logical, at.wd.err = workdirNow()
		at.wd.asked = true
	}
	return at.wd.name, at.wd.logical, at.wd.err
}

// workdirNow is getwd's answer, asked of the kernel now.
func workdirNow() (wd, logical string, err error) {
	wd, err = syscall.Getwd()
	if err == nil && path.IsAbs(filepath.ToSlash(wd)) {
		logical = logicalWd(path.Clean(filepath.ToSlash(wd)))
	}
	return wd, logical, err
}

// namedPath is a path a call names in its argument field.
type namedPath struct{ field, path string }

// placeOf returns where the path arguments of a call to t with args are
// judged (workspaceOf, Workdirer).
func (p *Policy) placeOf(t tool.Tool, args json.RawMessage) place {
	at := place{ws: p.workspaceOf(t)}
	if wt, ok := tool.As[interface{ Workspace() *sandbox.Workspace }](t); ok && wt.Workspace() != nil {
		at.own = true
	}
	if wd, ok := tool.As[Workdirer](t); ok {
		at.dir = wd.Workdir(args)
	}
	return at
}

// Hide reports the global forbidden_paths rule that forbids a workspace
// path, or "": the function sandbox.WithHide takes, so that tools that list
// and search leave forbidden files out. rel is the canonical
// workspace-relative path, matched by relative globs; abs the same path on
// the host, matched by absolute ones. It reads the current rules at each
// call.
func (p *Policy) Hide(rel, abs string) string {
	cfg := p.cfg.Load()
	if len(cfg.global.forbiddenPaths) == 0 {
		return ""
	}
	absName := filepath.ToSlash(abs)
	// Folded too, as a file system that compares names loosely opens
	// them: a workspace there serves .SSH/id as .ssh/id.
	frel, fabs := namefold.Name(rel), namefold.Name(absName)
	for _, pr := range cfg.global.forbiddenPaths {
		name, fname := rel, frel
		if pr.glob.abs() {
			name, fname = absName, fabs
		}
		if pr.glob.forbids(name, fname) {
			where := ""
			if pr.line > 0 {
				where = fmt.Sprintf(" (%s:%d)", cfg.file, pr.line)
			}
			return fmt.Sprintf("policy rule %s%s: forbidden pattern %q", pr.rule, where, pr.source)
		}
	}
	return ""
}

// ApprovalRequired reports the reason the policy records under
// approval.RequiredKey for a call to name in mode, or "".
func (p *Policy) ApprovalRequired(mode, name string) string {
	return p.approvalReason(strings.ToLower(mode), name)
}

func pick(tr, g *toolRule, get func(*toolRule) int64) (int64, string, int) {
	if tr != nil && get(tr) > 0 {
		return get(tr), tr.name, tr.maxArgLine
	}
	return get(g), g.name, g.maxArgLine
}

// pathFieldsFor returns the arguments of a call that are paths: those the
// spec declares together with the tool rule's path_fields, else the global
// path_fields, else DefaultPathFields. declared is true for the first two,
// which name arguments the tool has rather than guess at them.
func pathFieldsFor(cfg *config, tr *toolRule, spec *tool.Spec) (fields []string, declared bool) {
	schema := sandbox.PathArguments(spec.InputSchema)
	if tr != nil && tr.pathFieldsSet {
		// path_fields adds to what the schema declares: it cannot take a
		// path argument away from the rules.
		if len(schema) == 0 {
			return tr.pathFields, true
		}
		fields = slices.Clone(schema)
		for _, f := range tr.pathFields {
			if !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
		return fields, true
	}
	if len(schema) > 0 {
		return schema, true
	}
	if cfg.pathFields != nil {
		return cfg.pathFields, false
	}
	return DefaultPathFields, false
}

func sortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// argsSize is the size of args as max_arg_bytes counts it: the bytes sent,
// where a byte of invalid UTF-8 counts as the three bytes of the U+FFFD a
// JSON decoder hands the tool for it (escapes only shrink in decoding).
func argsSize(args json.RawMessage) int64 {
	n := int64(len(args))
	if utf8.Valid(args) {
		return n
	}
	for i := 0; i < len(args); {
		r, w := utf8.DecodeRune(args[i:])
		if r == utf8.RuneError && w == 1 {
			n += 2
		}
		i += w
	}
	return n
}

// valueSize is the size of an argument as max_field_bytes counts it: a
// string's decoded bytes, another value's JSON (argsSize).
func valueSize(v json.RawMessage) int64 {
	if decodesToItself(v) {
		// What json.Unmarshal would return is the bytes between the quotes:
		// count them without decoding a copy (a file's content may be MiBs).
		return int64(len(v) - 2)
	}
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return int64(len(s))
	}
	// Another value's JSON, as argsSize counts it: a byte of invalid
	// UTF-8 in its strings is the U+FFFD the tool reads.
	return argsSize(v)
}

// checkPaths checks a path argument: a string, or every string of an array,
// whatever else the array holds (anything else holds no path).
func (p *Policy) checkPaths(cfg *config, tr *toolRule, at place, field string, v []byte) (string, error) {
	if s, ok := plainString(v); ok {
		return p.checkPath(cfg, tr, at, field, s)
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return p.checkPath(cfg, tr, at, field, s)
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil {
		for _, s := range ss {
			if rule, err := p.checkPath(cfg, tr, at, field, s); err != nil {
				return rule, err
			}
		}
		return "", nil
	}
	// A list that holds other values too: its strings are still paths
	// (["/etc/passwd", 1] names /etc/passwd).
	var items []json.RawMessage
	if json.Unmarshal(v, &items) == nil {
		for _, it := range items {
			var item string // null is "", as in a list of strings
			if json.Unmarshal(it, &item) != nil {
				continue
			}
			if rule, err := p.checkPath(cfg, tr, at, field, item); err != nil {
				return rule, err
			}
		}
	}
	return "", nil
}

// pathName is a path argument as the globs match it: rel for relative
// globs, abs for absolute ones; outside when it lies outside the base
// directory, where it has no rel; host when it is where the host's
// symlinks lead the path (a form of it beside the one written). frel and
// fabs are rel and abs folded (namefold.Name), which forbidden patterns
// match too.
type pathName struct {
	rel, abs      string
	frel, fabs    string
	outside, host bool
}

// below sets *rel to name's part below the directory base ("." for base
// itself) and reports whether name lies outside base. Without a base (""
// or "."), *rel is name.
func below(base, name string, rel *string) (outside bool) {
	*rel = name
	switch {
	case base == "" || base == ".":
		return false
	case name == base:
		*rel = "."
		return false
	}
	if r, ok := strings.CutPrefix(name, strings.TrimSuffix(base, "/")+"/"); ok {
		*rel = r
		return false
	}
	return true
}

// under is path.Join(dir, name) for a clean absolute dir and a clean
// relative name that does not climb out of it (neither ".." nor
// "../..."): their join is clean already, so it is not cleaned again
// (one allocation, where path.Join makes two).
func under(dir, name string) string {
	switch {
	case name == ".":
		return dir
	case dir == "/":
		return "/" + name
	}
	return dir + "/" + name
}

// checkPath judges the path argument raw of field. Without a workspace,
// where the tool may be one that expands a leading ~ or environment
// variables in a path (the MCP filesystem server expands "~/", a Go tool
// os.ExpandEnv), the expanded form is judged too (hostpath.Expand); with
// blanks around it, the trimmed form too.
func (p *Policy) checkPath(cfg *config, tr *toolRule, at place, field, raw string) (string, error) {
	if at.named != nil && !at.braced && raw != "" && !strings.ContainsAny(raw, shellBlanks) && raw[0] != '-' && raw[0] != '@' {
		// A whole path: its words and an option's value come here too.
		*at.named = append(*at.named, namedPath{field, raw})
	}
	// A tool that trims its argument (strings.TrimSpace, strip, trim)
	// opens "/etc/shadow\n" as /etc/shadow: the trimmed form is judged
	// too. JavaScript's trim drops a byte order mark as well.
	if t := strings.TrimFunc(raw, isBlank); t != raw && t != "" {
		if rule, err := p.checkPath(cfg, tr, at, field, t); err != nil {
			return rule, err
		}
	} else if !at.own && strings.ContainsAny(raw, shellBlanks) {
		// A script that takes the argument unquoted (cat $1) has the
		// shell split it: "notes/a secrets/key" is two files to it. Each
		// word is judged as a path argument too (the trimmed form, just
		// above, is split in its turn); the built-in file tools take the
		// path as written.
		words := strings.FieldsFunc(raw, func(r rune) bool { return strings.ContainsRune(shellBlanks, r) })
		if len(words) > maxPathWords {
			return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: path %q has more than %d blank-separated words, each of which a shell that splits it reads as a path, and is not judged: pass fewer paths in one argument", field, raw, maxPathWords)
		}
		word := at
		word.reading = true
		for i := 0; i < len(words) && len(words) > 1; i++ {
			if rule, err := p.checkPath(cfg, tr, word, field, words[i]); err != nil {
				return rule, err
			}
		}
	}
	// A program that takes the argument among its own reads a file from
	// an option's value ("--from-file=secrets/key", "-fsecrets/key") or
	// a response file ("@.env"): the value is judged as a path argument
	// too, once. The built-in file tools take the path as written.
	if v, ok := optionValue(raw); ok && !at.valued && !at.own {
		opt := at
		opt.valued, opt.reading = true, true
		if rule, err := p.checkPath(cfg, tr, opt, field, v); err != nil {
			return rule, err
		}
	}
	if at.ws == nil {
		if e, ok := hostpath.Expand(raw); ok {
			if rule, err := p.checkWritten(cfg, tr, at, field, e); err != nil {
				return rule, err
			}
			if rule, err := p.checkGlob(cfg, tr, at, field, e); err != nil {
				return rule, err
			}
		}
	}
	if rule, err := p.checkWritten(cfg, tr, at, field, raw); err != nil || at.own {
		return rule, err
	}
	return p.checkGlob(cfg, tr, at, field, raw)
}

// shellBlanks are the characters a shell splits an unquoted word at (the
// default IFS), and maxPathWords how many words of one path argument are
// judged each; an argument of more is refused.
const (
	shellBlanks  = " \t\n"
	maxPathWords = 64
)

// optionValue returns the path a program reads from the argument s when
// s is an option with a value, an operand with one or a response file:
// what follows the first "=" of "--file=x", "-f=x" or "if=x" (dd; the
// name before it has no "/"), what follows the letter of "-fx", what
// follows "@" in "@x" (gcc, javac, clang). false for anything else, or
// an empty value.
func optionValue(s string) (string, bool) {
	var v string
	eq := strings.IndexByte(s, '=')
	switch {
	case len(s) < 2:
		return "", false
	case s[0] == '@':
		v = s[1:]
	case eq > 0 && strings.IndexByte(s[:eq], '/') < 0:
		// "--file=x", and an operand "if=x" (dd) or "FILE=x" (make).
		v = s[eq+1:]
	case s[0] == '-' && s[1] != '-':
		v = s[2:]
	}
	return v, v != ""
}

// maxGlobMatches bounds how many host paths a path argument read as a
// glob may stand for at one level of its directories (globBounded); an
// argument that stands for more is refused.
const maxGlobMatches = 1024

// checkGlob judges, when the path argument raw of field holds a wildcard
// (*, ? or [), each host path it matches as a glob, as a tool that
// expands it (filepath.Glob, Python's glob.glob) reads them: a relative
// one from the tool's directory (Workdirer), WithWorkspace's directory or
// the base directory. The built-in file tools, whose workspace (their
// own) takes a path as written, are not judged so. A segment with "**"
// spans directories to a tool that reads it so (doublestar, Python's
// recursive glob, bash's globstar): the directory in front of the first
// wildcard is judged as one the tool reads below (place.below), and each
// path it matches, as doublestar reads it, through links to directories
// (globBelow), is judged too. {a,b} alternatives are judged each.
func (p *Policy) checkGlob(cfg *config, tr *toolRule, at place, field, raw string) (string, error) {
	if op, ok := extglobGroup(raw); ok {
		// bash with extglob, ksh and zsh match "@(secrets)/key" as
		// secrets/key, which filepath.Glob reads as a literal name: it is
		// refused rather than judged by a second glob dialect.
		return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: path %q holds the extended glob group %q, which a shell with extglob (bash -O extglob, ksh, zsh) expands to paths this policy does not judge: pass the paths themselves, or a glob of *, ?, [...] and {a,b}", field, raw, op)
	}
	if !at.braced && strings.Contains(raw, "{") && strings.Contains(raw, ",") {
		// {a,b} alternatives, as bash, doublestar and minimatch expand
		// them: each is judged as a path argument, as written, with its
		// ~ or $VAR expanded (bash expands braces first: "{~,x}/.aws" is
		// ~/.aws) and as a glob; braces in what that gives are not
		// expanded again, as bash does not (place.braced). Each expansion
		// copies the path, so a long one or one of many groups is
		// refused first.
		alts, ok := []string(nil), false
		if len(raw) <= maxBracePathBytes && strings.Count(raw, "{") <= maxBraceAlternatives {
			alts, ok = braceAlternatives(raw, maxBraceAlternatives)
		}
		if !ok {
			return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: path %q, read as a glob, has more {a,b} alternatives than are judged (%d paths, %d bytes at most): pass fewer alternatives, or the paths themselves", field, raw, maxBraceAlternatives, maxBracePathBytes)
		}
		if len(alts) > 1 {
			alt := at
			alt.braced = true
			for _, a := range alts {
				if rule, err := p.checkPath(cfg, tr, alt, field, a); err != nil {
					return rule, err
				}
			}
		}
	}
	if !strings.ContainsAny(raw, "*?[") {
		return "", nil
	}
	if dir, ok := recursiveGlobDir(raw); ok {
		below := at
		below.below = true
		if rule, err := p.checkWritten(cfg, tr, below, field, dir); err != nil {
			return rule, err
		}
	}
	pattern := raw
	if !filepath.IsAbs(pattern) {
		// Joined, not cleaned: the glob lists the directories the tool's
		// glob lists ("notes/.." after a link is the link target's parent).
		switch {
		case at.dir != "":
			pattern = at.dir + string(filepath.Separator) + pattern
		case at.ws != nil:
			pattern = at.ws.Dir() + string(filepath.Separator) + pattern
		case p.baseDir != "":
			pattern = p.baseDir + string(filepath.Separator) + pattern
		}
	}
	matches, ok := globBounded(pattern, at.globLeft) // set by evaluate
	if !ok {
		return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: path %q, read as a glob, names more than is judged (%d paths a level, %d directory entries for all of a call's arguments): pass a narrower pattern, or the paths themselves", field, raw, maxGlobMatches, maxGlobEntries)
	}
	for _, m := range matches {
		if rule, err := p.checkWritten(cfg, tr, at, field, m); err != nil {
			// The match is not named: it may be a file whose name the
			// rules hide ("~/.ssh/id_*").
			code := tool.CodePolicyDenied
			var te *tool.Error
			if errors.As(err, &te) {
				code = te.Code
			}
			return rule, tool.Errorf(code, "policy rule %s: argument %q: path %q, read as a glob, matches a path this rule refuses: pass the paths meant, outside what it names", rule, field, raw)
		}
	}
	return "", nil
}

// maxBraceAlternatives bounds how many paths the {a,b} alternatives of
// one path argument are expanded to, and maxBracePathBytes how long such
// an argument may be (a path the kernel opens is at most 4096 bytes); an
// argument with more is refused.
const (
	maxBraceAlternatives = 64
	maxBracePathBytes    = 4096
)

// braceAlternatives returns the strings the {a,b} alternatives of s stand
// for, nested groups too ("{x,{y,z}}/k" is x/k, y/k and z/k), or s alone
// when it has none; false when they stand for more than limit. A "\"
// escapes the next byte, and a brace without a comma at its level is
// literal, as bash reads them.
func braceAlternatives(s string, limit int) ([]string, bool) {
	open, commas, end := -1, []int(nil), -1
	for i, depth := 0, 0; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open, commas = i, nil
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
			if depth--; depth == 0 {
				if len(commas) > 0 {
					end = i
				} else {
					open = -1 // "{x}" is literal: look for the next group
				}
			}
		}
	}
	if end < 0 {
		return []string{s}, true
	}
	if limit < 2 {
		return nil, false // a group stands for two paths at least
	}
	head, tail := s[:open], s[end+1:]
	var out []string
	start := open + 1
	for _, c := range append(commas, end) {
		alts, ok := braceAlternatives(head+s[start:c]+tail, limit-len(out))
		if !ok || len(out)+len(alts) > limit {
			return nil, false
		}
		out = append(out, alts...)
		start = c + 1
	}
	return out, true
}

// recursiveGlobDir returns the directory in front of the first segment of
// the glob g that holds a wildcard ("." or "/" when that is the first),
// when some segment holds "**".
func recursiveGlobDir(g string) (string, bool) {
	segs := strings.Split(g, "/")
	if !slices.ContainsFunc(segs, func(s string) bool { return strings.Contains(s, "**") }) {
		return "", false
	}
	i := slices.IndexFunc(segs, func(s string) bool { return strings.ContainsAny(s, "*?[") })
	switch dir := strings.Join(segs[:i], "/"); {
	case dir != "":
		return dir, true
	case strings.HasPrefix(g, "/"):
		return "/", true
	}
	return ".", true
}

// isBlank reports whether a tool that trims its argument drops r from its
// ends: Unicode white space, and the byte order mark JavaScript's trim
// drops too.
func isBlank(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// checkWritten judges the path argument raw of field as it is written: a
// backslash in it read as a separator, as a Windows tool reads it, and,
// off Windows, also as the character of a name it is there, where
// "secrets/x\..\..\notes.txt" is a file inside secrets, not notes.txt.
func (p *Policy) checkWritten(cfg *config, tr *toolRule, at place, field, raw string) (string, error) {
	rule, err := p.checkSpelt(cfg, tr, at, field, raw, true)
	if err == nil && runtime.GOOS != "windows" && strings.Contains(raw, `\`) {
		rule, err = p.checkSpelt(cfg, tr, at, field, raw, false)
	}
	if err == nil && strings.IndexByte(raw, ':') >= 0 {
		// NTFS opens ".env::$DATA" as .env and "secrets:$I30:$INDEX_ALLOCATION/key"
		// as secrets/key: a name's stream is cut off, and the file it is
		// stored with judged.
		if s := withoutStreams(raw); s != raw {
			stream := at
			stream.reading = true
			if rule, err = p.checkWritten(cfg, tr, stream, field, s); err != nil {
				var te *tool.Error
				if errors.As(err, &te) {
					// The refusal of s, said of the path as written too.
					te.Message += fmt.Sprintf(" (path %q is %q on NTFS, where \":\" names a stream of a file)", raw, s)
				}
				return rule, err
			}
		}
	}
	return rule, err
}

// withoutStreams returns the path s with the stream of each name cut off,
// as NTFS reads a name ("name:stream:type" is stored with name); a
// drive's colon ("C:") is kept.
func withoutStreams(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i != 1 || !isDriveLetter(s[0])) {
			for i+1 < len(s) && s[i+1] != '/' && s[i+1] != '\\' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// checkSpelt judges the path argument raw of field, a backslash in it read
// as a separator when backslash is true, else as a character of a name.
func (p *Policy) checkSpelt(cfg *config, tr *toolRule, at place, field, raw string, backslash bool) (string, error) {
	slashed := func(s string) string {
		if backslash {
			return strings.ReplaceAll(s, "\\", "/")
		}
		return s
	}
	ws := at.ws
	var relName, absName string
	outside := false     // below the base directory there is no relName
	resolved := raw      // what a denial shows beside raw when they differ
	var hosts []pathName // where the host's symlinks lead, when not the same
	// A relative path of a tool that runs in a directory of its own
	// (Workdirer) is taken from there: "key" run in secrets is
	// secrets/key, "../secrets/key" run in sub is secrets/key too.
	written := raw
	if n := slashed(raw); at.dir != "" && !path.IsAbs(n) {
		written = path.Clean(strings.ReplaceAll(at.dir, "\\", "/")) + "/" + n // uncleaned: ".." after a link is the link target's parent
		resolved = path.Clean(written)
	}
	if ws != nil {
		rel, err := ws.Resolve(written)
		if err != nil {
			return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: %v", field, err)
		}
		resolved = rel
		// Joined and cleaned: a workspace at "/" is not "//etc/shadow".
		relName, absName = rel, path.Join(filepath.ToSlash(ws.Dir()), rel)
	} else {
		name := slashed(written)
		base := ""
		if p.baseDir != "" {
			base = path.Clean(strings.ReplaceAll(p.baseDir, "\\", "/"))
		}
		if base != "" && !path.IsAbs(name) {
			name = path.Join(base, name)
		}
		name = path.Clean(name)
		if name == ".." || strings.HasPrefix(name, "../") {
			return p.denial(cfg, "paths.parent", 0, "argument %q: path %q climbs out with \"..\": pass a path without \"..\"", field, raw)
		}
		joined := slashed(written)
		start := "/" // where joined is taken from, as the host reaches it
		if base == "" && !path.IsAbs(name) {
			// Without a base directory a relative path leads from the
			// process's working directory, where a Go tool opens it
			// (os.ReadFile("notes/id") follows notes -> HOME/.ssh):
			// it is judged there. The written form still decides
			// paths.parent above. The kernel's name for the directory
			// (getcwd, not $PWD) has no symlink in it: only the path's
			// own components are looked at.
			wd, logical, err := at.getwd()
			if err != nil || !path.IsAbs(filepath.ToSlash(wd)) {
				// Removed, or longer than the kernel names: where the path
				// leads cannot be judged, so it is refused.
				return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: relative path %q cannot be judged: the process's working directory cannot be named (%v); pass an absolute path, or give the policy a base directory (WithBaseDir)", field, raw, err)
			}
			start = path.Clean(filepath.ToSlash(wd))
			// The written form is placed under the name the process
			// knows the directory by ($PWD, through a link), which
			// patterns may name; the host's form under getcwd's.
			base = logical
			name = under(base, name)
		}
		absName = name
		outside = below(base, name, &relName)
		// A path is judged also where the host's symlinks lead: a link in
		// the base directory to HOME/.ssh reaches what "**/.ssh/**"
		// forbids.
		if start == "/" && base != "" && !path.IsAbs(joined) {
			joined = base + "/" + joined // uncleaned: ".." after a link is the link target's parent
		}
		if path.IsAbs(joined) || start != "/" {
			// As written and cleaned first (hostpath.Leads): both are
			// judged. A tool with a directory of its own runs as a
			// process of its own, whose /proc/self/cwd is that
			// directory (hostpath.LeadsAs).
			cwd := ""
			if at.dir != "" {
				cwd = path.Clean(strings.ReplaceAll(at.dir, "\\", "/"))
			}
			places, ok := hostpath.LeadsAs(start, joined, cwd)
			if !ok {
				// hostpath does not say which of the two it was.
				return "paths.resolve", tool.Errorf(tool.CodeFilesystemPolicy, "policy rule paths.resolve: argument %q: where path %q leads on the host cannot be judged: following it passes more than %d symlinks, or a lookup on the way failed (a directory reached through links whose real path is longer than PATH_MAX), or it goes through /proc/PID of a process in another mount namespace, whose files differ from the host's; pass the path the links lead to, with fewer symlinks on the way and a real path shorter than PATH_MAX, not through another process's /proc", field, raw, hostpath.MaxLinks)
			}
			hostBase := ""
			for _, hostName := range places {
				if hostName == name {
					continue
				}
				if hostBase == "" {
					hostBase = start // from getcwd: no link to resolve
					if start == "/" {
						hostBase = base
						if hb, ok := hostpath.Resolve(base); ok {
							hostBase = hb
						}
					}
				}
				h := pathName{abs: hostName, rel: hostName, host: true}
				h.outside = below(hostBase, hostName, &h.rel)
				hosts = append(hosts, h)
			}
			if len(hosts) > 0 {
				resolved = hosts[0].abs
			}
		}
	}
	names := append([]pathName{{rel: relName, abs: absName, outside: outside}}, hosts...)
	// Forbidden patterns judge each name folded too, as a file system
	// that compares names loosely opens it (namefold): folded once here.
	// An ASCII name without capitals or trailing dots and spaces folds
	// to itself, without allocating.
	for i := range names {
		n := &names[i]
		n.frel, n.fabs = namefold.Name(n.rel), namefold.Name(n.abs)
	}
	// shown is how a denial shows the path beside raw: the host's form
	// that a rule refused, else the first one there is.
	shown := func(n pathName) string {
		if n.host {
			return shownPath(raw, n.abs)
		}
		return shownPath(raw, resolved)
	}
	// Relative globs match the workspace-relative path, absolute ones the
	// host path (the same thing when nothing was resolved). A forbidden
	// pattern that covers one of the names refuses the call; every name
	// must be under an allowed one.
	match := func(g glob, n pathName) bool {
		if g.abs() {
			return g.match(n.abs)
		}
		return !n.outside && g.match(n.rel)
	}
	covered := func(g glob, n pathName) bool {
		switch {
		case g.abs():
			return g.forbids(n.abs, n.fabs)
		case !n.outside:
			return g.forbids(n.rel, n.frel)
		case g.anywhere():
			// "**/.ssh/**" forbids .ssh outside the base directory too.
			return g.forbids(n.abs, n.fabs)
		}
		return false
	}
	// holds is covered for the paths below a directory (place.below).
	holds := func(g glob, n pathName) bool {
		switch {
		case g.abs() || n.outside && g.anywhere():
			return g.holdsBelow(n.abs, n.fabs)
		case !n.outside:
			return g.holdsBelow(n.rel, n.frel)
		}
		return false
	}
	for _, r := range []*toolRule{tr, &cfg.global} {
		if r == nil {
			continue
		}
		for _, pr := range r.forbiddenPaths {
			for _, n := range names {
				if covered(pr.glob, n) {
					return p.denial(cfg, pr.rule, pr.line, "argument %q: path %s matches forbidden pattern %q", field, shown(n), pr.source)
				}
				if at.below && holds(pr.glob, n) {
					return p.denial(cfg, pr.rule, pr.line, "argument %q: directory %s holds paths matching forbidden pattern %q, which the glob reads below: name a directory outside them", field, shown(n), pr.source)
				}
			}
		}
	}
	// A directory is what a tool that lists or searches reads below. The
	// workspace hides the global forbidden paths from it (Hide); a tool's
	// own forbidden paths it cannot know, so a directory that holds some
	// is refused to that tool.
	if ws != nil && tr != nil && len(tr.forbiddenPaths) > 0 {
		if fi, err := ws.Stat(relName); err == nil && fi.IsDir() {
			for _, pr := range tr.forbiddenPaths {
				name, fname := names[0].rel, names[0].frel
				if pr.glob.abs() {
					name, fname = names[0].abs, names[0].fabs
				}
				if pr.glob.holdsBelow(name, fname) {
					rule, err := p.denial(cfg, pr.rule, pr.line, "argument %q: directory %s holds paths matching forbidden pattern %q, which listing or searching it would reach: name a directory outside them", field, shownPath(raw, resolved), pr.source)
					// The model cannot change the governance file; the
					// operator's option is the error's cause.
					if te, ok := err.(*tool.Error); ok {
						te.Err = fmt.Errorf("policy: to let this tool list or search directories that hold %q, make the pattern global: global.forbidden_paths are left out of listings and searches", pr.source)
					}
					return rule, err
				}
			}
		}
	}
	allow, scope := cfg.global.allowedPaths, "global"
	if tr != nil && len(tr.allowedPaths) > 0 {
		allow, scope = tr.allowedPaths, tr.name
	}
	if len(allow) == 0 || at.reading {
		return "", nil
	}
	allowed := func(n pathName) bool {
		for _, pr := range allow {
			if match(pr.glob, n) {
				return true
			}
		}
		return false
	}
	i := slices.IndexFunc(names, func(n pathName) bool { return !allowed(n) })
	if i < 0 {
		return "", nil
	}
	pats := make([]string, len(allow))
	for i, pr := range allow {
		pats[i] = pr.source
	}
	return p.denial(cfg, scope+".allowed_paths", allow[0].line, "argument %q: path %s is not under an allowed path (%s)", field, shown(names[i]), strings.Join(pats, ", "))
}

// shownPath is how a denial shows a path argument: as written, quoted, and
// what it resolved to when that differs. Only denials format it.
func shownPath(raw, resolved string) string {
	if resolved != raw {
		return fmt.Sprintf("%q (resolved: %q)", raw, resolved)
	}
	return fmt.Sprintf("%q", raw)
}
