package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Sandbox runs commands under one engine's isolation. Implementations are safe
// for concurrent use.
type Sandbox interface {
	// Name is the engine's name: "process", "landlock", "bwrap" or "gvisor".
	Name() string
	// Available reports why the engine cannot run on this host (a missing
	// binary, with the package to install), or nil when it can.
	Available() error
	// Run runs spec.Argv to completion, or until its timeout, the caller's
	// context or a limit stops it; the whole process tree is gone when Run
	// returns. The outcome is non-nil whenever the command started; the error
	// is nil only for a command that exited 0, and otherwise carries a [Code].
	Run(ctx context.Context, spec Spec) (*Outcome, error)
}

// Spec is one command to run.
type Spec struct {
	// Argv is the command and its arguments; Argv[0] is looked up in the
	// command's PATH. Required.
	Argv []string
	// Dir is the working directory, relative to the workspace ([WithWorkspace]);
	// "" is the workspace itself. Without a workspace it must be absolute, and
	// "" means "/".
	Dir string
	// Env holds NAME=value variables set explicitly for this command. They are
	// added to the engine's scrubbed environment and win over it. Engines
	// that start the command through /bin/sh (bwrap; landlock as root)
	// refuse a NAME that is not a shell name (letters, digits, "_"), which
	// the shell would drop, with [ErrInvalidSpec].
	Env []string
	// Limits are this run's limits; they are resolved against the engine's
	// ([Limits.Resolve]) and refused when over them.
	Limits Limits
	// OnOutput, when set, receives the output as it arrives, stream being
	// [StreamStdout] or [StreamStderr]. Calls are serialised; chunk is only
	// valid during the call. It sees every byte, also those cut from the
	// outcome, until a flood is stopped. It must not block for long: the
	// command's output pipe fills while it runs.
	OnOutput func(stream string, chunk []byte)
	// TrackChanges lists on the outcome what the run created, modified and
	// deleted in the workspace (Outcome.Changes), from a snapshot of the
	// workspace's entries before and after it (their type, mode, size,
	// times and inode: a command that sets a file's modification time back
	// still changed it). It needs a workspace ([WithWorkspace]) and costs
	// a walk of it on each side of the run (a few microseconds an entry).
	// A workspace of more than [MaxTrackedEntries] entries, nested more
	// than [MaxTrackedDepth] directories deep, or with a directory the
	// walk cannot read is not tracked: Outcome.ChangesUntracked says why.
	// Whatever else writes in the workspace during the run is counted too.
	TrackChanges bool
	// Mask lists workspace-relative paths the command must not see
	// ([Workspace.Masked]: what the workspace's hide and deny rules name,
	// a governance policy's forbidden_paths among them). The bwrap and
	// gvisor engines mount an empty, read-only directory or file over each
	// (over where it leads, for a symlink); the process and landlock
	// engines cannot, and refuse a run with any, with [ErrInvalidSpec].
	Mask []string
}

// Outcome is what happened to a run.
type Outcome struct {
	Engine string   // the engine that ran it
	Argv   []string // the command line the engine executed, wrapper and engine flags included
	Limits Limits   // the limits in force, after resolution

	ExitCode int            // exit status; -1 when the command was killed by a signal
	Signal   syscall.Signal // the signal that ended the command, 0 if none (see the package doc for bwrap/gvisor)
	TimedOut bool           // the timeout or the caller's deadline expired and the tree was killed
	// KilledBy names the limit that stopped the command, if one did:
	// "timeout", "cpu", "file size" or "output".
	KilledBy string
	// Unenforced lists the limits set for this run that the engine could not
	// enforce on this host (for example "processes" for root without [WithUser]),
	// and, for the landlock engine, what its kernel's Landlock is too old to
	// confine ([UnenforcedUnixPaths], [UnenforcedSignals], [UnenforcedAbstractUnix]).
	Unenforced []string

	Stdout, Stderr           []byte // kept output, head and tail around a marker when cut
	StdoutBytes, StderrBytes int64  // bytes produced on each stream (counted up to the point a flood was stopped)
	Truncated                bool   // some output was cut

	Duration time.Duration // wall-clock time from start to exit
	Usage    Usage         // resource usage of the command tree (the engine's processes included)

	// Changes are the workspace's entries the run created, modified or
	// deleted, sorted by path (Spec.TrackChanges), at most
	// [MaxChangesListed]; ChangesOmitted counts those left off the list.
	// ChangesUntracked says why changes could not be tracked, if they
	// could not.
	Changes          []Change
	ChangesOmitted   int
	ChangesUntracked string
}

// Usage is the resource usage of a finished run, from the rusage of the
// process the engine started (which includes its waited-for descendants).
type Usage struct {
	UserCPU   time.Duration
	SystemCPU time.Duration
	MaxRSS    int64 // bytes, the largest resident set of any one process
}

// Option configures an engine.
type Option func(*config)

type config struct {
	limits        Limits
	limitsSet     bool
	workspace     string
	envAllow      []string
	envSet        bool
	network       *bool
	user          *syscall.Credential
	maxConcurrent int
	binary        string
	repoWritable  bool
	homeSecrets   bool
	errs          []error
}

// WithLimits sets the engine's limits: the ceiling every [Spec.Limits] is
// resolved against. Default [DefaultLimits]; a zero field means unlimited.
func WithLimits(l Limits) Option {
	return func(c *config) {
		if err := l.Validate(); err != nil {
			c.errs = append(c.errs, err)
		}
		c.limits, c.limitsSet = l, true
	}
}

// WithWritableRepository lets bwrap and gvisor commands write the
// workspace's own .git, .hg and .svn, which they otherwise bind read-only
// (a command could plant a hook or a core.fsmonitor that the owner's next
// git status on the host runs outside any sandbox). Use it only for an
// agent that must commit, in a repository nobody runs git in on the host
// without reading what the agent left there.
func WithWritableRepository() Option { return func(c *config) { c.repoWritable = true } }

// WithWorkspace sets the directory commands work in. bwrap and gvisor bind it
// writable at the same path, landlock lets commands write beneath it;
// everything else they see is read-only. It must be
// an existing absolute directory; a [*Workspace]'s Dir() fits.
func WithWorkspace(dir string) Option {
	return func(c *config) {
		if dir == "" || !filepath.IsAbs(dir) {
			c.errs = append(c.errs, newError(CodeCreateFailed, "", "", ErrInvalidSpec,
				"WithWorkspace(%q): the workspace must be an absolute directory path: pass the Dir() of the *sandbox.Workspace the tools use (sandbox.OpenWorkspace), or filepath.Abs of the directory", dir))
			return
		}
		c.workspace = filepath.Clean(dir)
	}
}

// WithEnv replaces the allow list of host environment variables passed to
// commands ([DefaultEnvAllow]). Entries are exact names or path.Match patterns
// ("LC_*"). A variable whose name looks like a secret ([LooksSecret]), or
// whose value holds what the redaction rule masks (a URL's password, a
// provider's key, a private key), passes only when named exactly. Listing "PATH" passes the host PATH instead of
// [DefaultPath].
func WithEnv(allow ...string) Option {
	return func(c *config) { c.envAllow, c.envSet = slices.Clone(allow), true }
}

// WithNetwork turns the network on or off. bwrap and gvisor default to off (a
// private network namespace with loopback only), landlock too (no TCP, no
// socket but a unix one; see [Landlock]). The process engine cannot
// take the network away: WithNetwork(false) on it is an error
// ([ErrNetworkPolicy]) rather than a promise it cannot keep.
func WithNetwork(on bool) Option {
	return func(c *config) { c.network = &on }
}

// WithUser runs commands as uid/gid instead of the caller's user. When the
// caller is root this is what makes the process limit real for the process
// engine (the kernel does not apply RLIMIT_NPROC to root); there the
// workspace must be writable by that user for commands to write in it. The
// bwrap and gvisor engines run commands as 65534 by default when the caller
// is root, and bind a workspace owned by another user through an idmapped
// mount (see [Bwrap], [GVisor]); landlock too, without the mount (see
// [Landlock]). WithUser picks
// another uid, WithUser(0, 0) keeps root's (without capabilities), except
// on landlock, which refuses uid 0: there it would own, and could chmod,
// every root-owned file on the host.
func WithUser(uid, gid uint32) Option {
	return func(c *config) { c.user = &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: false} }
}

// WithMaxConcurrent bounds how many runs may be in flight on this engine value;
// a run over the bound fails at once with [ErrConcurrency] (retryable).
// 0 means no bound.
func WithMaxConcurrent(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.errs = append(c.errs, newError(CodeCreateFailed, "", "", ErrInvalidSpec, "WithMaxConcurrent(%d): must be 0 (no bound) or more", n))
			return
		}
		c.maxConcurrent = n
	}
}

// WithBinary sets the path of the engine's binary (bwrap or runsc) instead of
// looking it up in PATH. The process and landlock engines ignore it.
func WithBinary(path string) Option {
	return func(c *config) { c.binary = path }
}

func newConfig(engine string, opts []Option) (config, error) {
	c := config{limits: DefaultLimits, envAllow: slices.Clone(DefaultEnvAllow)}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if len(c.errs) > 0 {
		e := c.errs[0]
		if se, ok := e.(*Error); ok {
			se.Engine = engine
		}
		return c, e
	}
	if c.workspace != "" {
		fi, err := os.Stat(c.workspace)
		if err != nil {
			return c, newError(CodeCreateFailed, engine, "", ErrInvalidSpec, "WithWorkspace(%q): %v", c.workspace, err)
		}
		if !fi.IsDir() {
			return c, newError(CodeCreateFailed, engine, "", ErrInvalidSpec, "WithWorkspace(%q): not a directory", c.workspace)
		}
	}
	return c, nil
}

// Engines lists the engine names [New] accepts, weakest isolation first.
func Engines() []string {
	return []string{EngineProcess, EngineLandlock, EngineBwrap, EngineGVisor}
}

// Engine names.
const (
	EngineProcess = "process"
	EngineBwrap   = "bwrap"
	EngineGVisor  = "gvisor"
)

// New returns the engine with the given name, configured by opts. It fails
// when the name is unknown and when the engine is not available on this host
// (matching [ErrUnavailable], with the package to install): it never falls
// back to a weaker engine.
func New(name string, opts ...Option) (Sandbox, error) {
	var (
		sb  Sandbox
		err error
	)
	switch name {
	case EngineProcess:
		sb, err = NewProcess(opts...)
	case EngineLandlock:
		sb, err = NewLandlock(opts...)
	case EngineBwrap:
		sb, err = NewBwrap(opts...)
	case EngineGVisor, "runsc":
		sb, err = NewGVisor(opts...)
	default:
		return nil, newError(CodeCreateFailed, "", "", ErrInvalidSpec,
			"unknown engine %q; choose one of %s", name, strings.Join(Engines(), ", "))
	}
	if err != nil {
		return nil, err
	}
	if err := sb.Available(); err != nil {
		return nil, err
	}
	return sb, nil
}

// plan is a command line an engine built for one spec.
type plan struct {
	argv    []string
	env     []string
	dir     string
	cred    *syscall.Credential
	cleanup func()
	// exitSignals: the engine reports a command killed by signal n as exit
	// status 128+n (bwrap, runsc), so such statuses are read as signals.
	exitSignals bool
	unenforced  []string
	// start, when set, starts the command instead of cmd.Start (the
	// landlock engine starts it from a restricted thread).
	start func(*exec.Cmd) error
	// pidns starts argv[0] as the init of a new pid namespace: when it dies,
	// for whatever reason, the kernel kills everything it started.
	pidns bool
	// session kills, with the process group, every process of the
	// command's session (see killSession): for engines without a pid
	// namespace, whose command's children can leave the group (setpgid)
	// without leaving the session.
	session bool
	// extra are descriptors the command inherits as 3, 4, ...; cleanup
	// closes them.
	extra []*os.File
	// ownPipes gives the output pipes to cred, so that the command can
	// reopen them (echo err > /dev/stderr): only where no other host
	// process shares cred's uid, or the engine did so before (landlock),
	// as such a process could then read and write a running command's
	// output through /proc/PID/fd (TestAttackS32Round2OutputPipesFromTheHost).
	ownPipes bool
}

// base holds what every engine shares: configuration, the concurrency bound,
// the cached availability check, and the runner.
type base struct {
	name    string
	cfg     config
	sem     chan struct{}
	availMu sync.Mutex
	avail   error
	checked bool
	prepare func(spec Spec, dir string, env []string, lim Limits) (*plan, error)
	check   func() error
}

func (b *base) init(name string, cfg config) {
	b.name, b.cfg = name, cfg
	if cfg.maxConcurrent > 0 {
		b.sem = make(chan struct{}, cfg.maxConcurrent)
	}
}

// Available caches the engine's check: binaries do not come and go while a
// program runs, and the check may run a probe command.
func (b *base) available() error {
	b.availMu.Lock()
	defer b.availMu.Unlock()
	if !b.checked {
		b.avail = platformSupported()
		if b.avail != nil {
			b.avail = unavailable(b.name, "unsupported platform", "run on Linux", b.avail)
		} else {
			b.avail = b.check()
		}
		b.checked = true
	}
	return b.avail
}

// build validates spec and returns the engine's plan and the resolved limits.
func (b *base) build(spec Spec) (*plan, Limits, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, Limits{}, newError(CodeCreateFailed, b.name, "", ErrInvalidSpec,
			"Spec.Argv is empty; set Argv to the command and its arguments, e.g. []string{\"ls\", \"-l\"}")
	}
	for i, a := range spec.Argv {
		if strings.ContainsRune(a, 0) {
			return nil, Limits{}, newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "Spec.Argv[%d] contains a NUL byte", i)
		}
	}
	if spec.TrackChanges && b.cfg.workspace == "" {
		return nil, Limits{}, newError(CodeCreateFailed, b.name, "", ErrInvalidSpec,
			"Spec.TrackChanges needs a workspace to track: give the engine one with WithWorkspace, or leave TrackChanges off")
	}
	if err := b.checkMask(spec.Mask); err != nil {
		return nil, Limits{}, err
	}
	lim, err := spec.Limits.Resolve(b.cfg.limits)
	if err != nil {
		if se, ok := err.(*Error); ok {
			se.Engine = b.name
		}
		return nil, Limits{}, err
	}
	dir, err := b.workDir(spec.Dir)
	if err != nil {
		return nil, Limits{}, err
	}
	if fi, err := os.Stat(dir); b.cfg.workspace != "" && (err != nil || !fi.IsDir()) {
		// Else the engine fails later and names the wrong thing (the
		// kernel reports the child's failed chdir as prlimit's ENOENT).
		return nil, Limits{}, newError(CodeCreateFailed, b.name, "", ErrInvalidSpec,
			"the run's directory %q does not exist or is not a directory (was the workspace removed?): create it, or set Spec.Dir to one that exists", dir)
	}
	env, err := buildEnv(b.cfg.envAllow, os.Environ(), spec.Env)
	if err != nil {
		err.(*Error).Engine = b.name
		return nil, Limits{}, err
	}
	p, err := b.prepare(spec, dir, env, lim)
	if err != nil {
		return nil, Limits{}, err
	}
	return p, lim, nil
}

// Workspace returns the directory given to [WithWorkspace], cleaned, or ""
// when the engine has none. Tools that run commands in a [*Workspace]
// compare it with the workspace's Dir (tool/shell's NewBash does).
func (b *base) Workspace() string { return b.cfg.workspace }

// workDir turns Spec.Dir into an absolute directory inside the workspace.
func (b *base) workDir(d string) (string, error) {
	ws := b.cfg.workspace
	if ws == "" {
		if d == "" {
			return "/", nil
		}
		if !filepath.IsAbs(d) {
			return "", newError(CodeCreateFailed, b.name, "", ErrInvalidSpec,
				"Spec.Dir %q is relative but the engine has no workspace; use an absolute path or WithWorkspace", d)
		}
		return filepath.Clean(d), nil
	}
	if d == "" {
		return ws, nil
	}
	if filepath.IsAbs(d) {
		rel, err := filepath.Rel(ws, filepath.Clean(d))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return "", newError(CodeFilesystemPolicy, b.name, "", ErrOutsideWorkspace,
				"Spec.Dir %q is outside the workspace %q", d, ws)
		}
		return filepath.Clean(d), nil
	}
	if !filepath.IsLocal(d) {
		return "", newError(CodeFilesystemPolicy, b.name, "", ErrOutsideWorkspace,
			"Spec.Dir %q leaves the workspace %q", d, ws)
	}
	return filepath.Join(ws, d), nil
}

func (b *base) run(ctx context.Context, spec Spec) (*Outcome, error) {
	if ctx == nil {
		return nil, newError(CodeCreateFailed, b.name, "", ErrInvalidSpec, "nil context; pass context.Background() or a context with a deadline")
	}
	if err := b.available(); err != nil {
		return nil, err
	}
	if b.sem != nil {
		select {
		case b.sem <- struct{}{}:
			defer func() { <-b.sem }()
		default:
			return nil, newError(CodeConcurrency, b.name, "", nil,
				"%d runs already in flight on this engine; retry later", cap(b.sem))
		}
	}
	if l, ok := RunLimits(ctx); ok {
		spec.Limits = l.inherit(spec.Limits)
	}
	p, lim, err := b.build(spec)
	if err != nil {
		return nil, err
	}
	if p.cleanup != nil {
		defer p.cleanup()
	}
	if spec.TrackChanges {
		return tracked(b.cfg.workspace, func() (*Outcome, error) { return execute(ctx, b.name, p, lim, spec.OnOutput) })
	}
	return execute(ctx, b.name, p, lim, spec.OnOutput)
}

// isRoot reports whether commands would run with root's uid.
func (c *config) runsAsRoot() bool {
	if c.user != nil {
		return c.user.Uid == 0
	}
	return os.Geteuid() == 0
}

func unavailable(engine, what, hint string, cause error) error {
	return newError(CodeCreateFailed, engine, "", fmt.Errorf("%w: %s", ErrUnavailable, what), "%s", hint).withCause(cause)
}

func (e *Error) withCause(cause error) *Error {
	if cause != nil {
		e.Msg += " (" + cause.Error() + ")"
	}
	return e
}

// engineBase gives tests and benchmarks the shared part of any engine.
func (b *base) engineBase() *base { return b }
