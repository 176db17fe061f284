package sandbox

import (
	"bytes"
	"context"
	"os/exec"
)

// Bwrap is the "bwrap" engine (bubblewrap): the command sees the host's root
// read-only, the workspace writable at its own path, a fresh /tmp, its own
// /proc and /dev, and runs in new pid, ipc, uts and (unless [WithNetwork](true))
// network namespaces, in a new session, dying with its parent. Rlimits are set
// by prlimit inside the sandbox. Its pid namespace means no descendant can
// outlive the run, setsid or not.
type Bwrap struct {
	base
	bin, prlimit string // resolved by the availability check
}

// NewBwrap returns the bwrap engine. It does not check that bwrap is
// installed: [Bwrap.Available] and [New] do.
func NewBwrap(opts ...Option) (*Bwrap, error) {
	cfg, err := newConfig(EngineBwrap, opts)
	if err != nil {
		return nil, err
	}
	e := &Bwrap{}
	e.init(EngineBwrap, cfg)
	e.check = e.probe
	e.prepare = e.plan
	return e, nil
}

// Name returns "bwrap".
func (e *Bwrap) Name() string { return e.name }

// Available reports whether bwrap and prlimit are installed and bwrap can
// create its namespaces here (it runs a probe once).
func (e *Bwrap) Available() error { return e.available() }

// Run runs spec; see [Sandbox.Run].
func (e *Bwrap) Run(ctx context.Context, spec Spec) (*Outcome, error) { return e.run(ctx, spec) }

func (e *Bwrap) binary() (string, error) {
	name := e.cfg.binary
	if name == "" {
		name = "bwrap"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", unavailable(e.name, "bwrap not found", "install bubblewrap: apt-get install bubblewrap", err)
	}
	return p, nil
}

func (e *Bwrap) probe() error {
	bin, err := e.binary()
	if err != nil {
		return err
	}
	prl, err := prlimitPath(e.name)
	if err != nil {
		return err
	}
	e.bin, e.prlimit = bin, prl
	argv := append([]string{bin}, e.flags("/")...)
	cmd := exec.Command(argv[0], append(argv[1:], "true")...)
	cmd.Env = []string{"PATH=" + DefaultPath}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return unavailable(e.name, "bwrap cannot create its sandbox on this host",
			"bwrap needs user namespaces (or root); stderr: "+string(bytes.TrimSpace(stderr.Bytes())), err)
	}
	return nil
}

// flags are bwrap's options up to and including "--".
func (e *Bwrap) flags(dir string) []string {
	f := []string{
		"--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts",
	}
	if e.cfg.network == nil || !*e.cfg.network {
		f = append(f, "--unshare-net")
	}
	f = append(f,
		"--hostname", "sandbox",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	)
	if ws := e.cfg.workspace; ws != "" {
		f = append(f, "--bind", ws, ws)
	}
	return append(f, "--chdir", dir, "--")
}

func (e *Bwrap) plan(spec Spec, dir string, env []string, lim Limits) (*plan, error) {
	// The check resolved the binaries once (see [Process.plan]).
	if err := e.available(); err != nil {
		return nil, err
	}
	bin, prl := e.bin, e.prlimit
	argv := []string{bin}
	argv = append(argv, e.flags(dir)...)
	argv = append(argv, rlimitArgs(prl, lim)...)
	argv = append(argv, spec.Argv...)
	p := &plan{argv: argv, env: env, dir: "/", cred: e.cfg.user, exitSignals: true}
	if lim.Processes > 0 && e.cfg.runsAsRoot() {
		p.unenforced = append(p.unenforced, LimitProcesses)
	}
	return p, nil
}
