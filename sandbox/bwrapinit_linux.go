//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	// Only as the first process of a pid namespace (bwrap --as-pid-1),
	// with the marker: no other start of the program looks like this.
	if len(os.Args) > 1 && os.Args[1] == bwrapInitArg && os.Getpid() == 1 {
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
// beneath, "-e NAME=VALUE" for each variable the exec adds to the
// environment, "--", and the command line (see Bwrap.plan).
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
// (this executable's own among them).
func bwrapInit(args []string) (argv, env []string, err error) {
	var dirs []string
	env = os.Environ()
	for len(args) > 1 && args[0] != "--" {
		switch args[0] {
		case "-w":
			dirs = append(dirs, args[1])
		case "-e":
			if !strings.Contains(args[1], "=") {
				return nil, nil, fmt.Errorf("-e %q: want NAME=VALUE", args[1])
			}
			env = append(env, args[1])
		default:
			return nil, nil, fmt.Errorf("unknown argument %q", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 || args[0] != "--" {
		return nil, nil, errors.New(`no command after "--"`)
	}
	if err := closeOnExecAll(); err != nil {
		return nil, nil, fmt.Errorf("closing descriptors on exec: %w", err)
	}
	if err := restrictWrites(dirs); err != nil {
		return nil, nil, err
	}
	return args[1:], env, nil
}

// llReadRights are the rights a write-only domain leaves alone: a handled
// right not granted is denied, and reads, execution, device ioctls and
// unix socket paths are the mounts' and the seccomp filter's business.
const llReadRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV | llAccessFSResolveUnix

// restrictWrites puts the calling thread in a Landlock domain that refuses
// every write, file creation, removal, rename and truncation but beneath
// dirs (a missing one is skipped).
func restrictWrites(dirs []string) error {
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	write := llHandledFS(abi) &^ llReadRights
	attr := unix.LandlockRulesetAttr{Access_fs: write}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	s := &llStarter{ruleset: int(fd)}
	for _, d := range dirs {
		var open *os.PathError
		if err := s.allow(d, write); err != nil && !(errors.As(err, &open) && open.Op == "open" && errors.Is(err, unix.ENOENT)) {
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
