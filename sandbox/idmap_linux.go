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

var (
	usernsMu  sync.Mutex
	usernsFds = map[idMap]int{}
)

// mappingUserns returns a user namespace (as an open descriptor, kept for the
// life of the process: one per mapping) whose ids map owner to as (and, with
// rootAs, rootUID/rootGID to 0), for MOUNT_ATTR_IDMAP. A short-lived child is started
// in it to get hold of it.
func mappingUserns(k idMap) (int, error) {
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
	uids := []syscall.SysProcIDMap{{ContainerID: int(k.ownerUID), HostID: int(k.asUID), Size: 1}}
	gids := []syscall.SysProcIDMap{{ContainerID: int(k.ownerGID), HostID: int(k.asGID), Size: 1}}
	// Where the command's id is 0, root is mapped already (to the owner).
	if k.rootAs && k.asUID != 0 {
		uids = append(uids, syscall.SysProcIDMap{ContainerID: int(k.rootUID), HostID: 0, Size: 1})
	}
	if k.rootAs && k.asGID != 0 {
		gids = append(gids, syscall.SysProcIDMap{ContainerID: int(k.rootGID), HostID: 0, Size: 1})
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: uids,
		GidMappings: gids,
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

// idmapDir makes dir, as seen through the id mapping ids, which shows files
// owned by its owner as owned by the command's uid/gid (and writes files of
// that uid/gid as its owner's), reachable at a fresh path under idmapBase
// for one bwrap or runsc run, and returns that path, the function that
// starts bwrap or runsc, the one that releases it all and the one that
// opens a path in the mapped tree (see openBeneath). It needs root.
// Mounts below dir are not carried over. then, when not nil, further
// changes the starting thread once the tree is attached (see threadStart).
//
// The mapped tree is attached only in a mount namespace of its own, that of
// the thread that starts bwrap (start): no other process of the host sees
// it. Attached in the host's namespace, as it once was, it let any host
// process of uid 65534 (a landlock run, a "nobody" daemon) own the files of
// a root-owned 0700 workspace while the run lasted: read root's secrets and
// plant a .git/config (TestAttackIdmappedWorkspaceFromTheHost). On the
// host, the path is an empty directory of root's.
func idmapDir(dir string, ids idMap, then func() error) (string, func(*exec.Cmd) error, func(), func(rel string) (*os.File, error), error) {
	ns, err := mappingUserns(ids)
	if err != nil {
		return "", nil, nil, nil, err
	}
	tree, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return "", nil, nil, nil, fmt.Errorf("open_tree(%s): %w", dir, err)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(ns)}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		unix.Close(tree)
		return "", nil, nil, nil, fmt.Errorf("idmapping %s (kernel 5.12+ and a filesystem that supports idmapped mounts are needed): %w", dir, err)
	}
	rd, err := makeRunDir(idmapBase, idmapDirPrefix)
	if err != nil {
		unix.Close(tree)
		return "", nil, nil, nil, err
	}
	base := rd.path
	// Searchable, not listable: the unprivileged bwrap must reach the
	// mount point (which, on the host, stays an empty directory).
	m := &idmapMount{tree: tree, dir: rd, target: filepath.Join(base, "ws"), then: then, done: make(chan struct{})}
	err = os.Chmod(base, 0o711)
	if err == nil {
		err = os.Mkdir(m.target, 0o700)
	}
	if err != nil {
		m.release()
		return "", nil, nil, nil, fmt.Errorf("making the mount point of the idmapped workspace: %w", err)
	}
	return m.target, m.start, m.release, m.open, nil
}

// open opens rel in the mapped tree, without following a symlink (see
// openBeneath). Opened before the tree is attached, the descriptor is
// found at the tree's path once it is: bwrap, started in the thread's
// namespace, mounts it from there. Only before release.
func (m *idmapMount) open(rel string) (*os.File, error) { return openBeneath(m.tree, rel) }

// idmapMount is one run's idmapped workspace: a detached mount, attached at
// target in the private mount namespace of the thread that starts bwrap.
type idmapMount struct {
	tree   int     // the detached, idmapped mount
	dir    *runDir // holds target
	target string
	then   func() error  // more changes to the starting thread, or nil
	done   chan struct{} // closed by release: the starting thread may end
	once   sync.Once
}

// start starts cmd from a locked OS thread that has a mount namespace of
// its own, in which the idmapped tree is attached at target. A child
// inherits the mount namespace of the thread that forks it (exec.Cmd.Start
// forks on the calling thread), so bwrap finds the workspace there and no
// other process of the host does.
func (m *idmapMount) start(cmd *exec.Cmd) error {
	return startOnOwnThread(cmd, func() error {
		if err := m.attach(); err != nil || m.then == nil {
			return err
		}
		return m.then()
	}, m.done)
}

// attach moves the calling thread into a new mount namespace and attaches
// the tree there.
func (m *idmapMount) attach() error {
	if err := privateMountNS(); err != nil {
		return fmt.Errorf("a mount namespace for the idmapped workspace: %w", err)
	}
	if err := unix.MoveMount(m.tree, "", unix.AT_FDCWD, m.target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("mounting the idmapped workspace: %w", err)
	}
	return nil
}

// release lets the starting thread end (its mount namespace, and the
// mount, go with the last process in it), closes the tree and removes the
// empty mount point. Safe to call more than once.
func (m *idmapMount) release() {
	m.once.Do(func() {
		close(m.done)
		unix.Close(m.tree)
		removeIdmapDir(m.dir)
		m.dir.unlock()
	})
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
