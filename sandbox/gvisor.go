package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// GVisor is the "gvisor" engine: the command runs under gVisor's user-space
// kernel (runsc), so it never talks to the host kernel directly. The host's
// root is mounted read-only, the workspace writable at its own path, /tmp is a
// fresh tmpfs, the network is off unless [WithNetwork](true) (then runsc
// --network=host), and the command runs with no capabilities, so gVisor
// applies every rlimit (set by prlimit inside the sandbox), RLIMIT_NPROC
// included, even for uid 0.
//
// It uses "runsc run" with a generated OCI bundle rather than "runsc do":
// "do" can only give the command a throw-away overlay of the host (writes are
// lost) or the whole host read-write (--force-overlay=false); a bundle
// expresses "read-only root, one writable directory". runsc gets --rootless
// only when the caller is not root; as root it uses its full isolation.
type GVisor struct {
	base
	bin, prlimit string // resolved by the availability check
}

// NewGVisor returns the gvisor engine. It does not check that runsc is
// installed: [GVisor.Available] and [New] do.
func NewGVisor(opts ...Option) (*GVisor, error) {
	cfg, err := newConfig(EngineGVisor, opts)
	if err != nil {
		return nil, err
	}
	e := &GVisor{}
	e.init(EngineGVisor, cfg)
	e.check = func() (err error) {
		if e.bin, err = e.binary(); err != nil {
			return err
		}
		e.prlimit, err = prlimitPath(e.name)
		return err
	}
	e.prepare = e.plan
	return e, nil
}

// Name returns "gvisor".
func (e *GVisor) Name() string { return e.name }

// Available reports whether runsc and prlimit are installed.
func (e *GVisor) Available() error { return e.available() }

// Run runs spec; see [Sandbox.Run].
func (e *GVisor) Run(ctx context.Context, spec Spec) (*Outcome, error) { return e.run(ctx, spec) }

func (e *GVisor) binary() (string, error) {
	name := e.cfg.binary
	if name == "" {
		name = "runsc"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", unavailable(e.name, "runsc not found", "install gVisor: apt-get install runsc", err)
	}
	return p, nil
}

// The parts of the OCI runtime spec the bundle uses.
type (
	ociSpec struct {
		OCIVersion string     `json:"ociVersion"`
		Process    ociProcess `json:"process"`
		Root       ociRoot    `json:"root"`
		Hostname   string     `json:"hostname"`
		Mounts     []ociMount `json:"mounts"`
		Linux      ociLinux   `json:"linux"`
	}
	ociProcess struct {
		User            ociUser         `json:"user"`
		Args            []string        `json:"args"`
		Env             []string        `json:"env"`
		Cwd             string          `json:"cwd"`
		Capabilities    ociCapabilities `json:"capabilities"`
		NoNewPrivileges bool            `json:"noNewPrivileges"`
	}
	ociUser struct {
		UID uint32 `json:"uid"`
		GID uint32 `json:"gid"`
	}
	ociCapabilities struct {
		Bounding    []string `json:"bounding"`
		Effective   []string `json:"effective"`
		Inheritable []string `json:"inheritable"`
		Permitted   []string `json:"permitted"`
	}
	ociRoot struct {
		Path     string `json:"path"`
		Readonly bool   `json:"readonly"`
	}
	ociMount struct {
		Destination string   `json:"destination"`
		Type        string   `json:"type"`
		Source      string   `json:"source"`
		Options     []string `json:"options,omitempty"`
	}
	ociLinux struct {
		Namespaces []ociNamespace `json:"namespaces"`
	}
	ociNamespace struct {
		Type string `json:"type"`
	}
)

func (e *GVisor) plan(spec Spec, dir string, env []string, lim Limits) (*plan, error) {
	// The check resolved the binaries once (see [Process.plan]).
	if err := e.available(); err != nil {
		return nil, err
	}
	bin, prl := e.bin, e.prlimit
	network := e.cfg.network != nil && *e.cfg.network
	s := ociSpec{
		OCIVersion: "1.0.0",
		Process: ociProcess{
			Args:            append(rlimitArgs(prl, lim), spec.Argv...),
			Env:             env,
			Cwd:             dir,
			Capabilities:    ociCapabilities{Bounding: []string{}, Effective: []string{}, Inheritable: []string{}, Permitted: []string{}},
			NoNewPrivileges: true,
		},
		Root:     ociRoot{Path: "/", Readonly: true},
		Hostname: "sandbox",
		Mounts: []ociMount{
			{Destination: "/proc", Type: "proc", Source: "proc"},
			{Destination: "/dev", Type: "tmpfs", Source: "tmpfs"},
			{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs"},
		},
		Linux: ociLinux{Namespaces: []ociNamespace{{"pid"}, {"ipc"}, {"uts"}, {"mount"}}},
	}
	if u := e.cfg.user; u != nil {
		s.Process.User = ociUser{UID: u.Uid, GID: u.Gid}
	}
	if ws := e.cfg.workspace; ws != "" {
		s.Mounts = append(s.Mounts, ociMount{Destination: ws, Type: "bind", Source: ws, Options: []string{"rbind", "rw"}})
	}
	if !network {
		s.Linux.Namespaces = append(s.Linux.Namespaces, ociNamespace{"network"})
	}
	cfgJSON, err := json.Marshal(s)
	if err != nil {
		return nil, newError(CodeCreateFailed, e.name, "", err, "encoding the OCI spec")
	}

	tmp, err := os.MkdirTemp("", "toolbelt-runsc-")
	if err != nil {
		return nil, newError(CodeCreateFailed, e.name, "", err, "creating the bundle directory")
	}
	cleanup := func() {
		// runsc's sandbox and gofer processes die with runsc, but a moment
		// after it: wait for them (killing any that linger), so that none
		// outlives the run. They all carry the state directory in their
		// command lines. (runsc cannot be made the init of a pid namespace
		// of ours, which would do this by itself: it fails to start its
		// sandbox there.)
		reapLeftovers(tmp, 5*time.Second)
		_ = os.RemoveAll(tmp)
	}
	bundle, state := filepath.Join(tmp, "bundle"), filepath.Join(tmp, "state")
	for _, d := range []string{bundle, state} {
		if err := os.Mkdir(d, 0o700); err != nil {
			cleanup()
			return nil, newError(CodeCreateFailed, e.name, "", err, "creating the bundle directory")
		}
	}
	if err := os.WriteFile(filepath.Join(bundle, "config.json"), cfgJSON, 0o600); err != nil {
		cleanup()
		return nil, newError(CodeCreateFailed, e.name, "", err, "writing the OCI spec")
	}
	var id [8]byte
	_, _ = rand.Read(id[:])

	argv := []string{bin, "--root=" + state}
	if os.Geteuid() != 0 {
		argv = append(argv, "--rootless")
	}
	if network {
		argv = append(argv, "--network=host")
	} else {
		argv = append(argv, "--network=none")
	}
	argv = append(argv, "run", "--bundle", bundle, "toolbelt-"+hex.EncodeToString(id[:]))
	return &plan{argv: argv, env: env, dir: "/", exitSignals: true, cleanup: cleanup}, nil
}
