package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

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
// core.fsmonitor off and no colour. The settings go through git's
// GIT_CONFIG_COUNT environment rather than "-c", so the command line the
// classifier judges stays a plain read-only git command.
func gitOpts(ws *sandbox.Workspace, opts []shell.Option) []shell.Option {
	return append([]shell.Option{shell.WithEnv(
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(ws.Dir()),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
		"GIT_CONFIG_KEY_1=color.ui", "GIT_CONFIG_VALUE_1=false",
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
func GitStatus(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...shell.Option) (*shell.Command, error) {
	if err := gitArgs(ws, sb, "git_status"); err != nil {
		return nil, err
	}
	argv := append(gitBase(ws), "status", "--short", "--branch")
	return shell.New(gitSpec("git_status", "Show the working tree status of the workspace's git repository (short format, with the branch).",
		`{"type":"object","properties":{},"additionalProperties":false}`), sb, shell.Config{Argv: argv, Workdir: ws.Dir()}, gitOpts(ws, opts)...)
}

const diffSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Limit the diff to this file or directory, relative to the workspace"},` +
	`"staged":{"type":"boolean","description":"Show staged changes (git diff --staged) instead of unstaged ones"}` +
	`},"additionalProperties":false}`

// gitDiff picks the staged or the unstaged command; both take the same
// optional path, after "--".
type gitDiff struct {
	spec          tool.Spec
	plain, staged *shell.Command
}

type diffIn struct {
	Path   *string `json:"path,omitempty"`
	Staged bool    `json:"staged,omitempty"`
}

// GitDiff returns git_diff: the unstaged (or, with staged, the staged)
// changes of the repository at the root of ws, optionally for one path,
// run in sb. External diff drivers and textconv filters are off.
func GitDiff(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...shell.Option) (tool.Tool, error) {
	if err := gitArgs(ws, sb, "git_diff"); err != nil {
		return nil, err
	}
	spec := gitSpec("git_diff", "Show the changes in the workspace's git repository as a unified diff: unstaged by default, staged with staged=true; optionally for one path.", diffSchema)
	inner := gitSpec("git_diff", spec.Description, `{"type":"object","properties":{"path":{"type":"string"}}}`)
	base := append(gitBase(ws), "diff", "--no-ext-diff", "--no-textconv")
	plain, err := shell.New(inner, sb, shell.Config{Argv: append(append([]string{}, base...), "--", "{path}"), Workdir: ws.Dir()}, gitOpts(ws, opts)...)
	if err != nil {
		return nil, err
	}
	staged, err := shell.New(inner, sb, shell.Config{Argv: append(append([]string{}, base...), "--staged", "--", "{path}"), Workdir: ws.Dir()}, gitOpts(ws, opts)...)
	if err != nil {
		return nil, err
	}
	return &gitDiff{spec: spec, plain: plain, staged: staged}, nil
}

func (g *gitDiff) Spec() tool.Spec { return g.spec }

func (g *gitDiff) pick(args json.RawMessage) (*shell.Command, json.RawMessage, error) {
	var in diffIn
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, nil, tool.Errorf(tool.CodeInvalidArguments, "arguments do not decode: %v", err)
		}
	}
	inner, _ := json.Marshal(struct {
		Path *string `json:"path,omitempty"`
	}{in.Path})
	if in.Staged {
		return g.staged, inner, nil
	}
	return g.plain, inner, nil
}

// Run runs git diff, staged or not.
func (g *gitDiff) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	c, inner, err := g.pick(call.Args)
	if err != nil {
		return nil, err
	}
	call.Args = inner
	return c.Run(ctx, call)
}

// Assess classifies the command line the call runs.
func (g *gitDiff) Assess(args json.RawMessage) classify.Verdict {
	c, inner, err := g.pick(args)
	if err != nil {
		return classify.Verdict{Level: classify.Dangerous, Reasons: []string{err.Error()}}
	}
	return c.Assess(inner)
}

// Subject is the command line the call runs.
func (g *gitDiff) Subject(args json.RawMessage) string {
	c, inner, err := g.pick(args)
	if err != nil {
		return ""
	}
	return c.Subject(inner)
}

const logSchema = `{"type":"object","properties":{` +
	`"count":{"type":"integer","minimum":1,"maximum":200,"description":"How many commits to show (default 20)"},` +
	`"ref":{"type":"string","minLength":1,"description":"A branch, tag, commit or range such as main..feature (default: HEAD)"},` +
	`"path":{"type":"string","description":"Only commits touching this file or directory, relative to the workspace"}` +
	`},"additionalProperties":false}`

// GitLog returns git_log: recent commits of the repository at the root of
// ws (hash, date, author, subject), optionally from a ref and for one path,
// run in sb. The ref cannot start with "-", so it can never be an option.
func GitLog(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...shell.Option) (*shell.Command, error) {
	if err := gitArgs(ws, sb, "git_log"); err != nil {
		return nil, err
	}
	argv := append(gitBase(ws), "log", "--no-decorate", "--date=short", "--format=%h %ad %an: %s",
		"--max-count=20", "--max-count={count}", "{ref}", "--", "{path}")
	return shell.New(gitSpec("git_log", "Show recent commits of the workspace's git repository: hash, date, author and subject.", logSchema),
		sb, shell.Config{Argv: argv, Workdir: ws.Dir()}, gitOpts(ws, opts)...)
}

// RunTests returns run_tests: the program's test command (argv, never the
// model's) run in sb. Placeholders in argv become the tool's arguments
// (each a required string), as in shell.NewCommand.
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
