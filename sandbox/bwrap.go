package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/toolbelt-go/toolbelt/internal/confine"
)

// Bwrap is the "bwrap" engine (bubblewrap): the command sees the host's root
// read-only, the workspace writable at its own path, fresh tmpfs on /tmp,
// /var/tmp, /run (and /var/run where it is not a link to /run) and /dev/shm
// (with the network on, the file /etc/resolv.conf leads to there, such as
// systemd-resolved's, is bound read-only: see resolverFile),
// its own /proc and /dev (read-only but for its devices, /dev/pts and
// /dev/shm), and runs in new user, pid, ipc, uts, cgroup and
// (unless [WithNetwork](true)) network namespaces (--unshare-all), in a new
// session, with every capability dropped (--cap-drop ALL), dying with its
// parent. bwrap runs with --as-pid-1: the first process of the run's pid
// namespace is not bwrap's init but a /bin/sh that runs the command and
// exits with its status, started by prlimit with every rlimit of the run,
// so that a command that ptraces it gains nothing past its own limits; it
// reaps the command's orphans while it waits, and counts toward
// [Limits.Processes] (see docs/sandbox.md). The memory, CPU and file size
// limits are also set on bwrap itself. A seccomp filter
// refuses the setuid and setgid bits on files and, with the network off,
// every socket but IPv4, IPv6 and netlink ones, which the network namespace
// confines (no unix socket, socketpair still works; no AF_VSOCK, which
// reaches a VM's host), and with the network on no unix or AF_VSOCK socket
// either (a host daemon's socket on the read-only root is reachable
// whatever the network namespace, and so are the host's abstract sockets
// with the network on, and a VM's host): see docs/sandbox.md. With the network on, which shares the
// host's network namespace and so its abstract unix sockets, bwrap is
// also started in a Landlock domain (ABI 6) that scopes those, where the
// kernel has one.
//
// When the host process is root, commands run as uid/gid 65534 (nobody)
// unless [WithUser] says otherwise, and no process of the sandbox has root's
// uid on the host. Without WithUser, bwrap is started as a host uid of the
// run's own, which the sandbox shows as 65534 (see runUIDBase), so that no
// other host process of uid 65534 (a "nobody" daemon) reaches the run: its
// /proc/PID/cwd, its environment, its output pipes (which are then the
// command's, so that it can reopen them as /dev/stderr), or ptrace;
// except with a workspace that uid 65534 owns, which it then uses as it is.
// A workspace another user owns is bound through an idmapped mount (Linux
// 5.12+, a filesystem that supports it), on which the workspace owner's
// files appear as the command's: the command can write there, and what it
// creates is owned on the host by the workspace's owner. With WithUser,
// bwrap is started as that user.
//
// bwrap (and the prlimit before it) runs on the host without the variables
// that the dynamic loader and libc act on (LD_PRELOAD, LD_LIBRARY_PATH, ...:
// see loaderEnv); bwrap sets them in the sandbox with --setenv, so they
// reach the command, and show in bwrap's command line on the host.
//
// Where the kernel has Landlock (ABI 2 on), the run's first process is this program's
// own executable, which the init function of internal/confine recognises:
// it puts itself in a Landlock domain that refuses writes outside the
// workspace and the run's own directories (a read-only mount does not stop
// writes to a host FIFO) and execs the prlimit that starts the command.
// The executable must be executable by the command's user.
//
// bwrap is started as the init of a pid namespace of its own, so that killing
// it (on timeout, cancel, flood or exit) makes the kernel kill every process
// of the sandbox, even one bwrap forked a moment before.
type Bwrap struct {
	base
	bin, prlimit string // resolved by the availability check
	sh           string // the command's shell (see plan), resolved by the check
	// confine: the kernel has Landlock, and each run's first process is
	// this program's executable, which confines writes (see
	// internal/confine's bwrapInit).
	confine bool
}

// ownExecutable is the file the running program was started from, which a
// bwrap run starts as its first process (see internal/confine's bwrapInit),
// by descriptor:
// the file may lie where the sandbox shows nothing (a test binary under
// /tmp), or have been replaced since.
const ownExecutable = "/proc/self/exe"

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
	sh, err := exec.LookPath("/bin/sh")
	if err != nil {
		return unavailable(e.name, "sh not found",
			"install a POSIX shell (/bin/sh, apt-get install dash): each run's command is started by one, the first process of the run's pid namespace", err)
	}
	e.bin, e.prlimit, e.sh = bin, prl, sh
	// From Landlock ABI 2 (Linux 5.19): under ABI 1 a domain refuses
	// every rename and link across directories (it cannot grant REFER),
	// which would break mv and git in the workspace.
	abi, lerr := landlockABI()
	e.confine = lerr == nil && abi >= 2
	// The probe starts bwrap the way runs do: as the same user, as the init
	// of a new pid namespace, with the same flags (a tmpfs size among them:
	// --size and --disable-userns need bubblewrap 0.8.0, and an older one
	// is unavailable here rather than failing every run).
	p := &plan{cred: e.cred(), pidns: true}
	argv := append([]string{bin}, e.flags("/", "", "", 64<<20, nil, nil, p.cred, nil)...)
	cmd := exec.Command(argv[0], append(argv[1:], "true")...)
	if e.confine {
		// And through this program's executable, as the command's user.
		exe, err := os.Open(ownExecutable)
		if err != nil {
			return unavailable(e.name, "cannot open this program's executable", "bwrap runs start it as their first process (see Bwrap)", err)
		}
		defer exe.Close()
		cmd.ExtraFiles = []*os.File{exe}
		own, unset := ownLoaderEnv()
		cmd.Args = append(argv[:len(argv)-1:len(argv)-1], "--", "/proc/self/fd/3", confine.BwrapInitArg, "-w", "/tmp")
		cmd.Args = append(append(cmd.Args, unset...), "--", sh, "-c", "exit 0")
		cmd.Env = own
	}
	cmd.Env = append(cmd.Env, "PATH="+DefaultPath)
	cmd.Dir = "/"
	cmd.SysProcAttr = sysProcAttr(p)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		why, fix := "bwrap cannot create its sandbox on this host",
			"bwrap needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile that allows them for bwrap)"
		if e.confine && bytes.Contains(stderr.Bytes(), []byte("error while loading shared libraries")) {
			why, fix = "this program's executable cannot start in the sandbox",
				"each run's first process is this program's own executable, started with its own loader variables (LD_LIBRARY_PATH): the libraries it links must lie where the sandbox shows them (not under /tmp, /run or a hidden directory)"
		} else if e.confine && bytes.Contains(stderr.Bytes(), []byte("/proc/self/fd/3")) {
			why, fix = "the command's user cannot run this program's executable",
				"each run's first process is this program's own executable, started as the command's user to confine its writes with Landlock: make the file executable by that user (chmod o+x, or WithUser), on a mount without noexec, and keep the program's package init functions from exiting or parsing its command line"
		}
		return unavailable(e.name, why, fix+"; stderr: "+string(bytes.TrimSpace(stderr.Bytes())), err)
	}
	// The mount points that runs of programs killed meanwhile left (see
	// runDir).
	sweepRunDirs(idmapBase, idmapDirPrefix, removeIdmapDir)
	return nil
}

// sandboxUser is the uid and gid commands run as when the host process is
// root and [WithUser] is not given.
const sandboxUser = 65534

// cred is the user bwrap is started as: WithUser's, nobody for root, or nil
// (the caller's own user).
func (e *Bwrap) cred() *syscall.Credential {
	if e.cfg.user != nil {
		return e.cfg.user
	}
	if os.Geteuid() == 0 {
		return &syscall.Credential{Uid: sandboxUser, Gid: sandboxUser}
	}
	return nil
}

// The host uids (and gids) that bwrap runs of a root process are started as
// when their workspace is idmapped and WithUser is not given: one that no
// other run of this program holds meanwhile, which the run's user namespace
// shows as 65534 (--uid, --gid). The idmapped mount makes the owner's files
// its user's, and is
// attached only in the run's mount namespace; but /proc/PID/cwd and
// /proc/PID/root of the run's processes open that namespace for any host
// process that passes the ptrace read check, which a process of the same
// uid does (Yama, where there is one, guards attaching, not reading), and
// which also owns the run's user namespace. Started as 65534, a process run
// WithUser(65534, 65534), or any "nobody" daemon, read and wrote root's
// 0700 workspace through them while the run lasted
// (TestAttackS26IdmappedWorkspaceThroughProcRoot). The range lies above the
// ones systemd gives containers (up to 0x6FFFFFFF) and below the one podman's
// docs give to "containers" (from 0x7FFFFFFF). The lowest free one is taken
// and given back after the run, so that this program uses as many as it has
// runs at once: each mapping keeps a user namespace open for the life of the
// program (mappingUserns), and a fresh uid per run left one descriptor
// behind per run (TestRunsLeaveNothingBehind). Only sandboxed processes
// have these uids, each run's in a pid namespace and a /proc of its own,
// so runs that share one (two programs' on a host) cannot reach each other
// this way.
const (
	runUIDBase  = 0x70000000
	runUIDCount = 1 << 24
)

// runUIDs are the run uids this program holds, by offset from runUIDBase.
var runUIDs = struct {
	sync.Mutex
	held map[uint32]bool
}{held: map[uint32]bool{}}

// takeRunUser returns the lowest run uid (see runUIDBase), as uid and gid,
// that no run of this program holds, and the function that gives it back
// once no process of the run is left.
func takeRunUser() (*syscall.Credential, func()) {
	runUIDs.Lock()
	defer runUIDs.Unlock()
	var i uint32
	for runUIDs.held[i] && i < runUIDCount-1 {
		i++
	}
	runUIDs.held[i] = true
	id := runUIDBase + i
	return &syscall.Credential{Uid: id, Gid: id}, func() {
		runUIDs.Lock()
		delete(runUIDs.held, i)
		runUIDs.Unlock()
	}
}

// flags are bwrap's options up to and including "--". ws is the workspace
// ("" for none) and src where it is bound from ("" for ws itself); mask
// the paths in it to mount an empty, read-only directory or file over
// (Spec.Mask). Each
// tmpfs holds at most tmpfsSize bytes (the memory limit; 0 for bwrap's
// default, half the host's memory): its pages count against no process's
// address space, so without a bound a command could keep the host's
// memory in /tmp whatever its limit. --as-pid-1 keeps bwrap's own init out
// of the run (see plan). pin opens the workspace's directories that are
// bound over themselves (nil without a workspace). cred is the user bwrap
// is started as (nil: the caller's own), inner the one the command is in
// the sandbox when that differs (a run uid, see runUIDBase; nil otherwise).
func (e *Bwrap) flags(dir, ws, src string, tmpfsSize int64, mask []string, pin *pins, cred, inner *syscall.Credential) []string {
	f := []string{
		"--unshare-all", "--unshare-user", "--as-pid-1", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
	}
	if inner != nil {
		f = append(f, "--uid", strconv.FormatUint(uint64(inner.Uid), 10), "--gid", strconv.FormatUint(uint64(inner.Gid), 10))
	}
	if e.cfg.network != nil && *e.cfg.network {
		f = append(f, "--share-net")
	}
	f = append(f,
		"--hostname", "sandbox",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		// bwrap leaves the new /proc's sysctls and sysrq trigger writable
		// inside a user namespace, where uid 0 (WithUser(0, 0)) may write
		// them without any capability: bind the host's read-only.
		"--ro-bind", "/proc/sys", "/proc/sys",
		"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
	)
	tmpfs := func(d string) {
		if tmpfsSize > 0 {
			f = append(f, "--size", strconv.FormatInt(tmpfsSize, 10))
		}
		f = append(f, "--tmpfs", d)
	}
	fresh := freshDirs()
	for _, d := range fresh {
		tmpfs(d)
	}
	if e.cfg.network != nil && *e.cfg.network {
		if r := resolverFile(fresh); r != "" {
			f = append(f, "--ro-bind", r, r)
		}
	}
	// The program's runtime and temporary directories that hold the
	// workspace: empty, as /tmp is, but for the path to the workspace that
	// bwrap makes in them, and read-only once it is bound (hostDirsAbove).
	above := hostDirsAbove(ws, cred)
	for _, d := range above {
		f = append(f, "--size", "4096", "--tmpfs", d)
	}
	if ws != "" {
		if src == "" {
			src = ws
		}
		// A directory on the way to the workspace that the command's user
		// cannot search (/root, 0700) would keep it out of its own
		// workspace: an empty tmpfs replaces the topmost such directory (its
		// contents were out of the user's reach anyway), and bwrap makes the
		// path to the workspace in it.
		if cred != nil {
			if d := unsearchableAncestor(ws, cred.Uid, cred.Gid); d != "" {
				tmpfs(d)
			}
		}
		f = append(f, "--bind", src, ws)
		// Each directory above a masked path (a home credential store in
		// the workspace, or a git directory apart, too: pinnedMask) is a
		// mount point, which no command can rename (maskParents, none in
		// the read-only repository); bound from src (the idmapped owner) by
		// descriptor.
		repo := e.cfg.repoDirs(ws)
		for _, d := range maskParents(ws, e.cfg.pinnedMask(ws, mask, repo, cred), repo) {
			if fd, ok := pin.fd(d); ok {
				f = append(f, "--bind-fd", fd, filepath.Join(ws, filepath.FromSlash(d)))
			}
		}
		// The repository's own directories are read-only (repoDirs), bound
		// from src to keep the idmapped owner, by descriptor (pins), after
		// the directories above masked paths: bwrap mounts in the order
		// given, and such a directory holding a git directory apart (meta
		// above meta/repo.git, with meta/token masked), bound from the
		// host's writable view, covered the read-only bind made before it
		// (TestAttackS26MaskParentAboveTheSeparateGitDir). Masks go over
		// them.
		for _, r := range repo {
			if fd, ok := pin.fd(r); ok {
				f = append(f, "--ro-bind-fd", fd, filepath.Join(ws, filepath.FromSlash(r)))
			}
		}
	}
	// What the workspace hides and the home's credential stores (masks).
	dirs, files := e.cfg.masks(ws, mask, cred)
	for _, d := range dirs {
		f = append(f, "--size", "4096", "--tmpfs", d, "--remount-ro", d)
	}
	for _, file := range files {
		f = append(f, "--ro-bind", "/dev/null", file)
	}
	for _, d := range above {
		f = append(f, "--remount-ro", d)
	}
	// --dev makes /dev a tmpfs of the command's user with no size (half
	// the host's memory), and --size does not apply to it: a command kept
	// 240 MiB there under a 128 MiB limit
	// (TestAttackS19DevTmpfsOutgrowsMemoryLimit). Nothing needs to write
	// there once the mounts are made; the devices, /dev/pts and /dev/shm
	// are mounts of their own and stay writable.
	f = append(f, "--remount-ro", "/dev")
	return append(f, "--chdir", dir, "--")
}

// freshDirs are the directories a run gets empty (a tmpfs each), where host
// services keep their sockets and programs their temporary files: /tmp and
// /dev/shm, and /var/tmp, /run and /var/run where each is a directory (not
// the usual link of /var/run to /run; a link elsewhere is left as the host
// has it).
func freshDirs() []string {
	var fresh []string
	for _, d := range []string{"/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm"} {
		if fi, err := os.Lstat(d); (err == nil && fi.IsDir()) || d == "/tmp" || d == "/dev/shm" {
			fresh = append(fresh, d)
		}
	}
	return fresh
}

// writable are the directories a run's command may write beneath (see
// internal/confine): the workspace, the fresh ones (freshDirs: only those
// mounted, so never a host directory that /var/tmp is a link to:
// TestAttackS32ReviewSymlinkedVarTmp), /dev (its devices, /dev/pts and
// /dev/shm are the run's own) and /proc (the run's own processes;
// /proc/sys is read-only). ws is the workspace as plan binds it (a link
// resolved), as flags is given it, and cred the user bwrap starts as.
func writable(ws string, cred *syscall.Credential) []string {
	d := append(freshDirs(), "/dev", "/proc")
	if ws != "" {
		if cred != nil {
			if a := unsearchableAncestor(ws, cred.Uid, cred.Gid); a != "" {
				d = append(d, a) // an empty tmpfs (see flags)
			}
		}
		d = append(d, ws)
	}
	return d
}

// ownLoaderEnv returns this program's own loader variables (loaderEnv of
// its environment), which a bwrap run's first process, this program's
// executable, is started with, and the init arguments that drop them at
// its exec ("-u NAME" each): a cgo program's LD_LIBRARY_PATH may be what
// it needs to start (TestAttackS32ReviewProgramNeedsLibraryPath).
func ownLoaderEnv() (own, unset []string) {
	_, own = loaderEnv(os.Environ())
	for _, kv := range own {
		k, _, _ := strings.Cut(kv, "=")
		unset = append(unset, "-u", k)
	}
	return own, unset
}

// resolvConf is the file the C library reads its name servers from.
// TestS28ResolverFileUnderTheFreshRun points it elsewhere.
var resolvConf = "/etc/resolv.conf"

// resolverFile returns where resolvConf leads when that lies in one of
// fresh, the host directories an engine mounts empty (else ""): where
// systemd-resolved runs, /etc/resolv.conf is a link to
// /run/systemd/resolve/stub-resolv.conf, and with a fresh /run no name
// resolved. With the network on, bwrap and gvisor bind that one file
// read-only at its place.
func resolverFile(fresh []string) string {
	r, err := filepath.EvalSymlinks(resolvConf)
	if err != nil || !filepath.IsAbs(r) {
		return ""
	}
	for _, d := range fresh {
		if rd, err := filepath.EvalSymlinks(d); err == nil && beneath(rd, r) {
			if fi, err := os.Stat(r); err == nil && fi.Mode().IsRegular() {
				return r
			}
		}
	}
	return ""
}

// pins hands bwrap the workspace's directories that it binds over
// themselves (the repository's, and those above a masked path) as
// descriptors opened when the run is planned, without following a symlink
// (--bind-fd, --ro-bind-fd): bwrap mounts the directory that was opened,
// or fails (it checks the mount against the descriptor), and closes the
// descriptor. Given a path, bwrap resolved it when it mounted, a moment
// after the plan had checked it: a concurrent command that swapped conf/
// (above a masked conf/secrets) for a relative link to a host directory in
// between had that host directory bound writable into the run, and wrote
// there (TestAttackS23SwapAfterThePlan).
type pins struct {
	open  func(rel string) (*os.File, error) // opens rel where the workspace is bound from
	first int                                // the descriptor bwrap sees files[0] as
	files []*os.File
}

// fd opens rel (slash-separated, in the workspace) and returns the
// descriptor bwrap will see it as, or false when it cannot be opened as a
// directory or regular file without following a symlink (it was swapped
// for one, or removed, since it was listed): then it is not bound, as a
// symlink is not by repoDirs and maskParents.
func (p *pins) fd(rel string) (string, bool) {
	f, err := p.open(rel)
	if err != nil {
		return "", false
	}
	p.files = append(p.files, f)
	return strconv.Itoa(p.first + len(p.files) - 1), true
}

// close closes the descriptors opened (bwrap has its own copies).
func (p *pins) close() {
	for _, f := range p.files {
		f.Close()
	}
}

// unsearchableAncestor returns the topmost directory above dir (not "/")
// that uid/gid may not search, or "".
func unsearchableAncestor(dir string, uid, gid uint32) string {
	var parts []string
	for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
		parts = append(parts, d)
	}
	for i := len(parts) - 1; i >= 0; i-- {
		fi, err := os.Stat(parts[i])
		if err != nil {
			return ""
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return ""
		}
		mode := uint32(fi.Mode().Perm())
		var x uint32 = 0o001
		switch {
		case st.Uid == uid:
			x = 0o100
		case st.Gid == gid:
			x = 0o010
		}
		if mode&x == 0 {
			return parts[i]
		}
	}
	return ""
}

func (e *Bwrap) plan(spec Spec, dir string, env []string, lim Limits) (*plan, error) {
	// The check resolved the binaries once (see [Process.plan]).
	if err := e.available(); err != nil {
		return nil, err
	}
	if err := shellStartedEnv(e.name, spec.Env); err != nil {
		return nil, err
	}
	cred := e.cred()
	p := &plan{env: env, dir: "/", cred: cred, exitSignals: true, pidns: true}
	networkOff := e.cfg.network == nil || !*e.cfg.network
	// With the network on the command shares the host's abstract unix
	// sockets: the filter refuses it unix sockets (bwrapFilter), and bwrap
	// starts in a Landlock domain that scopes them where the kernel has
	// one (see scopeAbstractUnix), for bwrap itself.
	var scope func() error
	if !networkOff {
		if abi, err := landlockABI(); err == nil && abi >= 6 {
			scope = scopeAbstractUnix
		}
	}
	src := ""
	var inner *syscall.Credential // the command's user in the sandbox, when bwrap's differs
	// The workspace's directories bound over themselves are opened where
	// the workspace is bound from: its own path, or the idmapped tree.
	pin := &pins{open: func(rel string) (*os.File, error) { return openBeneathDir(e.cfg.workspace, rel) }, first: 4}
	if ws := e.cfg.workspace; ws != "" && cred != nil && os.Geteuid() == 0 {
		uid, gid, err := ownerOf(ws)
		if err != nil {
			return nil, newError(CodeCreateFailed, e.name, "", err, "WithWorkspace(%q)", ws)
		}
		if uid != cred.Uid || gid != cred.Gid {
			// As 65534 by default, bwrap is started as a run uid of its
			// own, which the sandbox shows as 65534 (see runUIDBase).
			host, release := cred, func() {}
			if e.cfg.user == nil {
				host, release = takeRunUser()
				inner = cred
				p.ownPipes = true // no other host process has the run uid
			}
			path, start, cleanup, open, err := idmapDir(ws, idMap{ownerUID: uid, ownerGID: gid, asUID: host.Uid, asGID: host.Gid}, scope)
			if err != nil {
				release()
				return nil, newError(CodeCreateFailed, e.name, "", err,
					"the workspace %q is owned by %d:%d and commands run as %d:%d; mapping it for them failed: chown the workspace to %d:%d or pass WithUser(%d, %d)",
					ws, uid, gid, cred.Uid, cred.Gid, cred.Uid, cred.Gid, uid, gid)
			}
			src, p.start, pin.open, p.cred = path, start, open, host
			p.cleanup = func() { cleanup(); release() }
		}
	}
	if scope != nil && p.start == nil {
		p.start, p.cleanup = threadStart(scope)
	}
	// Without a workspace, a root program's runs as the default user are
	// started as a run uid of their own too (with a workspace that 65534
	// owns, they stay 65534: mapped, its entries of other owners would
	// turn unwritable, as the kernel refuses writes to files whose owner
	// an idmapped mount does not map). As host uid 65534 they shared
	// it with every "nobody" daemon: with f2f09b4's output pipes given to
	// the command's user, such a process opened a running command's
	// /proc/PID/fd/1 and read and wrote its output, and where no Yama
	// forbids it, it could ptrace the command and read its environment
	// (TestAttackS32Round2OutputPipesFromTheHost).
	if e.cfg.workspace == "" && cred != nil && e.cfg.user == nil && os.Geteuid() == 0 {
		host, release := takeRunUser()
		inner, p.cred = cred, host
		p.ownPipes = true // no other host process has the run uid
		if c := p.cleanup; c != nil {
			p.cleanup = func() { c(); release() }
		} else {
			p.cleanup = release
		}
	}
	// The seccomp filter (see bwrapFilter) reaches bwrap as descriptor 3.
	filter, err := bwrapFilterFile(networkOff)
	if err != nil {
		if p.cleanup != nil {
			p.cleanup()
		}
		return nil, newError(CodeCreateFailed, e.name, "", err, "writing the seccomp filter for bwrap")
	}
	var exe *os.File // see internal/confine's bwrapInit
	if e.confine {
		if exe, err = os.Open(ownExecutable); err != nil {
			filter.Close()
			if p.cleanup != nil {
				p.cleanup()
			}
			return nil, newError(CodeCreateFailed, e.name, "", err, "opening this program's executable, each run's first process")
		}
	}
	closeFiles := func() {
		filter.Close()
		pin.close()
		if exe != nil {
			exe.Close()
		}
	}
	if c := p.cleanup; c != nil {
		p.cleanup = func() { closeFiles(); c() }
	} else {
		p.cleanup = closeFiles
	}
	// The first process of the run's pid namespace runs as the command's
	// uid, and the command can ptrace it (no Yama on many hosts) and have
	// it do what it likes. It was bwrap's own init, which carries no
	// process limit: set on bwrap, RLIMIT_NPROC would count every process
	// of the uid on the host (the user namespace keeps its creator's limit
	// for that), not the run's. Seized, it forked 24 times under a limit
	// of 8 (TestAttackS16BwrapInitForksPastProcessLimit). --as-pid-1 drops
	// that init: bwrap's first child execs prlimit, which sets every limit
	// of the run and execs a shell that runs the command and exits with its
	// status (128+n for signal n, as bwrap reported). The command is not
	// pid 1 itself: the first process of a pid namespace ignores the
	// signals it has no handler for, SIGXCPU and SIGXFSZ among them, so
	// TestCPULimit and TestFileSizeLimit saw a SIGKILL and an exit 1. The
	// shell execs the command in a subshell rather than running a builtin
	// of the same name, and reaps orphans while it waits
	// (TestBwrapRunReapsOrphans); when it exits the kernel kills the rest
	// of the run. bwrap itself (its monitor, outside the run's pid
	// namespace, and its child until that execs prlimit) still starts
	// under the memory, CPU and file size limits, as it did when its init
	// was in the run (TestAttackReviewS13BwrapInitEscapesLimits).
	outer := lim
	outer.Processes = 0
	if e.confine {
		// The Go runtime of this program's executable, the run's first
		// process until it execs the inner prlimit, reserves far more
		// address space than a memory limit allows (it fails to start
		// under 600 MiB); the inner prlimit sets it for the command.
		outer.Memory = 0
	}
	argv := append(rlimitArgs(e.prlimit, outer), e.bin, "--seccomp", "3")
	// The outer prlimit and bwrap run on the host: the loader's variables
	// reach only the sandbox, through --setenv (see loaderEnv).
	var loader []string
	p.env, loader = loaderEnv(env)
	// With the first process of its own, bwrap starts it in / and it
	// changes to dir once confined: the program's package inits run
	// before, and must not run in a directory the last command could
	// have planted links in.
	// A workspace given as a link is bound where the link leads, as
	// gvisor's is (see realDir), and everything in the run is placed
	// from there: bound at the link's own path (in the fresh /tmp, or an
	// unsearchable directory's tmpfs, which hide the link), its masks,
	// resolved through the link, missed it, and a command read a masked
	// file (TestAttackS32Round2LinkedWorkspaceMasks).
	ws := e.cfg.workspace
	if r, err := filepath.EvalSymlinks(ws); ws != "" && err == nil {
		ws, dir = r, realDir(ws, dir)
	}
	bwrapDir := dir
	if exe != nil {
		bwrapDir = "/"
	}
	flags := e.flags(bwrapDir, ws, src, lim.Memory, spec.Mask, pin, p.cred, inner)
	// The filter is descriptor 3, the pinned directories 4 on, then the
	// executable.
	p.extra = append([]*os.File{filter}, pin.files...)
	argv = append(argv, flags[:len(flags)-1]...)
	if exe != nil {
		// The first process confines writes to these directories, drops
		// the program's own loader variables (which it may need to start:
		// a cgo program's LD_LIBRARY_PATH), adds the command's and the Go
		// runtime's (which it must not act on itself), changes to dir and
		// execs what follows (see internal/confine).
		p.extra = append(p.extra, exe)
		argv = append(argv, "--", "/proc/self/fd/"+strconv.Itoa(2+len(p.extra)), confine.BwrapInitArg)
		for _, d := range writable(ws, p.cred) {
			argv = append(argv, "-w", d)
		}
		var goRuntime []string
		p.env, goRuntime = goRuntimeVars(p.env)
		own, unset := ownLoaderEnv()
		p.env = append(p.env, own...)
		argv = append(argv, unset...)
		for _, kv := range append(loader, goRuntime...) {
			argv = append(argv, "-e", kv)
		}
		argv = append(argv, "-C", dir)
	} else {
		for _, kv := range loader {
			k, v, _ := strings.Cut(kv, "=")
			argv = append(argv, "--setenv", k, v)
		}
	}
	argv = append(argv, "--")
	argv = append(argv, rlimitArgs(e.prlimit, shellStartedLimits(lim))...)
	argv = append(argv, e.sh, "-c", `(exec "$@"); exit $?`, "sh")
	p.argv = append(argv, spec.Argv...)
	if lim.Processes > 0 && (cred == nil && os.Geteuid() == 0 || cred != nil && cred.Uid == 0) {
		p.unenforced = append(p.unenforced, LimitProcesses)
	}
	return p, nil
}
