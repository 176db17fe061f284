package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
)

// EngineLandlock is the name of the Landlock engine ([Landlock]).
const EngineLandlock = "landlock"

// What the Landlock engine reports in [Outcome.Unenforced] when the kernel's
// Landlock is too old for part of its policy. The run goes ahead without
// that part, and says so in every outcome.
const (
	// UnenforcedSignals: signals to processes outside the sandbox are not
	// blocked (needs Landlock ABI 6).
	UnenforcedSignals = "signals"
	// UnenforcedAbstractUnix: abstract unix sockets outside the sandbox can
	// be reached (needs Landlock ABI 6).
	UnenforcedAbstractUnix = "abstract unix sockets"
	// UnenforcedUnixPaths: unix sockets at paths on the host (under /run,
	// /tmp, ...) can still be connected to. No longer reported: before
	// Landlock ABI 9, which restricts resolving them, the engine's seccomp
	// filter refuses unix sockets, with the network off and on.
	UnenforcedUnixPaths = "unix socket paths"
	// UnenforcedSyscallFilter: the engine's seccomp filter is not
	// installed, because none is written for the architecture (it is for
	// amd64, arm64 and riscv64; elsewhere the engine runs with the network
	// on only): setting setuid and setgid bits, System V IPC, keyrings and
	// new user namespaces are not refused.
	UnenforcedSyscallFilter = "system call filter"
)

// nobody is the uid and gid the Landlock engine runs commands as when the
// host process is root and [WithUser] is not given.
const nobody = 65534

// Landlock is the "landlock" engine: the command runs as a host process,
// like the process engine, confined by the kernel's Landlock LSM (Linux
// 5.13 and later). It needs neither user namespaces nor a helper binary,
// only prlimit, and is the engine for hosts where bwrap cannot run — the way
// the Codex CLI confines commands on Linux.
//
// What the command may do:
//   - read and execute anything on the host but devices (Landlock restricts
//     access, not visibility: host processes and their command lines stay
//     visible); of /dev it reads only null, zero, full, random and urandom,
//     so not the terminals of its own user (/dev/pts/N); nor the home's
//     credential stores ([DefaultHomeSecrets], unless [WithHomeSecrets];
//     one inside the workspace stays readable; one made during the run
//     neither), nor the secrets containers and services are handed under
//     /run (hostSecretDirs), nor the users' runtime directories (/run/user,
//     $XDG_RUNTIME_DIR), nor the host's temporary directories (/tmp,
//     /var/tmp, /dev/shm: hostTmpDirs, and the program's $TMPDIR, $TEMP
//     and $TMP: programTmpDirs), where other programs of the
//     command's user leave Kerberos ticket caches, ssh-agent's and tmux's
//     directories and other runs' files, and which bwrap and gvisor replace
//     with fresh ones: each is left out of the rules that grant reading,
//     also where another mount shows it (see landlockHidden); every
//     directory stays listable, these too;
//   - write only in the workspace and in a private temporary directory made
//     for the run (on a tmpfs where the host has one: the host's temporary
//     directory or /dev/shm), passed as TMPDIR and removed afterwards; both
//     keep their rules where they lie under /tmp (Landlock does not restrict
//     going through a directory); /tmp itself is neither readable nor
//     writable, everything else is read-only (writing there fails with
//     EACCES); /dev/null, /dev/zero and /dev/full stay writable;
//   - with the network off (the default, [WithNetwork]), not bind or connect
//     any TCP port (Landlock ABI 4), and not create any socket other than a
//     unix one (a seccomp filter; this covers UDP, raw and netlink sockets,
//     and io_uring, which could create sockets, is refused);
//   - network on or off, not reach the host's unix sockets at paths: a
//     tmux server's (/tmp/tmux-UID/default, through which a command runs
//     outside the sandbox), ssh-agent's, Docker's /var/run/docker.sock,
//     the session bus, an X server's, /dev/log, which bwrap and gvisor hide
//     behind fresh /tmp and /run. Before Landlock ABI 9 the seccomp filter
//     refuses creating unix sockets with socket(2), and datagram ones with
//     socketpair(2) (which send to any path); stream and seqpacket pairs,
//     for IPC inside the run, stay. So before ABI 9 the command cannot make
//     unix sockets of its own either (a server listening in the workspace,
//     tmux started inside the run), and glibc's lookups skip the sockets
//     of nscd and systemd (they go on to the next source of
//     /etc/nsswitch.conf: the files, DNS). From ABI 9 Landlock allows
//     resolving only the sockets in the workspace and the run's TMPDIR;
//   - not give a file the setuid or setgid bit (the seccomp filter; also
//     with the network on, where it refuses openat2 and io_uring too);
//   - not connect to abstract unix sockets, nor send signals to processes,
//     outside its own sandbox (Landlock ABI 6 scoping);
//   - not mount or unmount anything (Landlock forbids it);
//   - not make a user namespace (the seccomp filter refuses unshare and
//     clone with CLONE_NEWUSER, and clone3), in which it would hold every
//     capability, and reach kernel code that asks only for one there.
//
// When the host process is root and [WithUser] is not given, the command
// runs as uid and gid 65534 (nobody), so that it has no capabilities and
// cannot read root-only files; the workspace must then be writable by that
// user. [WithUser] with uid 0 is refused ([ErrInvalidSpec]): Landlock does
// not restrict metadata, and uid 0, even without capabilities, owns every
// root-owned file on the host, so it could chmod any of them (/etc/passwd
// mode 0666) for any local user to write. Capabilities are never kept:
// Landlock holds against them, but other kernel interfaces would not.
//
// When the host process is root, each run has a pid namespace of its own
// (root needs no user namespace for it), whose first process is a shell
// (/bin/sh) that runs the command and exits with its status, 128+n for a
// command killed by signal n (read back as [Outcome.Signal], as for bwrap),
// under the run's limits like the command, which can ptrace it: when it
// ends, at the command's exit, timeout, cancellation or the
// program's death, the kernel kills every process of the run, also one
// that left the process group (setsid). The command sees the host's /proc,
// but its own pids are the namespace's ($! and $$ name no host process).
// Run by a program that is not root, a process that leaves the process
// group is not killed at the end of the run, as with the process engine.
//
// What it does not do: no mount or network namespace. With the network on,
// every TCP, UDP, raw and netlink socket is allowed, unix sockets aside
// (above). Before ABI 6, signals and abstract unix sockets are not scoped
// ([UnenforcedSignals], [UnenforcedAbstractUnix]). On an
// architecture it has no seccomp filter for (ppc64le, s390x, ...) it runs
// with the network on only, without the filter
// ([UnenforcedSyscallFilter]). Without
// Landlock, or with the network off on a kernel before ABI 4, the engine is
// unavailable rather than weaker.
//
// The confinement applies to the command only: the calling process stays
// unrestricted. Each run locks a goroutine to a new OS thread, restricts
// that thread (no_new_privs, a seccomp filter, the
// Landlock domain), starts the command from it — a child inherits its
// creating thread's restrictions — and lets the runtime discard the thread
// when the run ends.
type Landlock struct {
	base
	prlimit string // resolved by the availability check
	sh      string // the first process of a root host's runs (see plan), resolved by the check
	tmpBase string // where the runs' private temporary directories go, chosen by the check
	abi     int    // the kernel's Landlock ABI, set by the availability check
	// maxABI, when set, caps the ABI used, as if the kernel were older.
	// Tests use it to check what older kernels enforce and report.
	maxABI int
}

// NewLandlock returns the Landlock engine. It does not check that the kernel
// has Landlock: [Landlock.Available] and [New] do.
func NewLandlock(opts ...Option) (*Landlock, error) {
	cfg, err := newConfig(EngineLandlock, opts)
	if err != nil {
		return nil, err
	}
	if u := cfg.user; u != nil && u.Uid == 0 {
		return nil, newError(CodeCreateFailed, EngineLandlock, "", ErrInvalidSpec,
			"WithUser(0, %d): the landlock engine does not run commands as uid 0: Landlock does not restrict metadata, and uid 0 owns every root-owned file on the host, so with no capability it could chmod any of them (chmod 666 /etc/passwd) for any local user to write; pass WithUser with another uid (as root the default is 65534), or use the bwrap or gvisor engine, whose root is read-only",
			u.Gid)
	}
	e := &Landlock{}
	e.init(EngineLandlock, cfg)
	e.check = e.probe
	e.prepare = e.plan
	return e, nil
}

// Name returns "landlock".
func (e *Landlock) Name() string { return e.name }

// Available reports whether the kernel has Landlock (and, with the network
// off, Landlock ABI 4 for TCP) and whether prlimit is installed.
func (e *Landlock) Available() error { return e.available() }

// Run runs spec; see [Sandbox.Run].
func (e *Landlock) Run(ctx context.Context, spec Spec) (*Outcome, error) { return e.run(ctx, spec) }

// ABI returns the kernel's Landlock ABI version the engine uses, or 0 when
// the kernel has no Landlock.
func (e *Landlock) ABI() int {
	_ = e.available() // sets e.abi, also when the engine is unavailable for another reason
	return e.abi
}

func (e *Landlock) networkOff() bool { return e.cfg.network == nil || !*e.cfg.network }

// landlockVersion asks the kernel for its Landlock ABI; tests replace it to
// see what a kernel without Landlock is told.
var landlockVersion = landlockABI

func (e *Landlock) probe() error {
	abi, err := landlockVersion()
	if err != nil {
		return unavailable(e.name, "the kernel has no Landlock",
			"Landlock needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK and \"landlock\" in the lsm= boot parameter; otherwise use the bwrap or gvisor engine", err)
	}
	if e.maxABI > 0 && abi > e.maxABI {
		abi = e.maxABI
	}
	e.abi = abi
	if abi < 4 && e.networkOff() {
		return newError(CodeNetworkPolicy, e.name, "",
			fmt.Errorf("%w: Landlock ABI %d cannot restrict TCP (ABI 4, Linux 6.7, can)", ErrUnavailable, abi),
			"the network cannot be turned off on this kernel; pass WithNetwork(true) to run with it on, or use the bwrap or gvisor engine")
	}
	if e.networkOff() && socketFilterArch() == 0 {
		return newError(CodeNetworkPolicy, e.name, "",
			fmt.Errorf("%w: no socket filter for this architecture", ErrUnavailable),
			"the network cannot be turned off here (only TCP would be); pass WithNetwork(true), or use the bwrap or gvisor engine")
	}
	prl, err := prlimitPath(e.name)
	if err != nil {
		return err
	}
	e.prlimit = prl
	if os.Geteuid() == 0 {
		if e.sh, err = exec.LookPath("/bin/sh"); err != nil {
			return unavailable(e.name, "sh not found",
				"install a POSIX shell (/bin/sh, apt-get install dash): as root each run's command is started by one, the first process of the run's pid namespace", err)
		}
	}
	e.tmpBase = tmpBase()
	// What runs of programs killed meanwhile left (see runDir).
	sweepRunDirs(e.tmpBase, landlockDirPrefix, (*runDir).removeAll)
	return nil
}

// landlockDirPrefix names the runs' private temporary directories.
const landlockDirPrefix = "toolbelt-landlock-tmp-"

func (e *Landlock) plan(spec Spec, dir string, env []string, lim Limits) (*plan, error) {
	// The check resolved prlimit and the ABI once (see [Process.plan]).
	if err := e.available(); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 { // started through a shell (below)
		if err := shellStartedEnv(e.name, spec.Env); err != nil {
			return nil, err
		}
	}
	bin, err := lookPath(spec.Argv[0], envValue(env, "PATH"), dir)
	if err != nil {
		return nil, newError(CodeCreateFailed, e.name, "", err, "Spec.Argv[0] %q cannot be run", spec.Argv[0])
	}
	limits := rlimitArgs(e.prlimit, lim)
	argv := append(append(limits, bin), spec.Argv[1:]...)

	cred := e.credential()
	if ws := e.cfg.workspace; ws != "" && cred != nil {
		if err := writableBy(ws, cred.Uid, cred.Gid); err != nil {
			return nil, newError(CodeCreateFailed, e.name, "", err,
				"commands run as uid %d and need to write the workspace %q: chown it to %d:%d (its parents must let that user in), or pass WithUser with its owner",
				cred.Uid, ws, cred.Uid, cred.Gid)
		}
	}
	rd, err := makeRunDir(e.tmpBase, landlockDirPrefix)
	if err != nil {
		return nil, newError(CodeCreateFailed, e.name, "", err, "creating the run's private temporary directory")
	}
	tmp := rd.path
	removeTmp := func() {
		rd.removeAll()
		rd.unlock()
	}
	if cred != nil {
		if err := os.Chown(tmp, int(cred.Uid), int(cred.Gid)); err != nil {
			removeTmp()
			return nil, newError(CodeCreateFailed, e.name, "", err, "giving the run's temporary directory to uid %d", cred.Uid)
		}
	}
	writable := []string{tmp}
	if e.cfg.workspace != "" {
		writable = append(writable, e.cfg.workspace)
	}
	pol := landlockPolicy{
		abi:        e.abi,
		networkOff: e.networkOff(),
		writable:   writable,
		hidden:     e.cfg.landlockHidden(cred),
		dropCaps:   os.Geteuid() == 0,
		user:       cred,
	}
	conf, err := pol.prepare()
	if err != nil {
		removeTmp()
		return nil, newError(CodeCreateFailed, e.name, "", err, "building the Landlock ruleset")
	}
	if envValue(spec.Env, "TMPDIR") == "" {
		env = append(env, "TMPDIR="+tmp)
	}
	p := &plan{argv: argv, env: env, dir: dir, cred: cred, start: conf.start, session: true, ownPipes: true}
	if os.Geteuid() == 0 {
		// A child that left the run's process group (setsid) outlived the
		// run, and wrote in the workspace after it (TestAttackLandlockSetsidEscapee).
		// Root makes the command a pid namespace of its own (no user
		// namespace needed): when its first process dies, the kernel kills
		// every other. That first process is a shell that runs the command
		// and exits with its status (128+n for signal n): the first
		// process of a pid namespace ignores the signals it has no handler
		// for, so the command itself would outlive SIGXCPU and SIGXFSZ.
		// The shell gets the run's rlimits too (prlimit starts it): it
		// runs as the command's user in the command's Landlock domain,
		// so the command can ptrace it, and an unlimited shell mapped 1
		// GiB for it under a 256 MiB limit
		// (TestAttackReviewS13LandlockInitEscapesLimits).
		limits := rlimitArgs(e.prlimit, shellStartedLimits(lim))
		p.argv = append(append(limits[:len(limits):len(limits)], e.sh, "-c", `"$@"; exit $?`, "sh", bin), spec.Argv[1:]...)
		p.pidns, p.exitSignals = true, true
	}
	p.cleanup = func() {
		conf.release()
		removeTmp()
	}
	// The command is never uid 0 (NewLandlock refuses it, a root host's
	// default is 65534), so RLIMIT_NPROC always applies.
	p.unenforced = pol.unenforced(socketFilterArch())
	return p, nil
}

// hostSecretDirs are where containers and services are handed their
// secrets as files: a Kubernetes pod's service-account token
// (/var/run/secrets/kubernetes.io/serviceaccount), Docker's and Podman's
// secrets (/run/secrets), systemd's credentials (/run/credentials). bwrap
// and gvisor mount a fresh /run; landlock commands may not read these
// (TestAttackS28CommandReadsContainerSecretsUnderRun).
var hostSecretDirs = []string{"/run/secrets", "/run/credentials", "/var/run/secrets", "/var/run/credentials"}

// landlockHidden returns the host paths, symlinks resolved, that a landlock
// command run as cred (nil: the program's own user) may not read: /dev,
// because a command must not read the terminals of its own user
// (/dev/pts/N, /dev/ttyN: it took the line a person typed at their shell
// there, and a process that outlives the run could go on taking their
// keystrokes; prepare grants the few devices commands use),
// hostSecretDirs, the users' runtime directories (runtimeDirs,
// runtimeDir), and the home's credential stores that bwrap and gvisor
// mask (homeStores: none with WithHomeSecrets, none that is or holds the
// workspace), those not made yet too, and the host's temporary directories
// (hostTmpDirs); each also where another mount shows it (otherPaths; for
// the temporary directories, not what the mounts below them show:
// otherPathsBut). Landlock cannot take away what the
// workspace's rule grants, so a store inside the workspace stays readable
// (TestAttackS28LandlockReadsHomeCredentials). The stores of a home that
// cred cannot search (root's 0700 /root, for 65534: the usual run as
// root) are not looked up: that cost about 1.4 ms of CPU a run on a
// 2-core VM.
func (c *config) landlockHidden(cred *syscall.Credential) []string {
	hidden := []string{"/dev"}
	add := func(p string) {
		if r, err := filepath.EvalSymlinks(p); err == nil && filepath.IsAbs(r) && !slices.Contains(hidden, r) {
			hidden = append(hidden, r)
		}
	}
	for _, d := range hostSecretDirs {
		add(d)
	}
	// The users' runtime directories: a command run as the program's user
	// (a developer's) or WithUser's read its own
	// (TestAttackS29CommandReadsTheUsersRuntimeDir).
	add(runtimeDirs)
	if d := runtimeDir(); d != "" {
		add(d)
	}
	for _, p := range c.homeStores(cred) {
		if !slices.Contains(hidden, p) {
			hidden = append(hidden, p)
		}
	}
	// The host's temporary directories: what other programs of the run's
	// user leave there (Kerberos ticket caches, ssh-agent's and tmux's
	// directories, other runs' TMPDIRs) was readable
	// (TestAttackS30LandlockReadsCredentialsLeftInTmp).
	// So is the program's own temporary directory where TMPDIR names one
	// elsewhere, where the runs' private directories go too when /dev/shm
	// is not a tmpfs (TestAttackS31CommandReadsTheProgramsTmpdir), and
	// those TEMP and TMP name (TestAttackS31CommandReadsTheProgramsTempAndTmp).
	var tmps []string
	for _, d := range append(hostTmpDirs[:len(hostTmpDirs):len(hostTmpDirs)], programTmpDirs()...) {
		if d == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil && filepath.IsAbs(r) && r != "/" && !slices.Contains(hidden, r) {
			hidden = append(hidden, r)
			tmps = append(tmps, r)
		}
	}
	// The same files where another mount shows them (a bind mount of the
	// home, of /dev in a chroot).
	return append(hidden, otherPathsBut(mountTable(), hidden, tmps)...)
}

// hostTmpDirs are the host's temporary directories, which bwrap and gvisor
// mount fresh, empty filesystems on (replacedDirs) and landlock commands
// may not read: the run's own TMPDIR and a workspace that lies there keep
// their rules (Landlock does not restrict going through a directory to
// reach one). /dev/shm is under /dev, hidden already, but where it is a
// symbolic link (to /run/shm, on older systems) it is not.
var hostTmpDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// homeStores returns where the credential stores ([DefaultHomeSecrets]) of
// the run's homes (runHomes) that user cred can search, and those the
// program's XDG base directories and variables move (xdgStores,
// envStores), are or would be
// made, symlinks resolved (resolveMade), but those that are or hold the
// workspace; none with WithHomeSecrets. Unlike homeMasks, a store that does
// not exist is listed: Landlock rules are built when the run starts, and
// a directory above no existing store was granted whole, so a store the
// host made beneath it while the command ran (gcloud auth login writing
// ~/.config/gcloud) was readable
// (TestAttackS29LandlockReadsAStoreMadeDuringTheRun). Left out of the
// rules, the directory above it is gone down instead, and what is made
// there later has no rule.
func (c *config) homeStores(cred *syscall.Credential) []string {
	if c.homeSecrets {
		return nil
	}
	ws := c.workspace
	if r, err := filepath.EvalSymlinks(ws); ws != "" && err == nil {
		ws = r
	}
	resolved := map[string]string{}
	var out []string
	for _, home := range runHomes(cred) {
		if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
			continue // 65534's /nonexistent
		}
		if cred != nil && unsearchableAncestor(filepath.Join(home, "x"), cred.Uid, cred.Gid) != "" {
			continue
		}
		for _, s := range DefaultHomeSecrets {
			p := resolveMade(filepath.Join(home, s), resolved)
			if p == "" || ws != "" && beneath(p, ws) || slices.Contains(out, p) {
				continue
			}
			out = append(out, p)
		}
	}
	// The stores the program's XDG base directories and its variables move
	// out of the home (xdgStores, envStores).
	for _, s := range append(xdgStores(), envStores()...) {
		p := resolveMade(s, resolved)
		if p == "" || ws != "" && beneath(p, ws) || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// resolveMade returns where the absolute path p is, or would be if it were
// made now: its longest existing leading part with symbolic links resolved,
// and the rest of p after it; "" when no part resolves to an absolute
// path. A symbolic link that leads nowhere yet is followed to where it
// leads (up to maxLinks of them, as the kernel does): Landlock judges a
// store made there by the link's target, not by the link
// (TestAttackS29ReviewLandlockReadsAStoreMadeBehindADanglingLink). dirs
// caches the directories resolved so far, for the many stores under one
// directory (~/.config/...).
func resolveMade(p string, dirs map[string]string) string {
	return resolveMadeLinks(p, dirs, 0)
}

// resolveMadeLinks is resolveMade with links symbolic links followed so far.
func resolveMadeLinks(p string, dirs map[string]string, links int) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		if filepath.IsAbs(r) {
			return r
		}
		return ""
	}
	d := filepath.Dir(p)
	if d == p {
		return ""
	}
	r, ok := dirs[d]
	if !ok {
		r = resolveMadeLinks(d, dirs, links)
		dirs[d] = r
	}
	if r == "" {
		return ""
	}
	q := filepath.Join(r, filepath.Base(p))
	if fi, err := os.Lstat(q); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(q)
		if err != nil || links >= maxLinks {
			return q
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(r, target)
		}
		return resolveMadeLinks(filepath.Clean(target), dirs, links+1)
	}
	return q
}

// credential returns the user to start the command as: WithUser's, else
// 65534 when the host process is root, else nil (the host's own user).
func (e *Landlock) credential() *syscall.Credential {
	if e.cfg.user == nil && os.Geteuid() == 0 {
		return &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	return e.cfg.user
}

// landlockPolicy is what one run's starting thread is restricted to.
type landlockPolicy struct {
	abi        int
	networkOff bool
	writable   []string // directories writable (and everything else) by the command
	hidden     []string // host paths the command may not read (landlockHidden)
	dropCaps   bool     // drop the bounding set and inheritable capabilities
	// user, when set, is the user the command runs as; its output pipes are
	// given to it, so that it can reopen them (echo > /dev/stderr).
	user *syscall.Credential
}

// unenforced lists what the kernel's ABI, and the architecture's seccomp
// filter (socketFilterArch; 0 for none), leave out of the policy.
func (p landlockPolicy) unenforced(arch uint32) []string {
	var u []string
	if p.abi < 6 {
		u = append(u, UnenforcedSignals, UnenforcedAbstractUnix)
	}
	if arch == 0 {
		u = append(u, UnenforcedSyscallFilter)
	}
	return u
}
