//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// setIDBits are the mode bits that make a program run as its file's owner
// or group.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// modeArg names a system call that sets a file's mode and which of its
// arguments holds the mode; flags >= 0 is the argument whose O_CREAT or
// O_TMPFILE says whether the mode is used at all.
type modeArg struct {
	nr          uint32
	mode, flags int
}

// bwrapFilter is the seccomp program bwrap loads before it runs the command
// (--seccomp). It refuses (EPERM) to give a file the setuid or setgid bit,
// by chmod or at creation, because on an idmapped workspace the command's
// files belong on the host to the workspace's owner (root, for a root
// process's workspace): a setuid-root program left there would run as root
// for any local user who reaches it. openat2(2), whose mode sits in a
// structure a filter cannot read, and io_uring_setup(2), whose operations a
// filter does not see, fail with ENOSYS, which programs take as "fall back
// to the older call". The keyring calls (add_key, request_key, keyctl) fail
// with EPERM: the command inherits the session keyring of the program that
// started bwrap, across the change of uid and into the user namespace, and
// possesses its keys; it read a key the program kept there (and, under
// systemd's KeyringMode=shared, the keys of the service user's keyring
// linked into it) and planted keys for later runs. With the network off,
// socket(2) makes only the families the network namespace confines
// (AF_INET, AF_INET6, AF_NETLINK) and refuses every other (EACCES):
// AF_UNIX, because a pathname socket on the host's read-only root (a
// database's or sssd's under /var/lib, an agent's in a home directory) would
// otherwise be reachable, as the fresh /run and /tmp cover only the usual
// places; AF_VSOCK, which no network namespace cuts off and which on a
// virtual machine reaches the hypervisor's host; and the rest, which a
// command without a network has no use for. With the network on it
// refuses AF_UNIX and AF_VSOCK alone, which no network namespace cuts off
// either: for AF_UNIX the same pathname sockets (a command connected to a
// mode-666 one under / and wrote to it:
// TestAttackS31BwrapNetworkOnConnectsToHostSocket), as landlock's filter
// does before Landlock ABI 9; AF_VSOCK, the hypervisor's host, is no part
// of the host's IP network that WithNetwork(true) gives
// (TestAttackS31ReviewVsockWithTheNetworkOn). socketpair(2) still works,
// but not of datagram sockets (EACCES), network on or off: one of those
// sends to any socket path with sendto(2), or connect(2)s to one, as if
// unconnected (TestAttackS30BwrapDatagramPairReachesHostSocket).
// memfd_create(2) and memfd_secret(2) fail with ENOSYS, shmget(2) and
// msgget(2) with EPERM:
// Limits.Memory is RLIMIT_AS, and memory kept outside a mapping counts
// against no address space, so under a 128 MiB limit a command kept 384
// MiB in memfds (written, never mapped), as much in System V segments (each
// attached, filled and detached: the pages stay with the segment) and as
// much in System V message queues, as it could in the tmpfs directories
// before they were given a size (TestAttackS17EMemoryOutsideTheAddressSpace,
// seen succeeding first on bwrap and gVisor, whose filter refuses these
// too). Programs that have another way fall back on ENOSYS to shm_open(3)
// or a temporary file, in /dev/shm or /tmp, which are bounded; System V
// shared memory and queues have no such bound (the run's IPC namespace
// allows about all of the host's memory, and 512 MiB of queues) and are
// refused, as the landlock engine refuses them. System calls of another
// architecture kill the process; x32 ones fail with ENOSYS.
func bwrapFilter(arch uint32, networkOff bool) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data; an argument's low half (little
		// endian).
		offNr, offArgs = 0, 16
	)
	arg := func(i int) uint32 { return uint32(offArgs + 8*i) }
	allow := unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW}
	errno := func(e unix.Errno) unix.SockFilter {
		return unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(e)}
	}
	prog := filterHead(arch)
	// block: when the call is nr, body decides (each body ends in a ret).
	block := func(nr uint32, body ...unix.SockFilter) {
		prog = append(prog, unix.SockFilter{Code: ld, K: offNr}, unix.SockFilter{Code: jeq, K: nr, Jf: uint8(len(body))})
		prog = append(prog, body...)
	}
	prog = append(prog, setIDBlocks()...)
	block(unix.SYS_OPENAT2, errno(unix.ENOSYS))
	block(unix.SYS_IO_URING_SETUP, errno(unix.ENOSYS))
	// Memory that no address space counts.
	block(unix.SYS_MEMFD_CREATE, errno(unix.ENOSYS))
	block(sysMemfdSecret, errno(unix.ENOSYS))
	block(unix.SYS_SHMGET, errno(unix.EPERM))
	block(unix.SYS_MSGGET, errno(unix.EPERM))
	for _, nr := range []uint32{unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL} {
		block(nr, errno(unix.EPERM))
	}
	if networkOff {
		// Only the families the network namespace confines: IPv4, IPv6
		// (its own loopback) and netlink (its own interfaces).
		block(unix.SYS_SOCKET,
			unix.SockFilter{Code: ld, K: arg(0)},
			unix.SockFilter{Code: jeq, K: unix.AF_INET, Jt: 3},
			unix.SockFilter{Code: jeq, K: unix.AF_INET6, Jt: 2},
			unix.SockFilter{Code: jeq, K: unix.AF_NETLINK, Jt: 1},
			errno(unix.EACCES),
			allow)
	} else {
		// Every family but unix and vsock: a pathname socket on the
		// host's read-only root is reachable whatever the network
		// namespace (TestAttackS31BwrapNetworkOnConnectsToHostSocket),
		// and so is a VM's hypervisor host through vsock
		// (TestAttackS31ReviewVsockWithTheNetworkOn).
		block(unix.SYS_SOCKET,
			unix.SockFilter{Code: ld, K: arg(0)},
			unix.SockFilter{Code: jeq, K: unix.AF_UNIX, Jt: 1},
			unix.SockFilter{Code: jeq, K: unix.AF_VSOCK, Jf: 1},
			errno(unix.EACCES),
			allow)
	}
	// A datagram socket of an unnamed pair still sends to (and connects
	// to) any socket path (sendto(2)), network on or off; stream and
	// seqpacket ones are connected for good.
	block(unix.SYS_SOCKETPAIR,
		unix.SockFilter{Code: ld, K: arg(1)},
		unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0xf}, // SOCK_TYPE_MASK
		unix.SockFilter{Code: jeq, K: unix.SOCK_DGRAM, Jf: 1},
		errno(unix.EACCES),
		allow)
	return append(prog, allow)
}

// sysMemfdSecret is memfd_secret(2), whose file keeps its pages when they
// are unmapped, as a memfd's: filled one window at a time (each within
// RLIMIT_MEMLOCK), it held 384 MiB under a 128 MiB limit
// (TestAttackS17RMemfdSecretOutsideTheAddressSpace). It is 447 on every
// architecture that has it, and that number is no other call's where it
// does not (golang.org/x/sys names it only for some).
const sysMemfdSecret = 447

// filterHead is how every filter here starts: a system call of another
// architecture kills the process, an x32 one fails with ENOSYS, and the
// accumulator is left holding the call's number.
func filterHead(arch uint32) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data.
		offNr, offArch = 0, 4
		x32Bit         = 0x40000000
	)
	return []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, K: arch, Jt: 1},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ld, K: offNr},
		{Code: jge, K: x32Bit, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
}

// setIDBlocks is the part of a seccomp program (after the architecture
// check) that refuses (EPERM) to give a file the setuid or setgid bit, by
// chmod or at creation (see bwrapFilter); the landlock engine's filter has
// it too. Each block loads the call's number, and jumps past itself for
// another call; a matched call returns.
func setIDBlocks() []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data; an argument's low half (little
		// endian).
		offNr, offArgs = 0, 16
		tmpfile        = 0o20000000 // __O_TMPFILE
	)
	arg := func(i int) uint32 { return uint32(offArgs + 8*i) }
	var prog []unix.SockFilter
	for _, c := range modeCalls() {
		body := []unix.SockFilter{
			{Code: ld, K: arg(c.mode)},
			{Code: jset, K: setIDBits, Jf: 1},
			{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
			{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		}
		if c.flags >= 0 {
			body = append([]unix.SockFilter{
				{Code: ld, K: arg(c.flags)},
				{Code: jset, K: unix.O_CREAT | tmpfile, Jf: uint8(len(body) - 1)}, // -> allow
			}, body...)
		}
		prog = append(prog, unix.SockFilter{Code: ld, K: offNr}, unix.SockFilter{Code: jeq, K: c.nr, Jf: uint8(len(body))})
		prog = append(prog, body...)
	}
	return prog
}

// bwrapFilterFile writes the filter into a memory file for bwrap to read
// from its descriptor, sealed once written: until bwrap has read it, a
// process that can open this program's /proc/PID/fd/N (one of its uid)
// could otherwise rewrite or empty it, and the run would start under
// its filter, or none (TestAttackS33SealedSeccompFilter).
func bwrapFilterFile(networkOff bool) (*os.File, error) {
	arch := socketFilterArch()
	if arch == 0 {
		return nil, fmt.Errorf("no seccomp filter is written for this architecture")
	}
	prog := bwrapFilter(arch, networkOff)
	fd, err := unix.MemfdCreate("toolbelt-seccomp", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "seccomp")
	b := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_SEAL); err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the seccomp filter's memfd: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
