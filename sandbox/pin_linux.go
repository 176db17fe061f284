//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel, a slash-separated path of names below the
// directory root (a descriptor), as an O_PATH descriptor without following
// a symbolic link in any of its names: every name but the last must be a
// directory, the last a directory or a regular file. It is how bwrap is
// handed the workspace's directories it binds (see [pins]).
func openBeneath(root int, rel string) (*os.File, error) {
	names := strings.Split(rel, "/")
	fd := root
	for i, name := range names {
		if name == "" || name == "." || name == ".." {
			if fd != root {
				unix.Close(fd)
			}
			return nil, fmt.Errorf("%q is not a path of names below the workspace", rel)
		}
		flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(names)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, name, flags, 0)
		if fd != root {
			unix.Close(fd)
		}
		if err != nil {
			return nil, fmt.Errorf("opening %q in the workspace without following a symlink: %w", rel, err)
		}
		fd = next
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFDIR && t != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("%q in the workspace is neither a directory nor a regular file (a symlink?)", rel)
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// openBeneathDir opens rel below the directory dir (see openBeneath); dir
// itself is followed if it is a link, as the workspace's path is.
func openBeneathDir(dir, rel string) (*os.File, error) {
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(root)
	return openBeneath(root, rel)
}

// privateMountNS moves the calling thread into a mount namespace of its
// own, from which no mount propagates to the host's.
func privateMountNS() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	// Nothing mounted here reaches the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	return nil
}

// attachPinned opens each pinned directory or file with open (see
// openBeneath: without following a symlink), clones it as a mount and
// attaches the clone at its target, in the calling thread's mount
// namespace, which must be its own (privateMountNS). A name swapped for a
// symlink since the plan fails here, before runsc starts.
func attachPinned(open func(rel string) (*os.File, error), pins []pinnedMount) error {
	for _, p := range pins {
		f, err := open(p.rel)
		if err != nil {
			return fmt.Errorf("the workspace's %s: %w", p.rel, err)
		}
		tree, err := unix.OpenTree(int(f.Fd()), "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
		f.Close()
		if err != nil {
			return fmt.Errorf("cloning the workspace's %s: open_tree: %w", p.rel, err)
		}
		err = unix.MoveMount(tree, "", unix.AT_FDCWD, p.target, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(tree)
		if err != nil {
			return fmt.Errorf("attaching the workspace's %s at %s: %w", p.rel, p.target, err)
		}
	}
	return nil
}
