package sandbox

import (
	"os"
	"path/filepath"
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
// these are empty directories of the host's.
func removeIdmapDir(dir string) {
	_ = os.Remove(filepath.Join(dir, "ws"))
	_ = os.Remove(dir)
}
