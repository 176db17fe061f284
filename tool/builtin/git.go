package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// gitBase is how every git tool starts. The repository is chosen by the
// fixed working directory (the workspace's root, Config.Workdir) rather
// than "git -C", which the classifier rightly treats as a jump into another
// repository.
func gitBase(*sandbox.Workspace) []string {
	return []string{"git", "--no-pager"}
}

// gitOpts keep git inside the workspace and away from programs a
// repository's configuration could name: it does not look for a repository
// above the workspace, reads no system-wide configuration, and runs with
// core.fsmonitor off, no colour, no attributes file (core.attributesFile
// may name any file, whose words git quotes in its warnings: only the
// repository's own .gitattributes count) and no signature checks in git log
// (log.showSignature would run the gpg.program the configuration names on
// every signed commit), and no refresh of the whole index at the end of a
// diff (diff.autoRefreshIndex: it has no pathspec, so it would run a clean
// filter on a filtered file whose stat changed), and no hooks
// (core.hooksPath: git status writes the refreshed index, and each write
// runs post-index-change, a program the repository names). The settings go
// through git's GIT_CONFIG_COUNT environment rather than "-c", so the
// command line the classifier judges stays a plain read-only git command.
// GIT_OPTIONAL_LOCKS=0 keeps git status from writing the index at all (a
// read-only tool), and GIT_WORK_TREE makes the workspace the work tree
// whatever core.worktree says: with it pointing elsewhere, git diff showed
// the files there as the index's changes. GIT_DIR names the workspace's
// .git, so a workspace shaped as a bare repository (HEAD, objects, refs
// and a commondir naming another) is not read as one; what .git itself
// leads to is judged before each run (ownRepository).
//
// The git tools never fetch: a repository configured as a partial clone
// (remote.<name>.promisor, extensions.partialClone) fetches an object it
// lacks from its promisor remote with a "git fetch" of its own, reaching
// the remote the way the configuration says (remote.<name>.uploadpack
// run by a shell, core.sshCommand, an ext:: command line): a program of
// the repository's choosing (TestAttackS29GitToolsFetchNothing).
// GIT_ALLOW_PROTOCOL set empty allows no transport whatever the
// configuration's protocol.<name>.allow say (git's own submodule code
// restricts transports this way), and GIT_NO_LAZY_FETCH=1 (git 2.45 and
// later) stops the fetch before it starts.
func gitOpts(ws *sandbox.Workspace, opts []shell.Option) []shell.Option {
	return append([]shell.Option{shell.WithEnv(
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(ws.Dir()),
		"GIT_DIR="+filepath.Join(ws.Dir(), ".git"),
		"GIT_WORK_TREE="+ws.Dir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ALLOW_PROTOCOL=",
		"GIT_NO_LAZY_FETCH=1",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_CONFIG_COUNT=6",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
		"GIT_CONFIG_KEY_1=color.ui", "GIT_CONFIG_VALUE_1=false",
		"GIT_CONFIG_KEY_2=core.attributesFile", "GIT_CONFIG_VALUE_2="+os.DevNull,
		"GIT_CONFIG_KEY_3=log.showSignature", "GIT_CONFIG_VALUE_3=false",
		"GIT_CONFIG_KEY_4=diff.autoRefreshIndex", "GIT_CONFIG_VALUE_4=false",
		"GIT_CONFIG_KEY_5=core.hooksPath", "GIT_CONFIG_VALUE_5="+os.DevNull,
	)}, opts...)
}

func gitSpec(name, desc string, schema string) tool.Spec {
	return tool.Spec{
		Name: name, Description: desc, InputSchema: json.RawMessage(schema),
		Category: "git", Risk: tool.RiskLow,
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	}
}

func gitArgs(ws *sandbox.Workspace, sb sandbox.Sandbox, name string) error {
	if ws == nil {
		return errors.New(name + ": workspace is nil")
	}
	if sb == nil {
		return errors.New(name + ": sandbox is nil: git tools run in a sandbox engine")
	}
	return nil
}

// GitStatus returns git_status: "git status --short --branch" of the
// repository at the root of ws, run in sb. It takes no arguments.
//
// As git_diff does, it first lists the paths the status would show (git
// status --porcelain -z --no-renames: an untracked directory is one entry,
// as in the answer) and, when the workspace refuses to read some (its
// deny, allow and secret rules, what sandbox.WithHide hides: the policy's
// forbidden paths), shows the status without them (":(exclude,literal)"
// pathspecs); the answer then ends with "[N changed paths hidden by policy]",
// its metadata holds N under MetaHidden, and the hidden names appear
// nowhere in the result. As in git_diff, paths with a filter attribute are
// left out (":(attr:!filter)"): git status would run the clean filter the
// repository's configuration names on such a file whose stat changed.
func GitStatus(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...shell.Option) (tool.Tool, error) {
	if err := gitArgs(ws, sb, "git_status"); err != nil {
		return nil, err
	}
	spec := gitSpec("git_status", "Show the working tree status of the workspace's git repository (short format, with the branch).",
		`{"type":"object","properties":{},"additionalProperties":false}`)
	inner := gitSpec("git_status", spec.Description, `{"type":"object","properties":{"exclude":{"type":"array","items":{"type":"string"}}}}`)
	mk := func(argv ...string) (*shell.Command, error) {
		return shell.New(inner, ownRepo(ws, sb), shell.Config{Argv: append(gitBase(ws), argv...), Workdir: ws.Dir()}, gitOpts(ws, opts)...)
	}
	s := &gitStatus{spec: spec, ws: ws}
	var err error
	// pathMagic: paths with a filter attribute are left out, as in
	// git_diff, since git status runs a clean filter on a file whose stat
	// changed, to compare its content. ignoreDirtySubmodules: the inner
	// status that would ask a submodule runs without that pathspec.
	if s.status, err = mk("status", "--short", "--branch", ignoreDirtySubmodules, "--", pathMagic+".", "{exclude}"); err != nil {
		return nil, err
	}
	if s.names, err = mk("status", "--porcelain", "-z", "--no-renames", ignoreDirtySubmodules, "--", pathMagic+"."); err != nil {
		return nil, err
	}
	return s, nil
}

// gitStatus is git_status: a listing of the paths, judged in the
// workspace, then the status without those it refuses.
type gitStatus struct {
	spec          tool.Spec
	ws            *sandbox.Workspace
	status, names *shell.Command
}

func (s *gitStatus) Spec() tool.Spec { return s.spec }

// Workspace is the workspace whose rules judge the paths git_status shows.
func (s *gitStatus) Workspace() *sandbox.Workspace { return s.ws }

// Run lists the paths the status would show, and shows the status without
// those the workspace refuses.
func (s *gitStatus) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	if len(call.Args) > 0 {
		var in struct{}
		if err := json.Unmarshal(call.Args, &in); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments do not decode: %v", err)
		}
	}
	list := call
	list.Args = json.RawMessage(`{}`)
	// A porcelain record is "XY path"; with --no-renames there is no
	// second path.
	ex, err := hiddenExcludes(ctx, s.ws, s.names, list, func(rec string) (string, bool) {
		if len(rec) < 4 {
			return "", false
		}
		return rec[3:], true
	}, "status", "commit, or list in .gitignore, what need not show (git_diff takes a path)")
	if err != nil {
		return nil, err
	}
	call.Args = marshalArgs(diffArgs{Exclude: ex})
	res, err := s.status.Run(ctx, call)
	return scrubHidden(res, len(ex)), err
}

// Assess classifies the command line the call runs.
func (s *gitStatus) Assess(json.RawMessage) classify.Verdict {
	return s.status.Assess(json.RawMessage(`{}`))
}

// Subject is the command line the call runs (before the paths hidden by
// policy are left out).
func (s *gitStatus) Subject(json.RawMessage) string { return s.status.Subject(json.RawMessage(`{}`)) }

const diffSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","x-toolbelt-path":true,"description":"Limit the diff to this file or directory, relative to the workspace (default: the whole repository)"},` +
	`"staged":{"type":"boolean","description":"Show staged changes (git diff --staged) instead of unstaged ones"}` +
	`},"additionalProperties":false}`

// diffInner is the schema of the commands git_diff runs: the path (as
// resolved) and the pathspecs that leave hidden paths out.
const diffInner = `{"type":"object","properties":{"path":{"type":"string"},"exclude":{"type":"array","items":{"type":"string"}}}}`

// Bounds on the paths git_diff leaves out of one diff: each is a command
// argument, and the command line is bounded.
const (
	maxDiffExcluded      = 1000
	maxDiffExcludedBytes = 256 << 10
)

// excludeMagic starts the pathspec that leaves one path out of a diff,
// matched literally (no wildcards, no further magic).
const excludeMagic = ":(exclude,literal)"

// pathMagic starts the pathspec of the diff's path (always given, "." for
// the whole repository): matched literally, and only paths with no filter
// attribute. A repository's configuration can name a clean filter
// (filter.<driver>.clean or .process) that its .gitattributes applies to a
// path; git diff would run that program on the working-tree file and show
// its output, which may be any file, as the path's content.
const pathMagic = ":(literal,attr:!filter)"

// ignoreDirtySubmodules makes git status and git diff compare a submodule
// by its commit only. To tell whether its work tree is dirty (git diff's
// "-dirty" mark) git runs a "git status" inside it, which carries none of
// the outer pathspecs: it would run a clean filter the submodule's
// configuration names. The flag, unlike diff.ignoreSubmodules, wins over a
// submodule.<name>.ignore.
const ignoreDirtySubmodules = "--ignore-submodules=dirty"

// gitDiff lists the paths a diff would show, judges each in the
// workspace, then runs the diff without those it refuses. Each mode
// (unstaged, staged) has its listing and its diff command.
type gitDiff struct {
	spec                    tool.Spec
	ws                      *sandbox.Workspace
	plain, staged           *shell.Command
	plainNames, stagedNames *shell.Command
}

type diffIn struct {
	Path   *string `json:"path,omitempty"`
	Staged bool    `json:"staged,omitempty"`
}

type diffArgs struct {
	Path    *string  `json:"path,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// GitDiff returns git_diff: the unstaged (or, with staged, the staged)
// changes of the repository at the root of ws, optionally for one path,
// run in sb. External diff drivers and textconv filters are off, and a
// submodule is shown as its commit only, when that commit differs.
//
// The path argument is declared a path (sandbox.PathKeyword), so the
// governance policy resolves and judges it, and judges a call without one
// as a diff of the workspace root; the tool names its workspace
// (Workspace) for that. The path is resolved in ws and passed to git as a
// literal pathspec (":(literal)"), so git's wildcards and pathspec magic
// cannot widen it. Paths with a filter attribute are left out of every
// diff (":(attr:!filter)"), so that no clean filter the repository's
// configuration names runs and shows another file as their content.
//
// Before the diff, git_diff lists the paths it would show (git diff
// --name-only) and leaves out, with ":(exclude,literal)" pathspecs, every
// one the workspace refuses to read (its deny and allow
// rules, what sandbox.WithHide hides: the policy's forbidden paths); the
// answer then ends with "[N changed paths hidden by policy]" and its
// metadata holds N under MetaHidden, and the hidden names appear nowhere
// in the result. A path that starts to differ between the listing and the
// diff (milliseconds) is judged by the listing.
func GitDiff(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...shell.Option) (tool.Tool, error) {
	if err := gitArgs(ws, sb, "git_diff"); err != nil {
		return nil, err
	}
	spec := gitSpec("git_diff", "Show the changes in the workspace's git repository as a unified diff: unstaged by default, staged with staged=true; optionally for one path.", diffSchema)
	inner := gitSpec("git_diff", spec.Description, diffInner)
	// --submodule=short: a submodule is its commit, never the files in it
	// (diff.submodule=diff would show them, unjudged); a submodule whose
	// work tree alone differs is not shown (ignoreDirtySubmodules).
	base := append(gitBase(ws), "diff", "--no-ext-diff", "--no-textconv", "--submodule=short", ignoreDirtySubmodules, "--relative")
	mk := func(extra ...string) (*shell.Command, error) {
		argv := append(append(append([]string{}, base...), extra...), "--", pathMagic+"{path}", "{exclude}")
		return shell.New(inner, ownRepo(ws, sb), shell.Config{Argv: argv, Workdir: ws.Dir()}, gitOpts(ws, opts)...)
	}
	g := &gitDiff{spec: spec, ws: ws}
	var err error
	names := []string{"--name-only", "-z", "--no-renames"}
	for _, c := range []struct {
		dst   **shell.Command
		extra []string
	}{{&g.plain, nil}, {&g.staged, []string{"--staged"}}, {&g.plainNames, names}, {&g.stagedNames, append([]string{"--staged"}, names...)}} {
		if *c.dst, err = mk(c.extra...); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func (g *gitDiff) Spec() tool.Spec { return g.spec }

// Workspace is the workspace git_diff's path is resolved in: the policy
// judges the path there.
func (g *gitDiff) Workspace() *sandbox.Workspace { return g.ws }

// pick decodes the call's arguments and resolves the path: the diff and
// listing commands for the mode, and their arguments.
func (g *gitDiff) pick(args json.RawMessage) (diff, names *shell.Command, inner diffArgs, err error) {
	var in diffIn
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, nil, inner, tool.Errorf(tool.CodeInvalidArguments, "arguments do not decode: %v", err)
		}
	}
	if in.Path != nil && *in.Path != "" {
		rel, err := g.ws.Resolve(*in.Path)
		if err != nil {
			return nil, nil, inner, shell.ToolError(err)
		}
		if rel != "." {
			inner.Path = &rel
		}
	}
	if inner.Path == nil {
		root := "."
		inner.Path = &root
	}
	if in.Staged {
		return g.staged, g.stagedNames, inner, nil
	}
	return g.plain, g.plainNames, inner, nil
}

func marshalArgs(a diffArgs) json.RawMessage {
	b, _ := json.Marshal(a) // a string and a list of strings always encode
	return b
}

// Run lists the paths the diff would show, leaves out those the
// workspace refuses, and runs git diff, staged or not.
func (g *gitDiff) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	diff, names, inner, err := g.pick(call.Args)
	if err != nil {
		return nil, err
	}
	list := call
	list.Args = marshalArgs(inner)
	ex, err := hiddenExcludes(ctx, g.ws, names, list, func(s string) (string, bool) { return s, true }, "diff", "give a path to narrow it, outside what is hidden")
	if err != nil {
		return nil, err
	}
	inner.Exclude = ex
	call.Args = marshalArgs(inner)
	res, err := diff.Run(ctx, call)
	return scrubHidden(res, len(ex)), err
}

// hiddenExcludes runs the listing names (never streamed: it names what may
// be hidden) and returns an ":(exclude,literal)" pathspec for every path
// of it that ws refuses to read. Its stdout is NUL-separated records, and
// path takes a record's path (false: no path). what names the command in
// errors ("diff", "status"), fix says what the model can do about too many
// paths.
func hiddenExcludes(ctx context.Context, ws *sandbox.Workspace, names *shell.Command, call tool.Call, path func(string) (string, bool), what, fix string) ([]string, error) {
	lres, err := names.Run(tool.WithEmitter(ctx, nil), call)
	if err != nil {
		// Not its result: what it printed before failing may name hidden
		// paths. The error quotes git's last line of stderr.
		return nil, err
	}
	if cut, _ := lres.Metadata[shell.MetaTruncated].(bool); cut {
		return nil, tool.Errorf(tool.CodeResourceLimit, "the %s touches too many paths to check each against the workspace's rules: %s", what, fix)
	}
	stdout, _ := lres.Metadata[shell.MetaStdout].(string)
	var ex []string
	size := 0
	for rec := range strings.SplitSeq(stdout, "\x00") {
		name, ok := path(rec)
		if !ok || name == "" {
			continue
		}
		if _, err := ws.Rel(name); err != nil {
			// The arguments travel as JSON, which cannot carry bytes that
			// are not UTF-8: such a name would not be left out.
			if !utf8.ValidString(name) {
				return nil, tool.Errorf(tool.CodeFilesystemPolicy, "a changed path of this %s is hidden by policy and its name is not valid UTF-8, so it cannot be left out: %s", what, fix)
			}
			ex = append(ex, excludeMagic+name)
			size += len(excludeMagic) + len(name)
		}
	}
	if len(ex) > maxDiffExcluded || size > maxDiffExcludedBytes {
		return nil, tool.Errorf(tool.CodeResourceLimit, "%d changed paths of this %s are hidden by policy, too many to leave out: %s", len(ex), what, fix)
	}
	return ex, nil
}

// scrubHidden takes the hidden paths' names out of res's argv metadata and
// says how many were left out.
func scrubHidden(res *tool.Result, hidden int) *tool.Result {
	if hidden == 0 || res == nil {
		return res
	}
	// The arguments name the hidden paths; the result does not.
	if argv, ok := res.Metadata[shell.MetaArgv].([]string); ok {
		shown := make([]string, 0, len(argv)-hidden+1)
		for _, a := range argv {
			if !strings.HasPrefix(a, excludeMagic) {
				shown = append(shown, a)
			}
		}
		res.SetMeta(shell.MetaArgv, append(shown, excludeMagic+"<hidden by policy>"))
	}
	res.SetMeta(MetaHidden, hidden)
	res.Content = append(res.Content, tool.TextContent(hiddenNote(hidden, "changed path", "changed paths")))
	return res
}

// Assess classifies the command line the call runs.
func (g *gitDiff) Assess(args json.RawMessage) classify.Verdict {
	c, _, inner, err := g.pick(args)
	if err != nil {
		return classify.Verdict{Level: classify.Dangerous, Reasons: []string{err.Error()}}
	}
	return c.Assess(marshalArgs(inner))
}

// Subject is the command line the call runs (before the paths hidden by
// policy are left out).
func (g *gitDiff) Subject(args json.RawMessage) string {
	c, _, inner, err := g.pick(args)
	if err != nil {
		return ""
	}
	return c.Subject(marshalArgs(inner))
}

const logSchema = `{"type":"object","properties":{` +
	`"count":{"type":"integer","minimum":1,"maximum":200,"description":"How many commits to show (default 20)"},` +
	`"ref":{"type":"string","minLength":1,"description":"A branch, tag, commit or range such as main..feature (default: HEAD)"},` +
	`"path":{"type":"string","x-toolbelt-path":true,"description":"Only commits touching this file or directory, relative to the workspace"}` +
	`},"additionalProperties":false}`

// GitLog returns git_log: recent commits of the repository at the root of
// ws (hash, date, author, subject), optionally from a ref and for one path,
// run in sb. The ref cannot start with "-", so it can never be an option.
// The path is a literal pathspec (":(literal)"): the policy judges it as
// the workspace path it names, so git's wildcards and pathspec magic
// ("priv*", ":/private") must not widen it to paths the policy hides.
func GitLog(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...shell.Option) (*shell.Command, error) {
	if err := gitArgs(ws, sb, "git_log"); err != nil {
		return nil, err
	}
	argv := append(gitBase(ws), "log", "--no-decorate", "--date=short", "--format=%h %ad %an: %s",
		"--max-count=20", "--max-count={count}", "{ref}", "--", ":(literal){path}")
	return shell.New(gitSpec("git_log", "Show recent commits of the workspace's git repository: hash, date, author and subject.", logSchema),
		ownRepo(ws, sb), shell.Config{Argv: argv, Workdir: ws.Dir()}, gitOpts(ws, opts)...)
}

// RunTests returns run_tests: the program's test command (argv, never the
// model's) run in sb. Placeholders in argv become the tool's arguments
// (each a required string), as in shell.NewCommand.
//
// The command is fixed, but the tests it runs are the model's to write
// (a test file, a Makefile target, a script), so it runs code of the
// model's choosing, as bash does. Pass shell.WithWorkspace(ws) so that what
// the workspace hides (a policy's forbidden_paths) is masked from it, as
// All does; without it a test reads every file the engine lets it
// (TestAttackS29RunTestsReadsWhatThePolicyHides).
func RunTests(sb sandbox.Sandbox, argv []string, opts ...shell.Option) (*shell.Command, error) {
	spec := tool.Spec{
		Name:        "run_tests",
		Description: "Run the project's tests (" + shellJoin(argv) + ") and return their output; a failing test run fails the call with its output.",
		Category:    "test",
		Risk:        tool.RiskMedium,
		Annotations: tool.Annotations{Title: "Run tests", Idempotent: true},
	}
	return shell.New(spec, sb, shell.Config{Argv: argv}, opts...)
}

func shellJoin(argv []string) string {
	s := ""
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}
