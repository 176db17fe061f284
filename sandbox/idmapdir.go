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

// idMap is the id mapping of an idmapped workspace: files owned by
// owner appear owned by as, the command's uid and gid, and files as
// creates are owned by owner on disk. Ids of other users appear as the
// overflow id and keep no rights through the mount.
//
// With rootAs, host uid and gid 0 are mapped too, to rootUID/rootGID on
// disk: runsc's gofer, which creates the command's files as root and then
// gives them to the command's uid (which the mount makes the owner's),
// could create nothing otherwise (EOVERFLOW: root has no id on the
// mount). Files of rootUID/rootGID in the workspace then appear as root's.
type idMap struct {
	ownerUID, ownerGID, asUID, asGID uint32
	rootAs                           bool
	rootUID, rootGID                 uint32
}

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
