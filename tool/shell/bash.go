package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"weak"

	"golang.org/x/sync/semaphore"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// DefaultBashDescription is the description of a bash tool unless
// WithDescription replaces it.
const DefaultBashDescription = "Run a bash command line in a sandbox, with the workspace as the working directory " +
	"(or workdir, a directory inside it). Output is truncated to its head and tail when long. " +
	"Prefer the dedicated file and git tools when they fit."

var bashSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"command":{"type":"string","minLength":1,"description":"The command line, run by bash -c"},` +
	`"workdir":{"type":"string","description":"Directory to run in, relative to the workspace (default: the workspace root)"}` +
	`},"required":["command"],"additionalProperties":false}`)

// Bash is a free-form bash tool: the model's command line is run by
// "bash -c" in a sandbox engine, with a working directory inside a
// workspace. Every command line is classified (approval/classify by
// default): the verdict is exposed through Assess for the approval
// extension, recorded in the result's metadata, and a classify.Blocked
// command is refused with tool.CodePolicyDenied before anything runs,
// unless AllowBlocked was given explicitly.
//
// What the workspace hides (its hide and deny rules: a governance policy's
// forbidden_paths) is masked from each command (sandbox.Workspace.Masked,
// sandbox.Spec.Mask). A command that has something to mask runs alone
// among the shell commands of its *sandbox.Workspace (bash tools, and
// Command tools given WithWorkspace: they wait for it, and it for them);
// commands with nothing to mask run alongside each other.
//
// Bash implements tool.Tool and the approval package's Assessor and
// Subjecter interfaces. Its risk is tool.RiskHigh and it is annotated
// destructive and open-world, whatever the engine.
type Bash struct {
	spec tool.Spec
	ws   *sandbox.Workspace
	dir  string // ws's directory as the engine names it (its WithWorkspace path)
	run  runner
	o    *options
}

type bashArgs struct {
	Command string `json:"command"`
	Workdir string `json:"workdir"`
}

// NewBash returns a bash tool that runs in sb with its working directory in
// ws. Both are required: sb should be an engine created with
// sandbox.WithWorkspace(ws.Dir()) — bwrap or gvisor to confine the command,
// since the process engine isolates nothing but the process tree. NewBash
// refuses an engine whose workspace is another directory, and one that
// confines files (every engine but process) without a workspace: its
// commands could not run or write there.
func NewBash(sb sandbox.Sandbox, ws *sandbox.Workspace, opts ...Option) (*Bash, error) {
	o := newOptions(opts)
	var errs []error
	if sb == nil {
		errs = append(errs, errors.New("shell.NewBash: sandbox is nil: the bash tool runs only in a sandbox engine; pass sandbox.New(\"bwrap\", sandbox.WithWorkspace(ws.Dir()))"))
	}
	if ws == nil {
		errs = append(errs, errors.New("shell.NewBash: workspace is nil: pass the *sandbox.Workspace the commands work in"))
	}
	if o.assessor == nil {
		errs = append(errs, errors.New("shell.NewBash: assessor is nil"))
	}
	var dir string
	if sb != nil && ws != nil {
		var err error
		if dir, err = engineDir(sb, ws); err != nil {
			errs = append(errs, err)
		}
	}
	spec := tool.Spec{
		Name:        "bash",
		Description: DefaultBashDescription,
		InputSchema: bashSchema,
		Category:    "shell",
		Risk:        tool.RiskHigh,
		Annotations: tool.Annotations{Title: "Bash", Destructive: true, OpenWorld: true},
	}
	if o.name != "" {
		spec.Name = o.name
	}
	if o.description != "" {
		spec.Description = o.description
	}
	if o.risk != nil {
		spec.Risk = *o.risk
	}
	for _, fn := range o.specFns {
		fn(&spec)
	}
	if err := tool.CheckName(spec.Name); err != nil {
		errs = append(errs, err)
	}
	if err := o.limits.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Bash{spec: spec, ws: ws, dir: dir, o: o, run: runner{sb: sb, env: o.env, limits: o.limits, budget: o.budget, track: o.track}}, nil
}

// engineDir returns the directory the bash tool runs its commands in: ws's,
// as the engine names its workspace. It refuses an engine whose workspace
// is another directory (every command would be refused as outside it) and
// an engine that confines files without a workspace (nothing could be
// written). An engine that does not report its workspace is taken as is.
func engineDir(sb sandbox.Sandbox, ws *sandbox.Workspace) (string, error) {
	w, ok := sb.(interface{ Workspace() string })
	if !ok {
		return ws.Dir(), nil
	}
	d := w.Workspace()
	if d == "" {
		if sb.Name() == sandbox.EngineProcess {
			return ws.Dir(), nil
		}
		return "", fmt.Errorf("shell.NewBash: the %s engine has no workspace, so its commands could write nothing in %q: build it with sandbox.WithWorkspace(ws.Dir())", sb.Name(), ws.Dir())
	}
	a, err1 := os.Stat(d)
	b, err2 := os.Stat(ws.Dir())
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		return "", fmt.Errorf("shell.NewBash: the %s engine's workspace %q is not the bash tool's workspace %q, so every command would be refused: build the engine with sandbox.WithWorkspace(ws.Dir())", sb.Name(), d, ws.Dir())
	}
	return d, nil
}

// Spec returns the tool's spec.
func (b *Bash) Spec() tool.Spec { return b.spec }

func (b *Bash) args(raw json.RawMessage) (bashArgs, error) {
	var a bashArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, tool.Errorf(tool.CodeInvalidArguments, "arguments do not decode: %v: send {\"command\": \"...\"}", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return a, tool.NewError(tool.CodeInvalidArguments, "command is empty: send the command line to run")
	}
	return a, nil
}

// Assess classifies the command line (the approval package's Assessor
// interface), as run in its workdir (see Run). Arguments without a
// command are judged classify.Dangerous.
func (b *Bash) Assess(args json.RawMessage) classify.Verdict {
	a, err := b.args(args)
	if err != nil {
		return classify.Verdict{Level: classify.Dangerous, Reasons: []string{err.Error()}}
	}
	return b.o.assessor.Assess(b.judged(a))
}

// judged is the call's command line as run in its workdir (see judged).
func (b *Bash) judged(a bashArgs) string {
	rel, err := b.ws.Rel(a.Workdir)
	if a.Workdir == "" || err != nil {
		rel = a.Workdir // Run refuses a workdir Rel refuses
	}
	return judged(a.Command, rel)
}

// judged is the command line the classifier judges for a command run in
// rel, a directory relative to the workspace: it begins by changing into
// rel, so that relative names are judged where they land ("printf x >
// config" run in .git writes .git/config).
func judged(command, rel string) string {
	if rel == "" || rel == "." {
		return command
	}
	return "cd -- " + quote(rel) + "\n" + command
}

// Subject returns the command line (the approval package's Subjecter
// interface), so rules such as shell(git status*) match it, and a person
// asked reads it. A call with a workdir begins with cd into it, as it is
// judged: rules read the line's relative paths where they land, and an
// allow rule written for the bare line does not cover it.
func (b *Bash) Subject(args json.RawMessage) string {
	a, err := b.args(args)
	if err != nil {
		return ""
	}
	return b.judged(a)
}

// Run checks workdir against the workspace, classifies the command line
// as run there (as if it began with cd workdir), refuses a Blocked one
// (unless AllowBlocked), and runs bash -c command in the sandbox.
func (b *Bash) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	a, err := b.args(call.Args)
	if err != nil {
		return nil, err
	}
	dir, rel := b.dir, ""
	if a.Workdir != "" {
		fi, err := b.ws.Stat(a.Workdir)
		if err != nil {
			return nil, ToolError(err)
		}
		if !fi.IsDir() {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "workdir %q is not a directory", a.Workdir)
		}
		if rel, err = b.ws.Rel(a.Workdir); err != nil {
			return nil, ToolError(err)
		}
		dir = filepath.Join(b.dir, filepath.FromSlash(rel))
	}
	v := b.o.assessor.Assess(judged(a.Command, rel))
	if v.Level >= classify.Blocked && !b.o.allowBlocked {
		res := refuseBlocked(&call, v, "the command")
		return res, res.Error
	}
	// What the workspace hides from the file tools (a policy's
	// forbidden_paths) is hidden from the command too.
	mask, release, err := maskTurn(ctx, b.ws)
	if err != nil {
		return nil, err
	}
	defer release()
	return b.run.run(ctx, []string{"bash", "-c", a.Command}, dir, mask, &v)
}

// maskTurn lists what ws hides from a command about to start (the mask to
// pass as sandbox.Spec.Mask) and takes the command's turn among the shell
// commands of ws (bash tools, and Command tools given WithWorkspace);
// release gives the turn back once the command has ended.
//
// The mask is listed before the engine mounts it: a command running at the
// same time that renamed the directory above a hidden path in between (mv
// conf c2 and back, in a loop) had the mask mounted where the files no
// longer were, and the starting command read them
// (TestAttackS21rBashRenamesWhileAnotherStarts); and the engines bind the
// directories above the masked paths by path, which a command swapping one
// for a symlink at that moment would lead elsewhere. So a command with
// anything to mask runs alone among the workspace's shell commands, from
// before its mask is listed to its end; commands with nothing to mask run
// alongside each other.
func maskTurn(ctx context.Context, ws *sandbox.Workspace) (mask []string, release func(), err error) {
	lock := maskLock(ws)
	for held := int64(1); ; {
		if err := lock.Acquire(ctx, held); err != nil {
			e := tool.AsError(err)
			e.Message = "the command was not run: it waited for the workspace's other shell commands to end (a command that has hidden paths masked runs alone): " + e.Message
			return nil, nil, e
		}
		mask, err = ws.Masked()
		if err != nil {
			lock.Release(held)
			return nil, nil, tool.Errorf(tool.CodeFilesystemPolicy, "the command was not run: %v", err)
		}
		if len(mask) > 0 && held == 1 {
			lock.Release(1) // listed again once nothing else runs
			held = maskLockAll
			continue
		}
		if len(mask) == 0 && held == maskLockAll {
			lock.Release(maskLockAll - 1)
			held = 1
		}
		return mask, func() { lock.Release(held) }, nil
	}
}

// maskLockAll is what a command with paths to mask takes of its
// workspace's maskLock, and every other command takes 1 of.
const maskLockAll = 1 << 30

// maskLocks holds, for each live workspace, the lock its shell commands
// take (see maskTurn); an entry goes with its workspace.
var maskLocks sync.Map // weak.Pointer[sandbox.Workspace] -> *semaphore.Weighted

func maskLock(ws *sandbox.Workspace) *semaphore.Weighted {
	k := weak.Make(ws)
	if v, ok := maskLocks.Load(k); ok {
		return v.(*semaphore.Weighted)
	}
	v, loaded := maskLocks.LoadOrStore(k, semaphore.NewWeighted(maskLockAll))
	if !loaded {
		runtime.AddCleanup(ws, func(k weak.Pointer[sandbox.Workspace]) { maskLocks.Delete(k) }, k)
	}
	return v.(*semaphore.Weighted)
}
