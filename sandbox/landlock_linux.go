//go:build linux

package sandbox

// We do not use Go-Landlock (github.com/landlock-lsm/go-landlock) because
// every one of its packages imports libcap's psx, which in a build with cgo
// enabled (the default wherever a C compiler is installed) links C code that
// wraps pthread_create into every program importing this package; and
// because it restricts all threads of the calling process, while this engine
// restricts one locked thread that then starts the command. The system calls
// below are the ones its landlock/syscall package makes, with the constants
// of golang.org/x/sys/unix.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/toolbelt-go/toolbelt/internal/confine"
	"golang.org/x/sys/unix"
)

// Landlock rights newer than golang.org/x/sys/unix names (uapi
// linux/landlock.h).
const (
	llAccessNetBindUDP        = 1 << 2 // ABI 10
	llAccessNetConnectSendUDP = 1 << 3 // ABI 10
)

// landlockABI asks the kernel for its Landlock ABI version.
func landlockABI() (int, error) { return confine.ABI() }

// socketFilterArch is the audit architecture of this build, for the seccomp
// filter; 0 where the filter is not written for the architecture.
func socketFilterArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64
	}
	return 0
}

// landlockFilter is the seccomp program of a landlock run. It refuses
// (EPERM) to give a file the setuid or setgid bit, by chmod or at creation
// (setIDBlocks): a command run WithUser(0, 0) owns root's files in the
// workspace, and left setuid-root programs there for any local user who
// reaches it. openat2(2), whose mode sits in a structure a filter cannot
// read, and io_uring_setup(2), whose operations no filter sees, fail with
// ENOSYS (programs fall back to openat), with the network on too, as in
// bwrap's filter: through either, a command run WithUser(1234, 1234) made
// -rwsr-xr-x 1234 programs in the workspace
// (TestAttackS19SetIDThroughOpenat2AndIoUring). It refuses (EPERM) the System V IPC calls (shared memory, message queues,
// semaphores) and the keyring calls (add_key, request_key, keyctl): a
// landlock command shares the host's IPC namespace and its uid's user
// keyring, which Landlock does not scope, so it could attach a host
// process's mode-666 shared memory and write into it, and leave segments
// and keys that later runs (and concurrent ones, and any local user)
// read. It refuses user namespaces: unshare(2) and clone(2) with
// CLONE_NEWUSER (EPERM) and clone3(2) (ENOSYS, on which glibc falls back
// to clone), since in one the command holds every capability, and the
// kernel code that asks only for one there (netfilter and rtnetlink, with
// the network on) was within its reach (TestAttackLandlockUserNamespace).
// Unless allowUnix, socket(2) may not create unix sockets (EACCES), with
// the network on too; with the network off (networkOff) it may create no
// other socket either (EACCES), and with the network on no AF_VSOCK one,
// a channel to a VM's hypervisor host that is no part of the host's IP
// network (TestAttackS31ReviewVsockWithTheNetworkOn). The refusal of io_uring_setup(2) also
// keeps it from creating sockets without socket(2). allowUnix is for
// kernels whose Landlock (ABI 9) decides which unix socket paths may be
// connected to: before it, a unix socket is refused outright, or a host
// socket of the command's user (a tmux server's /tmp/tmux-UID/default,
// Docker's /var/run/docker.sock for a member of the docker group, a
// mode-666 one under /run or /var/lib) would be reachable, also with the
// network on, where bwrap and gvisor hide them behind fresh /tmp and /run
// (TestAttackS30LandlockNetworkOnConnectsToHostSocket). socketpair(2),
// which makes an unnamed connected pair for IPC inside the run, is
// allowed, but, unless allowUnix, not of datagram sockets (EACCES): one of
// those sends to any socket path with sendto(2), or connect(2)s to one, as
// if unconnected (TestAttackS30LandlockDatagramPairReachesHostSocket).
// System calls of another architecture (32-bit compatibility mode, whose
// ipc(2) multiplexer the filter does not look into) kill the process; x32
// system calls fail with ENOSYS.
// With truncation unhandled by Landlock (ABI 1 and 2; noTruncate), it
// refuses (EACCES) truncate(2) and an open(2) or openat(2) with O_TRUNC and
// the read-only access mode, the two ways to empty a file not opened for
// writing: through either a command emptied host files its user may write
// (TestAttackS21LandlockTruncatesHostFilesBeforeABI3); ftruncate(2) needs a
// descriptor open for writing, which Landlock refuses outside the workspace.
// Everything else is allowed.
func landlockFilter(arch uint32, networkOff, allowUnix, noTruncate bool) []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data; arg0's and arg1's low halves
		// (little endian).
		offNr, offArg0, offArg1 = 0, 16, 24
		// The socket type's bits of socket(2)'s and socketpair(2)'s type
		// argument (SOCK_TYPE_MASK), without SOCK_NONBLOCK and SOCK_CLOEXEC.
		sockTypeMask = 0xf
	)
	allow := unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW}
	errno := func(e unix.Errno) unix.SockFilter {
		return unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(e)}
	}
	prog := filterHead(arch)
	if noTruncate {
		// Before setIDBlocks, which ends the decision on open and openat.
		// Each block leaves the call's number in the accumulator.
		for _, c := range modeCalls() {
			if c.flags < 0 {
				continue
			}
			prog = append(prog,
				unix.SockFilter{Code: ld, K: offNr},
				unix.SockFilter{Code: jeq, K: c.nr, Jf: 5},
				unix.SockFilter{Code: ld, K: uint32(offArg0 + 8*c.flags)},
				unix.SockFilter{Code: jset, K: unix.O_TRUNC, Jf: 2},
				unix.SockFilter{Code: jset, K: unix.O_ACCMODE, Jt: 1},
				errno(unix.EACCES),
				unix.SockFilter{Code: ld, K: offNr},
			)
		}
	}
	// The accumulator holds the call's number between the blocks below.
	prog = append(prog, setIDBlocks()...)
	refuse := func(nr uint32, verdict unix.SockFilter) {
		prog = append(prog, unix.SockFilter{Code: jeq, K: nr, Jf: 1}, verdict)
	}
	if noTruncate {
		refuse(unix.SYS_TRUNCATE, errno(unix.EACCES))
	}
	for _, nr := range ipcCalls() {
		refuse(nr, errno(unix.EPERM))
	}
	// Modes (and sockets) out of the filter's sight.
	refuse(unix.SYS_OPENAT2, errno(unix.ENOSYS))
	refuse(unix.SYS_IO_URING_SETUP, errno(unix.ENOSYS))
	// No user namespace: clone3's flags sit in a structure the filter
	// cannot read, so it fails with ENOSYS (glibc then falls back to
	// clone); unshare and clone fail with EPERM when asked for one.
	refuse(unix.SYS_CLONE3, errno(unix.ENOSYS))
	for _, nr := range []uint32{unix.SYS_UNSHARE, unix.SYS_CLONE} {
		prog = append(prog,
			unix.SockFilter{Code: jeq, K: nr, Jf: 4},
			unix.SockFilter{Code: ld, K: offArg0}, // the flags, on these architectures
			unix.SockFilter{Code: jset, K: unix.CLONE_NEWUSER, Jf: 1},
			errno(unix.EPERM),
			allow,
		)
	}
	// AF_VSOCK is refused with the network on too: it reaches a VM's
	// hypervisor host, which no part of the host's IP network is
	// (TestAttackS31ReviewVsockWithTheNetworkOn).
	unixVerdict, otherVerdict := allow, allow
	if !allowUnix {
		unixVerdict = errno(unix.EACCES)
	}
	if networkOff {
		otherVerdict = errno(unix.EACCES)
	}
	prog = append(prog,
		unix.SockFilter{Code: jeq, K: unix.SYS_SOCKET, Jf: 6},
		unix.SockFilter{Code: ld, K: offArg0},
		unix.SockFilter{Code: jeq, K: unix.AF_UNIX, Jf: 1},
		unixVerdict,
		unix.SockFilter{Code: jeq, K: unix.AF_VSOCK, Jf: 1},
		errno(unix.EACCES),
		otherVerdict,
	)
	if !allowUnix {
		// A datagram socket of an unnamed pair still sends to (and
		// connects to) any path (sendto(2)); stream and seqpacket ones
		// are connected for good.
		prog = append(prog,
			unix.SockFilter{Code: jeq, K: unix.SYS_SOCKETPAIR, Jf: 4},
			unix.SockFilter{Code: ld, K: offArg1},
			unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: sockTypeMask},
			unix.SockFilter{Code: jeq, K: unix.SOCK_DGRAM, Jf: 1},
			errno(unix.EACCES),
		)
	}
	return append(prog, allow)
}

// ipcCalls are the System V IPC and keyring system calls of this
// architecture that landlockFilter refuses.
func ipcCalls() []uint32 {
	calls := []uint32{
		unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL,
		unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
		unix.SYS_SEMGET, unix.SYS_SEMCTL,
		unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
	}
	// semop(2) and semtimedop(2), which not every architecture has (x/sys/unix
	// names them only where it does); the filter is written for these three.
	switch runtime.GOARCH {
	case "amd64":
		calls = append(calls, 65, 220)
	case "arm64", "riscv64":
		calls = append(calls, 193, 192)
	}
	return calls
}

// scopeAbstractUnix puts the calling thread, and what it starts, in a
// Landlock domain that restricts no file or network access but scopes
// abstract unix sockets (ABI 6): only those made inside the domain can be
// connected to. bwrap's runs with the network on share the host's network
// namespace, and with it every abstract socket of the host, which has no
// file and no permission check: a command as 65534 connected to one a root
// process listened on (TestAttackBwrapAbstractSocketWithNetworkOn), as it
// could to containerd-shim's (CVE-2020-15257) or an X server's. A domain
// that handles no file access leaves bwrap its mounts.
func scopeAbstractUnix() error {
	attr := unix.LandlockRulesetAttr{Scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("scoping abstract unix sockets: landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if os.Geteuid() != 0 {
		// Without CAP_SYS_ADMIN, Landlock needs no_new_privs.
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("scoping abstract unix sockets: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("scoping abstract unix sockets: landlock_restrict_self: %w", errno)
	}
	return nil
}

// llStarter starts one run's command from a thread restricted to the run's
// policy.
type llStarter struct {
	pol     landlockPolicy
	ruleset int
	filter  []unix.SockFilter
	done    chan struct{}
	once    sync.Once
}

// prepare builds the policy's Landlock ruleset (and seccomp filter).
func (p landlockPolicy) prepare() (*llStarter, error) {
	// From ABI 9 the rights include resolving unix sockets at paths
	// (confine.AccessFSResolveUnix), granted in the writable directories only,
	// network on or off; before it the filter refuses unix sockets.
	fsRights := confine.HandledFS(p.abi)
	attr := unix.LandlockRulesetAttr{Access_fs: fsRights}
	if p.networkOff && p.abi >= 4 {
		attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		if p.abi >= 10 {
			attr.Access_net |= llAccessNetBindUDP | llAccessNetConnectSendUDP
		}
	}
	if p.abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	s := &llStarter{pol: p, ruleset: int(fd), done: make(chan struct{})}
	const (
		readOnly = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
		devFile  = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
			unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	)
	err := s.allowAllBut("/", readOnly&fsRights, p.hidden)
	for _, d := range p.writable {
		err = errors.Join(err, s.allow(d, fsRights))
	}
	for _, f := range []string{"/dev/null", "/dev/zero", "/dev/full"} {
		if _, serr := os.Stat(f); serr == nil {
			err = errors.Join(err, s.allow(f, devFile&fsRights))
		}
	}
	for _, f := range []string{"/dev/random", "/dev/urandom"} {
		if _, serr := os.Stat(f); serr == nil {
			err = errors.Join(err, s.allow(f, unix.LANDLOCK_ACCESS_FS_READ_FILE))
		}
	}
	// The availability check refuses the network off where there is no
	// filter for the architecture; with the network on, such a host runs
	// without one.
	if arch := socketFilterArch(); arch != 0 {
		s.filter = landlockFilter(arch, p.networkOff, p.abi >= 9, p.abi < 3)
	}
	if err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// allowAllBut grants access (read-only rights) beneath every entry of dir
// but the paths of hidden (absolute, clean, symlinks resolved: see
// landlockHidden), going down each directory that holds one; for the root
// directory, listing too (and so of every directory, hidden ones too).
// Landlock only adds rights beneath a directory, so what is hidden must be
// left out of every rule rather than taken away. A symbolic link gets no
// rule: a rule lands where the link leads (~/key leading to ~/.ssh/id_rsa
// granted the key), and what it leads to has its own place in the walk
// (/bin's in /usr), which Landlock judges a file by. An entry that cannot
// be opened (a mount that fails) or a directory gone down that cannot be
// listed is skipped: the command is then refused what is beneath it,
// which is the safe side.
func (s *llStarter) allowAllBut(dir string, access uint64, hidden []string) error {
	var err error
	if dir == "/" {
		err = s.allow("/", access&unix.LANDLOCK_ACCESS_FS_READ_DIR)
	}
	ents, rerr := os.ReadDir(dir)
	if rerr != nil && dir != "/" {
		return err // a directory gone down that cannot be listed: nothing beneath it is granted
	}
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0, slices.Contains(hidden, p):
			continue
		case e.IsDir() && slices.ContainsFunc(hidden, func(h string) bool { return beneath(p, h) }):
			err = errors.Join(err, s.allowAllBut(p, access, hidden))
			continue
		}
		var open *os.PathError
		if aerr := s.allow(p, access); aerr != nil && !(errors.As(aerr, &open) && open.Op == "open") {
			err = errors.Join(err, aerr)
		}
	}
	return err
}

// allow adds a rule granting access beneath path (see confine.AllowBeneath).
func (s *llStarter) allow(path string, access uint64) error {
	return confine.AllowBeneath(s.ruleset, path, access)
}

// start restricts a new OS thread and starts cmd from it. A child inherits
// the credentials, no_new_privs flag, seccomp filter and Landlock domain of
// the thread that forks it (exec.Cmd.Start forks on the calling thread), so
// the command is confined and no other thread of this process is.
func (s *llStarter) start(cmd *exec.Cmd) error {
	return startOnOwnThread(cmd, s.restrictThread, s.done)
}

// release lets the starting thread end and closes the ruleset. Safe to call
// more than once.
func (s *llStarter) release() {
	s.once.Do(func() {
		close(s.done)
		unix.Close(s.ruleset)
	})
}

// restrictThread applies the policy to the calling thread, which must be
// locked and never run another goroutine afterwards.
func (s *llStarter) restrictThread() error {
	if s.pol.dropCaps {
		if err := dropCapabilities(); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if s.filter != nil {
		prog := unix.SockFprog{Len: uint16(len(s.filter)), Filter: &s.filter[0]}
		if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECCOMP): %w", err)
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(s.ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// dropCapabilities empties the calling thread's capability bounding set and
// inheritable set (so no exec can grant a capability again). The thread
// keeps the capabilities the child needs to switch to its user (setuid,
// setgid), which the switch to a non-zero uid then clears (the engine never
// runs a command as uid 0).
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == unix.EINVAL { // past the kernel's last capability
			break
		}
		if err != nil {
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for i := range data {
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// writableBy reports, from owners, groups and modes (ACLs aside), whether
// uid/gid may reach dir and create files in it: Landlock only takes access
// away, file modes still apply.
func writableBy(dir string, uid, gid uint32) error {
	for d, need := dir, uint32(0o3); ; d, need = filepath.Dir(d), 0o1 {
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err != nil {
			return &os.PathError{Op: "stat", Path: d, Err: err}
		}
		shift := 0 // others
		switch {
		case st.Uid == uid:
			shift = 6
		case st.Gid == gid:
			shift = 3
		}
		if st.Mode>>shift&need != need {
			what := "write"
			if need == 0o1 {
				what = "enter"
			}
			return fmt.Errorf("cannot %s %s (owner %d:%d, mode %#o)", what, d, st.Uid, st.Gid, st.Mode&0o7777)
		}
		if d == "/" {
			return nil
		}
	}
}

// tmpBase returns the directory for the runs' private temporary
// directories: /dev/shm when it is a tmpfs, else the host's temporary
// directory. Under /dev, which no run may read (allowRoot), a run's
// directory is out of every other run's reach; elsewhere a concurrent run,
// of the same uid 65534 and reading beneath the root, read it
// (TestAttackLandlockRunReadsAnotherRunsTmpdir). Like the fresh /tmp of
// bwrap, a tmpfs also keeps temporary files in memory, and making and
// removing a directory there costs microseconds rather than the fraction
// of a millisecond a journaled disk may take at every run.
func tmpBase() string {
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) == nil && st.Type == unix.TMPFS_MAGIC {
		return "/dev/shm"
	}
	return os.TempDir()
}
