package sandbox

import "testing"

// runsc, like bwrap (TestAttackS23SwapAfterThePlan), mounted the
// directories above a masked path (writable) and the repository's .git
// (read-only) from the paths in its OCI spec, resolved on the host when
// its gofer mounts them, a moment after the plan checked them: a command
// at work in the same workspace that swapped one for a relative symlink
// out of the workspace in between had the host directory bound into the
// run, and the run read and wrote there. runsc now gets each one pinned
// (see pinnedMount): a swap before the pinned mounts are made keeps runsc
// from starting, one after them changes nothing runsc mounts from.
func TestAttackS25GVisorSwapAfterThePlan(t *testing.T) {
	t.Run("before the pinned mounts", func(t *testing.T) { swapAfterThePlan(t, EngineGVisor, false) })
	t.Run("after the pinned mounts", func(t *testing.T) { swapAfterThePlan(t, EngineGVisor, true) })
}

// The directories runsc binds pinned are bound as before: writable above a
// masked path, read-only for .git, with the mask over them, from the
// workspace's own path and from an idmapped copy.
func TestGVisorPinnedBindsWork(t *testing.T) { pinnedBindsWork(t, EngineGVisor, "fds [0, 1, 2, 3]\n") }
