package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// idmapBase is where the mount points of idmapped workspaces are made: on
// the host they stay empty directories (the mounts are attached in a mount
// namespace of their own, see idmapDir), and every bwrap sandbox puts a
// fresh tmpfs on /tmp, so no sandbox sees another run's mount there either.
const idmapBase = "/tmp"

// idmapDirPrefix names the directories of the mount points, under
// idmapBase.
const idmapDirPrefix = "toolbelt-idmap-"

// removeIdmapDir removes the mount point's directory. Never RemoveAll:
// these are empty directories of the host's. The mount point goes through
// the descriptor of the directory that was checked and locked, not its
// path: a sweep's leftover may be another user's, who can put a link to
// any directory in its place meanwhile, and root would have removed that
// directory's "ws" through it.
func removeIdmapDir(d *runDir) {
	_ = unix.Unlinkat(d.fd, "ws", unix.AT_REMOVEDIR)
	_ = os.Remove(d.path) // a link put in its place is removed, not followed
}
