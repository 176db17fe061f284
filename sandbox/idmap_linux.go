//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// idmapBase is where idmapped workspaces are mounted on the host. Every
// bwrap sandbox puts a fresh tmpfs on /tmp, so no sandbox sees another run's
// mount there.
const idmapBase = "/tmp"

// idKey is one id mapping: files owned by owner appear owned by as.
type idKey struct{ ownerUID, ownerGID, asUID, asGID uint32 }

var (
	usernsMu  sync.Mutex
	usernsFds = map[idKey]int{}
)

// mappingUserns returns a user namespace (as an open descriptor, kept for the
// life of the process: one per mapping) whose ids map owner to as, for
// MOUNT_ATTR_IDMAP. A short-lived child is started in it to get hold of it.
func mappingUserns(k idKey) (int, error) {
	usernsMu.Lock()
	defer usernsMu.Unlock()
	if fd, ok := usernsFds[k]; ok {
		return fd, nil
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		sleep = "/bin/sleep"
	}
	cmd := exec.Command(sleep, "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: int(k.ownerUID), HostID: int(k.asUID), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: int(k.ownerGID), HostID: int(k.asGID), Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("creating a user namespace for the id mapping: %w", err)
	}
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err != nil {
		return -1, fmt.Errorf("opening the user namespace for the id mapping: %w", err)
	}
	usernsFds[k] = fd
	return fd, nil
}

// idmapDir mounts dir, as seen through an id mapping that shows files owned
// by its owner as owned by uid/gid (and writes files of uid/gid as its
// owner's), at a fresh path under idmapBase, and returns that path and the
// function that unmounts it. It needs root. Mounts below dir are not carried
// over.
func idmapDir(dir string, ownerUID, ownerGID, uid, gid uint32) (string, func(), error) {
	ns, err := mappingUserns(idKey{ownerUID, ownerGID, uid, gid})
	if err != nil {
		return "", nil, err
	}
	tree, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return "", nil, fmt.Errorf("open_tree(%s): %w", dir, err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(ns)}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return "", nil, fmt.Errorf("idmapping %s (kernel 5.12+ and a filesystem that supports idmapped mounts are needed): %w", dir, err)
	}
	base, err := os.MkdirTemp(idmapBase, "toolbelt-idmap-")
	if err != nil {
		return "", nil, err
	}
	// Searchable, not listable: the unprivileged bwrap must reach the mount.
	target := filepath.Join(base, "ws")
	err = os.Chmod(base, 0o711)
	if err == nil {
		err = os.Mkdir(target, 0o700)
	}
	if err == nil {
		err = unix.MoveMount(tree, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH)
	}
	if err != nil {
		_ = os.Remove(target)
		_ = os.Remove(base)
		return "", nil, fmt.Errorf("mounting the idmapped workspace: %w", err)
	}
	cleanup := func() {
		// Never RemoveAll: if the unmount failed, that would delete the
		// workspace's files through the mount.
		if unix.Unmount(target, unix.MNT_DETACH) == nil {
			_ = os.Remove(target)
			_ = os.Remove(base)
		}
	}
	return target, cleanup, nil
}

// ownerOf returns the uid and gid that own path.
func ownerOf(path string) (uint32, uint32, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, err
	}
	return st.Uid, st.Gid, nil
}

// pidnsAttr puts the process started with attr into a new pid namespace, so
// that when it dies the kernel kills every process it started, whatever
// session or group they moved to. A caller that is not root gets a user
// namespace with its own ids mapped, which creating the pid namespace needs.
func pidnsAttr(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWPID
	if os.Geteuid() == 0 {
		return
	}
	uid, gid := os.Geteuid(), os.Getegid()
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}
