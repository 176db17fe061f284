//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AccessFSResolveUnix is the Landlock right to connect to a unix socket at
// a path (ABI 9), newer than golang.org/x/sys/unix names (uapi
// linux/landlock.h).
const AccessFSResolveUnix = 1 << 16

// ABI asks the kernel for its Landlock ABI version.
func ABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case 0:
		return int(v), nil
	case unix.ENOSYS:
		return 0, fmt.Errorf("landlock_create_ruleset: %w (the kernel is built without Landlock)", errno)
	case unix.EOPNOTSUPP:
		return 0, fmt.Errorf("landlock_create_ruleset: %w (Landlock is built in but not enabled at boot)", errno)
	}
	return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
}

// HandledFS is every filesystem right the ABI knows: each one handled and
// not granted by a rule is denied.
func HandledFS(abi int) uint64 {
	switch {
	case abi >= 9:
		return 1<<17 - 1
	case abi >= 5:
		return 1<<16 - 1
	case abi >= 3:
		return 1<<15 - 1
	case abi >= 2:
		return 1<<14 - 1
	}
	return 1<<13 - 1
}

// fileRights are the rights a rule on a file (not a directory) may grant.
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// AllowBeneath adds to ruleset a rule granting access beneath path (on path
// alone, and only the rights a file can have, when it is not a directory).
// An error opening path is an *os.PathError whose Op is "open".
func AllowBeneath(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}

// CloseOnExecAll marks every descriptor of this process from 3 up
// close-on-exec, so that none reaches a command but its stdio and the
// files exec passes on explicitly. Descriptors Go opens
// are close-on-exec already; one this process inherited (a supervisor's
// pipe, a socket-activated listener) or that C code opened is not, and exec
// leaves it open in the child: bwrap, prlimit and the command kept it, and a
// command with the network off talked to a 127.0.0.1 server through a
// connected socket of the host (TestAttackInheritedDescriptor).
func CloseOnExecAll() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: one descriptor at a time.
	ents, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, e := range ents {
		fd, aerr := strconv.Atoi(e.Name())
		if aerr != nil || fd < 3 {
			continue
		}
		// The directory's own descriptor is gone by now: EBADF.
		if _, ferr := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); ferr != nil && ferr != unix.EBADF {
			return ferr
		}
	}
	return nil
}

func init() {
	// Only as the first process of a pid namespace (bwrap --as-pid-1),
	// with the marker: no other start of the program looks like this.
	if len(os.Args) > 1 && os.Args[1] == BwrapInitArg && os.Getpid() == 1 {
		bwrapInitMain(os.Args[2:])
	}
}

// bwrapInitMain confines the process and execs the run (see bwrapInit). It
// does not return: when anything fails the run ends with status 126 and
// the reason on its standard error, and the command never starts.
func bwrapInitMain(args []string) {
	runtime.LockOSThread() // Landlock confines the thread that execs
	argv, env, err := bwrapInit(args)
	if err == nil {
		err = syscall.Exec(argv[0], argv, env)
		err = fmt.Errorf("exec %s: %w", argv[0], err)
	}
	fmt.Fprintf(os.Stderr, "toolbelt sandbox: bwrap: the run's first process: %v\n", err)
	os.Exit(126)
}

// bwrapInit confines the calling thread for a bwrap run and returns what
// it then execs. args are "-w DIR" for each directory the command may write
// beneath, "-u NAME" for each variable of this process's environment the
// exec drops (the program's own loader variables, which this process may
// need to start), "-e NAME=VALUE" for each it adds, "-C DIR" for the
// directory the exec starts in, "--", and the command line (see sandbox's
// Bwrap.plan).
//
// The run's mounts leave the host's root read-only, but a read-only mount
// does not stop writes to a FIFO (named pipe) on it, and bwrap's seccomp
// filter cannot tell a FIFO from a file: a command wrote a line into a
// mode-666 FIFO in a host directory, which reached the host process that
// read it (TestAttackS32BwrapHostFifo). Landlock judges paths and so can
// refuse it, but a process confined by Landlock may not mount, which bwrap
// must: so this process, started by bwrap once its mounts are made, puts
// itself in a Landlock domain that refuses every write but beneath the
// directories given (the workspace and the fresh ones), and then execs the
// rest of the run, which stays in that domain. Reads and execution are
// left to the mounts. Every descriptor past stdio is closed on the exec
// (this executable's own among them). The program's package inits ran
// before this in "/" (bwrap's --chdir), not in the command's directory.
func bwrapInit(args []string) (argv, env []string, err error) {
	var dirs, add []string
	dir := ""
	env = os.Environ()
	for len(args) > 1 && args[0] != "--" {
		switch args[0] {
		case "-w":
			dirs = append(dirs, args[1])
		case "-u":
			env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, args[1]+"=") })
		case "-e":
			if !strings.Contains(args[1], "=") {
				return nil, nil, fmt.Errorf("-e %q: want NAME=VALUE", args[1])
			}
			add = append(add, args[1])
		case "-C":
			dir = args[1]
		default:
			return nil, nil, fmt.Errorf("unknown argument %q", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 || args[0] != "--" {
		return nil, nil, errors.New(`no command after "--"`)
	}
	if err := CloseOnExecAll(); err != nil {
		return nil, nil, fmt.Errorf("closing descriptors on exec: %w", err)
	}
	if err := restrictWrites(dirs); err != nil {
		return nil, nil, err
	}
	if dir != "" {
		if err := os.Chdir(dir); err != nil {
			return nil, nil, err
		}
	}
	return args[1:], append(env, add...), nil
}

// llReadRights are the rights a write-only domain leaves alone: a handled
// right not granted is denied, and reads, execution, device ioctls and
// unix socket paths are the mounts' and the seccomp filter's business.
const llReadRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV | AccessFSResolveUnix

// restrictWrites puts the calling thread in a Landlock domain that refuses
// every write, file creation, removal, rename and truncation but beneath
// dirs. A missing one is skipped, and so is one that is not a directory:
// a symbolic link would put the rule where it leads (a host directory, when
// /var/tmp is a link to one that the run shows read-only).
func restrictWrites(dirs []string) error {
	abi, err := ABI()
	if err != nil {
		return err
	}
	write := HandledFS(abi) &^ llReadRights
	attr := unix.LandlockRulesetAttr{Access_fs: write}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, d := range dirs {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue
		}
		var open *os.PathError
		if err := AllowBeneath(int(fd), d, write); err != nil && !(errors.As(err, &open) && open.Op == "open" && errors.Is(err, unix.ENOENT)) {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
