package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Process is the "process" engine: the command runs as a host process in its
// own process group, with rlimits set by prlimit(1) before it starts, a
// scrubbed environment, stdin from /dev/null, and its whole group killed on
// timeout, cancellation, output flood and exit. It does not isolate the
// filesystem or the network: use it for trusted commands, or with a
// [Workspace] for the file tools, and prefer [Bwrap] or [GVisor] otherwise.
type Process struct {
	base
	prlimit string // resolved by the availability check
}

// NewProcess returns the process engine. It fails on malformed options and on
// WithNetwork(false), which this engine cannot honour.
func NewProcess(opts ...Option) (*Process, error) {
	cfg, err := newConfig(EngineProcess, opts)
	if err != nil {
		return nil, err
	}
	if cfg.network != nil && !*cfg.network {
		return nil, newError(CodeNetworkPolicy, EngineProcess, "", nil,
			"the process engine cannot turn the network off; use the bwrap or gvisor engine")
	}
	e := &Process{}
	e.init(EngineProcess, cfg)
	e.check = func() (err error) {
		e.prlimit, err = prlimitPath(EngineProcess)
		return err
	}
	e.prepare = e.plan
	return e, nil
}

// Name returns "process".
func (e *Process) Name() string { return e.name }

// Available reports whether prlimit (util-linux) is installed.
func (e *Process) Available() error { return e.available() }

// Run runs spec; see [Sandbox.Run].
func (e *Process) Run(ctx context.Context, spec Spec) (*Outcome, error) { return e.run(ctx, spec) }

func (e *Process) plan(spec Spec, dir string, env []string, lim Limits) (*plan, error) {
	// The check resolved prlimit once: binaries do not come and go while a
	// program runs, and a PATH search costs a stat per directory.
	if err := e.available(); err != nil {
		return nil, err
	}
	prl := e.prlimit
	bin, err := lookPath(spec.Argv[0], envValue(env, "PATH"), dir)
	if err != nil {
		return nil, newError(CodeCreateFailed, e.name, "", err, "Spec.Argv[0] %q cannot be run", spec.Argv[0])
	}
	argv := append(rlimitArgs(prl, lim), bin)
	argv = append(argv, spec.Argv[1:]...)
	p := &plan{argv: argv, env: env, dir: dir, cred: e.cfg.user, session: true}
	if lim.Processes > 0 && e.cfg.runsAsRoot() {
		p.unenforced = append(p.unenforced, LimitProcesses)
	}
	return p, nil
}

// rlimitArgs returns "prlimit --core=0 --as=… --cpu=… --fsize=… --nproc=…
// --". CPU gets a hard limit one second over the soft one so the command
// receives SIGXCPU (recognisable) before SIGKILL.
//
// The core size is 0, soft and hard, on every run: otherwise the command
// raised its soft limit to the host's hard one (unlimited) and crashed, and
// the kernel wrote a core dump for it, into the workspace where
// core_pattern is a plain name, and where it is a pipe (systemd-coredump,
// apport) to a helper that runs as root outside the sandbox and keeps the
// dump there (TestAttackS17ECoreDumpPastTheLimits; only the first was
// measured, on a host whose core_pattern is "core"). The kernel writes no
// file for a limit of 0, and systemd-coredump stores no dump for it.
func rlimitArgs(prlimit string, lim Limits) []string {
	a := []string{"--core=0"}
	if lim.Memory > 0 {
		a = append(a, "--as="+strconv.FormatInt(lim.Memory, 10))
	}
	if lim.CPUTime > 0 {
		s := int64((lim.CPUTime + time.Second - 1) / time.Second)
		a = append(a, "--cpu="+strconv.FormatInt(s, 10)+":"+strconv.FormatInt(s+1, 10))
	}
	if lim.FileSize > 0 {
		a = append(a, "--fsize="+strconv.FormatInt(lim.FileSize, 10))
	}
	if lim.Processes > 0 {
		a = append(a, "--nproc="+strconv.Itoa(lim.Processes))
	}
	out := make([]string, 0, len(a)+2)
	out = append(out, prlimit)
	out = append(out, a...)
	return append(out, "--")
}

func prlimitPath(engine string) (string, error) {
	p, err := exec.LookPath("prlimit")
	if err != nil {
		for _, c := range []string{"/usr/bin/prlimit", "/bin/prlimit"} {
			if fi, serr := os.Stat(c); serr == nil && !fi.IsDir() {
				return c, nil
			}
		}
		return "", unavailable(engine, "prlimit not found", "install util-linux (apt-get install util-linux) for prlimit, which applies the rlimits", err)
	}
	return p, nil
}

// lookPath finds name in the command's PATH (not the caller's), the way
// execvp would; names with a slash are taken relative to dir.
func lookPath(name, pathEnv, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return "", err
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return &os.PathError{Op: "exec", Path: p, Err: os.ErrPermission}
	}
	return nil
}
