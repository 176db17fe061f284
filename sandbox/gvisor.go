package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// GVisor is the "gvisor" engine: the command runs under gVisor's user-space
// kernel (runsc), so it never talks to the host kernel directly. The host's
// root is mounted read-only, the workspace writable at its own path, /tmp,
// /var/tmp and /run (and /var/run where it is not a link to /run) are fresh
// tmpfs, as in bwrap (with the network on, the file /etc/resolv.conf leads
// to there is bound read-only), the network is off unless
// [WithNetwork](true) (then runsc --network=host), and the command runs
// with no capabilities, so gVisor
// applies every rlimit (set by prlimit inside the sandbox), RLIMIT_NPROC
// included, even for uid 0. A seccomp filter that gVisor's kernel applies
// (--oci-seccomp) refuses the setuid and setgid bits on files, which would
// belong to the workspace's owner (root's) on the host (see gvisorSeccomp).
//
// When the host process is root, the command runs as uid/gid 65534 (nobody)
// of gVisor's kernel unless [WithUser] says otherwise, so root-only host
// files are unreadable: gVisor's kernel checks every access as that user,
// while its gofer reads the host as root. A workspace owned by another user
// is handed to runsc through an idmapped mount, as bwrap's is (see [Bwrap]).
// WithUser(0, 0) is accepted, as by bwrap: the command keeps uid 0 (root's
// files are readable) but no capability, and the root stays read-only, so
// it cannot chmod host files as it could under landlock.
//
// It uses "runsc run" with a generated OCI bundle rather than "runsc do":
// "do" can only give the command a throw-away overlay of the host (writes are
// lost) or the whole host read-write (--force-overlay=false); a bundle
// expresses "read-only root, one writable directory". runsc gets --rootless
// only when the caller is not root; as root it uses its full isolation.
//
// The workspace's directories that runsc binds over themselves (the
// repository's .git read-only, those above a masked path writable) reach
// it, as root, through mounts of the very directories the plan checked,
// made in a mount namespace of runsc's own (see pinnedMount): a command at
// work in the same workspace cannot swap one for a symlink to a host
// directory before runsc mounts it. Rootless, the caller cannot mount, and
// runsc gets their paths: two runs at once in one workspace can still race
// it there (bwrap pins them by descriptor in both cases).
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
		if e.prlimit, err = prlimitPath(e.name); err != nil {
			return err
		}
		// What runs of programs killed meanwhile left (see runDir): the
		// bundles, and the mount points of idmapped workspaces.
		sweepRunDirs(os.TempDir(), gvisorDirPrefix, removeGVisorDir)
		sweepRunDirs(idmapBase, idmapDirPrefix, removeIdmapDir)
		return nil
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

// credential returns the user the command runs as in gVisor's kernel:
// WithUser's, else 65534 when the host process is root, else nil (uid 0 of
// a rootless sandbox, whose gofer has the caller's own rights on the host).
func (e *GVisor) credential() *syscall.Credential {
	if e.cfg.user == nil && os.Geteuid() == 0 {
		return &syscall.Credential{Uid: sandboxUser, Gid: sandboxUser}
	}
	return e.cfg.user
}

// mapWorkspace returns where runsc finds the workspace ws for a command run
// as cred by a root host process, the function that starts runsc and the
// one that releases what it made. A workspace cred owns is bound as it is.
// Another's (root's, the developer's) is handed over through an idmapped
// mount, as bwrap's is (see idmapDir): its owner's files appear as the
// command's, so gVisor's kernel lets the command write them, and what the
// command creates belongs to the owner on the host. Files of a third user
// stay read-only for it. runsc is started from the thread whose mount
// namespace alone holds the mapped tree; its gofer inherits it. then, when
// not nil, further changes that thread once the tree is attached; open
// opens a path in the mapped tree (nil when the workspace is bound as it
// is).
func (e *GVisor) mapWorkspace(ws string, cred *syscall.Credential, then func() error) (string, func(*exec.Cmd) error, func(), func(rel string) (*os.File, error), error) {
	uid, gid, err := ownerOf(ws)
	if err != nil {
		return "", nil, nil, nil, newError(CodeCreateFailed, e.name, "", err, "WithWorkspace(%q)", ws)
	}
	if uid == cred.Uid && gid == cred.Gid {
		return ws, nil, func() {}, nil, nil
	}
	ids := idMap{ownerUID: uid, ownerGID: gid, asUID: cred.Uid, asGID: cred.Gid,
		rootAs: true, rootUID: spareID(uid), rootGID: spareID(gid)}
	path, start, release, open, err := idmapDir(ws, ids, then)
	if err != nil {
		return "", nil, nil, nil, newError(CodeCreateFailed, e.name, "", err,
			"the workspace %q is owned by %d:%d and commands run as %d:%d; mapping it for them failed: chown the workspace to %d:%d or pass WithUser(%d, %d)",
			ws, uid, gid, cred.Uid, cred.Gid, cred.Uid, cred.Gid, uid, gid)
	}
	return path, start, release, open, nil
}

// spareID is the on-disk id that runsc's gofer, host root, creates files as
// in an idmapped workspace before it gives them to the command (see
// idMap): 65534, or 65533 where the workspace's owner is 65534.
func spareID(owner uint32) uint32 {
	if owner == sandboxUser {
		return sandboxUser - 1
	}
	return sandboxUser
}

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
		Seccomp    *ociSeccomp    `json:"seccomp,omitempty"`
	}
	ociSeccomp struct {
		DefaultAction string       `json:"defaultAction"`
		Syscalls      []ociSyscall `json:"syscalls"`
	}
	ociSyscall struct {
		Names    []string     `json:"names"`
		Action   string       `json:"action"`
		ErrnoRet uint         `json:"errnoRet"`
		Args     []ociSeccArg `json:"args,omitempty"`
	}
	ociSeccArg struct {
		Index    uint   `json:"index"`
		Value    uint64 `json:"value"`
		ValueTwo uint64 `json:"valueTwo"`
		Op       string `json:"op"`
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
			Cwd:             realDir(e.cfg.workspace, dir),
			Capabilities:    ociCapabilities{Bounding: []string{}, Effective: []string{}, Inheritable: []string{}, Permitted: []string{}},
			NoNewPrivileges: true,
		},
		Root:     ociRoot{Path: "/", Readonly: true},
		Hostname: "sandbox",
		Mounts: []ociMount{
			{Destination: "/proc", Type: "proc", Source: "proc"},
			{Destination: "/dev", Type: "tmpfs", Source: "tmpfs"},
			{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: tmpfsSize(lim.Memory)},
			// runsc mounts an unbounded tmpfs here unless the spec has one.
			{Destination: "/dev/shm", Type: "tmpfs", Source: "tmpfs", Options: tmpfsSize(lim.Memory)},
		},
		Linux: ociLinux{Namespaces: []ociNamespace{{"pid"}, {"ipc"}, {"uts"}, {"mount"}}, Seccomp: gvisorSeccomp()},
	}
	// Fresh, empty directories where bwrap has them too: containers and
	// services are handed their secrets under /run (a pod's service-account
	// token, Docker's /run/secrets, systemd's /run/credentials), which the
	// host's root showed (TestAttackS28CommandReadsContainerSecretsUnderRun).
	for _, d := range []string{"/var/tmp", "/run", "/var/run"} {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			s.Mounts = append(s.Mounts, ociMount{Destination: d, Type: "tmpfs", Source: "tmpfs", Options: tmpfsSize(lim.Memory)})
		}
	}
	// With the network on, the name servers' file where /etc/resolv.conf
	// leads into one of them (systemd-resolved's, see resolverFile).
	if r := resolverFile([]string{"/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm"}); network && r != "" {
		s.Mounts = append(s.Mounts, ociMount{Destination: r, Type: "bind", Source: r, Options: []string{"bind", "ro"}})
	}
	// As root, the command runs as 65534 (or WithUser's user) in gVisor's
	// kernel, which checks its access to files as that user's: as uid 0 it
	// read every root-only host file (/etc/shadow, /root/.ssh), since the
	// gofer reads the host as root (TestAttackGVisorReadsRootOnlyHostFiles).
	cred := e.credential()
	if cred != nil {
		s.Process.User = ociUser{UID: cred.Uid, GID: cred.Gid}
	}
	rd, err := makeRunDir(os.TempDir(), gvisorDirPrefix)
	if err != nil {
		return nil, newError(CodeCreateFailed, e.name, "", err, "creating the bundle directory")
	}
	var start func(*exec.Cmd) error
	var pinned []pinnedMount
	release := func() {}
	cleanup := func() {
		// runsc's processes first: the gofer serves the workspace from
		// the mapped tree until it is gone.
		removeGVisorDir(rd)
		rd.unlock()
		release()
	}
	// The program's runtime and temporary directories that hold the
	// workspace: empty, as /tmp is, but for the path to the workspace
	// (hostDirsAbove).
	for _, d := range hostDirsAbove(e.cfg.workspace, cred) {
		s.Mounts = append(s.Mounts, ociMount{Destination: d, Type: "tmpfs", Source: "tmpfs", Options: []string{"size=4k", "mode=755", "ro"}})
	}
	if ws := e.cfg.workspace; ws != "" {
		src := ws
		open := func(rel string) (*os.File, error) { return openBeneathDir(ws, rel) }
		if cred != nil && os.Geteuid() == 0 {
			mappedSrc, mappedStart, mappedRelease, mapped, err := e.mapWorkspace(ws, cred, func() error { return attachPinned(open, pinned) })
			if err != nil {
				cleanup()
				return nil, err
			}
			src, start, release = mappedSrc, mappedStart, mappedRelease
			if mapped != nil {
				open = mapped
			}
			// A directory on the way to the workspace that the command's
			// user cannot search (/root, 0700) would keep it out of its
			// workspace: an empty tmpfs replaces it, as in bwrap (what it
			// held was out of that user's reach anyway).
			if d := unsearchableAncestor(ws, cred.Uid, cred.Gid); d != "" {
				s.Mounts = append(s.Mounts, ociMount{Destination: d, Type: "tmpfs", Source: "tmpfs", Options: []string{"size=1m", "mode=755"}})
			}
		}
		s.Mounts = append(s.Mounts, ociMount{Destination: ws, Type: "bind", Source: src, Options: []string{"rbind", "rw"}})
		// bind binds rel, a directory or file of the workspace, over
		// itself. As root, runsc gets it pinned (see pinnedMount): given
		// the workspace's path, its gofer resolved it on the host when it
		// mounted, a moment after the plan checked it, and a command at
		// work in the same workspace that swapped it for a symlink in
		// between had the host directory the link reached bound into the
		// run, writable above a masked path
		// (TestAttackS25GVisorSwapAfterThePlan). One no longer a directory
		// or file (swapped already) is not bound, as a symlink is not by
		// repoDirs and maskParents. Rootless, runsc gets the path: the
		// caller cannot mount.
		bind := func(rel, mode string) error {
			source := filepath.Join(src, filepath.FromSlash(rel))
			if os.Geteuid() == 0 {
				f, err := open(rel)
				if err != nil {
					return nil
				}
				fi, err := f.Stat()
				f.Close()
				if err != nil {
					return err
				}
				source = filepath.Join(rd.path, "pin"+strconv.Itoa(len(pinned)))
				if fi.IsDir() {
					err = os.Mkdir(source, 0o700)
				} else {
					err = os.WriteFile(source, nil, 0o600)
				}
				if err != nil {
					return err
				}
				pinned = append(pinned, pinnedMount{rel: rel, target: source})
			}
			s.Mounts = append(s.Mounts, ociMount{Destination: filepath.Join(ws, filepath.FromSlash(rel)), Type: "bind", Source: source, Options: []string{"rbind", mode}})
			return nil
		}
		// The repository's own directory is read-only (repoDirs); masks go
		// over it. Each directory above a masked path (a home credential
		// store in the workspace, or a git directory apart, too:
		// pinnedMask) is a mount point, which no command can rename
		// (maskParents, none in the read-only repository).
		var err error
		repo := e.cfg.repoDirs(ws)
		for _, r := range repo {
			if err = bind(r, "ro"); err != nil {
				break
			}
		}
		for _, d := range maskParents(ws, e.cfg.pinnedMask(ws, spec.Mask, repo, cred), repo) {
			if err != nil {
				break
			}
			err = bind(d, "rw")
		}
		if err != nil {
			cleanup()
			return nil, newError(CodeCreateFailed, e.name, "", err, "making the mount points of the workspace's pinned directories")
		}
		if len(pinned) > 0 && start == nil {
			// The workspace is bound as it is: runsc starts from a thread
			// whose mount namespace alone holds the pinned mounts.
			var stop func()
			start, stop = threadStart(func() error {
				if err := privateMountNS(); err != nil {
					return fmt.Errorf("a mount namespace for the workspace's pinned directories: %w", err)
				}
				return attachPinned(open, pinned)
			})
			release = stop
		}
	}
	// What the workspace hides and the home's credential stores (masks).
	dirs, files := e.cfg.masks(e.cfg.workspace, spec.Mask, e.credential())
	for _, d := range dirs {
		s.Mounts = append(s.Mounts, ociMount{Destination: d, Type: "tmpfs", Source: "tmpfs", Options: []string{"size=4k", "mode=555", "ro"}})
	}
	for _, file := range files {
		s.Mounts = append(s.Mounts, ociMount{Destination: file, Type: "bind", Source: "/dev/null", Options: []string{"bind", "ro"}})
	}
	if n := countBinds(s.Mounts); n > gvisorMaxBinds {
		cleanup()
		return nil, newError(CodeCreateFailed, e.name, "", ErrInvalidSpec,
			"the run needs %d bind mounts (%d masked paths among them, and the directories above them), over the %d runsc starts with: keep the files a command must not see in fewer directories and name the directories in the rules, or run the command in bwrap, which masks up to %d paths", n, len(files)+len(dirs), gvisorMaxBinds, MaxMasked)
	}
	if !network {
		s.Linux.Namespaces = append(s.Linux.Namespaces, ociNamespace{"network"})
	}
	cfgJSON, err := json.Marshal(s)
	if err != nil {
		cleanup()
		return nil, newError(CodeCreateFailed, e.name, "", err, "encoding the OCI spec")
	}

	tmp := rd.path
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

	// --ignore-cgroups: runsc otherwise makes a cgroup in every hierarchy
	// for each container, and removes it only when it exits on its own; a
	// run killed at its timeout or cancelled left one behind in each, for
	// good. The spec asks for no cgroup limits (the rlimits are gVisor's),
	// so nothing is lost.
	argv := []string{bin, "--root=" + state, "--oci-seccomp", "--ignore-cgroups"}
	if os.Geteuid() != 0 {
		argv = append(argv, "--rootless")
	}
	if network {
		argv = append(argv, "--network=host")
	} else {
		argv = append(argv, "--network=none")
	}
	argv = append(argv, "run", "--bundle", bundle, "toolbelt-"+hex.EncodeToString(id[:]))
	// runsc runs on the host: the command's Go runtime settings reach only
	// the sandbox, through the spec (see withoutGoRuntime).
	return &plan{argv: argv, env: withoutGoRuntime(env), dir: "/", exitSignals: true, cleanup: cleanup, start: start}, nil
}

// gvisorMaxBinds bounds a run's bind mounts. runsc hands its sandbox a
// descriptor per bind mount, below the descriptor (256) where it moves the
// container's stdio: with runsc 20221219 a spec of 239 binds never started
// ("unable to remap stdios, FD 256 is already in use"; the run "exited"
// with status 128), one of 237 did. The bound leaves room for the
// descriptors runsc takes besides (TestGVisorRefusesMoreBindsThanRunscStarts).
const gvisorMaxBinds = 200

// countBinds returns how many of mounts are bind mounts.
func countBinds(mounts []ociMount) int {
	n := 0
	for _, m := range mounts {
		if m.Type == "bind" {
			n++
		}
	}
	return n
}

// pinnedMount is a directory or regular file of the workspace (rel,
// slash-separated) and the empty mount point where attachPinned makes that
// very directory or file reachable by a path no command can change, for
// runsc, which takes mount sources as paths only.
type pinnedMount struct {
	rel, target string
}

// realDir is dir, in the workspace ws, under the path ws's symlinks lead
// to. runsc's gofer follows a link in a mount's destination on the host,
// so it mounts the workspace where the link leads; a link in /tmp is not
// in the run's fresh /tmp, where runsc looked for the command's directory
// and failed to start. Outside the workspace, or when ws cannot be
// resolved, dir is left as it is.
func realDir(ws, dir string) string {
	if ws == "" {
		return dir
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil || real == ws {
		return dir
	}
	rel, err := filepath.Rel(ws, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return dir
	}
	return filepath.Join(real, rel)
}

// gvisorDirPrefix names the directories that hold a run's bundle and
// runsc's state, under os.TempDir().
const gvisorDirPrefix = "toolbelt-runsc-"

// removeGVisorDir removes a run's bundle and state directory once its
// processes are gone. runsc's sandbox and gofer processes die with runsc,
// but a moment after it: wait for them (killing any that linger), so that
// none outlives the run. They all carry the state directory in their
// command lines, as the whole argument --root=DIR/state: a path of which
// DIR is only a part (/var/tmp/toolbelt-runsc-N-locked for
// /tmp/toolbelt-runsc-N-locked, which another user may have planted for a
// sweep) is another program's live run. (runsc cannot be made the init of
// a pid namespace of ours, which would do this by itself: it fails to
// start its sandbox there.)
func removeGVisorDir(d *runDir) {
	reapLeftovers("\x00--root="+filepath.Join(d.path, "state")+"\x00", 5*time.Second)
	_ = os.RemoveAll(d.path)
}

// tmpfsSize is the mount option that bounds a tmpfs to the memory limit
// (none for no limit). gVisor's tmpfs, left unbounded, grows the sandbox's
// memory with what the command writes there, which counts against no
// process's address space: a command with a 128 MiB limit kept as much of
// the host's memory in /tmp and /dev/shm as it liked.
func tmpfsSize(memory int64) []string {
	if memory <= 0 {
		return nil
	}
	return []string{"size=" + strconv.FormatInt(memory, 10)}
}

// gvisorSeccomp is the filter gVisor's kernel applies to the command
// (--oci-seccomp): it refuses (EPERM) to give a file the setuid or setgid
// bit, by chmod or at creation, and refuses openat2(2) and io_uring_setup(2),
// as bwrap's filter does (see bwrapFilter). It asks for ENOSYS, but runsc
// 20221219 ignores the errno and answers EPERM (openat2 is ENOSYS anyway:
// gVisor's kernel lacks it). The files the command creates in a root-owned
// workspace belong to root on the host (the idmapped mount makes the
// command's uid the owner's; WithUser(0, 0) is root itself): a setuid-root
// program left there would run as root for any local user who reaches it
// (TestAttackIdmappedSetuidRoot).
func gvisorSeccomp() *ociSeccomp {
	// Linux's values, whatever this program is built for.
	const (
		creat          = 0o100      // O_CREAT
		tmpfile        = 0o20000000 // __O_TMPFILE
		setuid, setgid = 0o4000, 0o2000
		eperm, enosys  = 1, 38
	)
	f := &ociSeccomp{DefaultAction: "SCMP_ACT_ALLOW"}
	deny := func(name string, args ...ociSeccArg) {
		f.Syscalls = append(f.Syscalls, ociSyscall{Names: []string{name}, Action: "SCMP_ACT_ERRNO", ErrnoRet: eperm, Args: args})
	}
	bit := func(i uint, b uint64) ociSeccArg {
		return ociSeccArg{Index: i, Value: b, ValueTwo: b, Op: "SCMP_CMP_MASKED_EQ"}
	}
	for _, c := range gvisorModeCalls() {
		for _, id := range []uint64{setuid, setgid} {
			if c.flags < 0 {
				deny(c.name, bit(uint(c.mode), id))
				continue
			}
			for _, fl := range []uint64{creat, tmpfile} {
				deny(c.name, bit(uint(c.flags), fl), bit(uint(c.mode), id))
			}
		}
	}
	// memfd_create as bwrap's filter does: gVisor's memory files count
	// against no address space either (see bwrapFilter).
	for _, name := range []string{"openat2", "io_uring_setup", "memfd_create"} {
		f.Syscalls = append(f.Syscalls, ociSyscall{Names: []string{name}, Action: "SCMP_ACT_ERRNO", ErrnoRet: enosys})
	}
	deny("shmget")
	deny("msgget")
	return f
}

// gvisorModeCall names a system call that sets a file's mode, the argument
// that holds the mode, and the flags argument (-1 for none) whose O_CREAT
// or O_TMPFILE says whether the mode is used.
type gvisorModeCall struct {
	name        string
	mode, flags int
}

// gvisorModeCalls are those calls on this architecture (arm64 has no chmod,
// creat, mknod or open). runsc skips a name its kernel does not know:
// runsc 20221219 has no fchmodat2 (it answers ENOSYS), and one that has it
// applies the rule.
func gvisorModeCalls() []gvisorModeCall {
	calls := []gvisorModeCall{{"fchmod", 1, -1}, {"fchmodat", 2, -1}, {"fchmodat2", 2, -1}, {"mknodat", 2, -1}, {"openat", 3, 2}}
	if runtime.GOARCH == "amd64" {
		calls = append(calls, gvisorModeCall{"chmod", 1, -1}, gvisorModeCall{"creat", 1, -1}, gvisorModeCall{"mknod", 1, -1}, gvisorModeCall{"open", 2, 1})
	}
	return calls
}
