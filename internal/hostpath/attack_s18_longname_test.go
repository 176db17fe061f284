package hostpath

import (
	"runtime"
	"strings"
	"testing"
)

// TestAttackS18LongNameCostsLinearMemory: a model-chosen path argument of
// 64 KiB (32,768 components under a missing directory) was joined component
// by component with path.Join, copying the whole path each time: 924 MB
// allocated and 1.6 s for one call's policy check. What is allocated must
// grow with the name, not with its square.
func TestAttackS18LongNameCostsLinearMemory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"missing/" + strings.Repeat("a/", 32<<10) + "f",
		strings.Repeat("missing/b/../", 8<<10) + "f",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, ok := ResolveIn(dir, name)
		runtime.ReadMemStats(&after)
		if !ok || !strings.HasPrefix(got, dir+"/missing") {
			t.Fatalf("ResolveIn(%q, a %d-byte name) = %.40q, %v; want it under %s/missing", dir, len(name), got, ok, dir)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(64*len(name)) {
			t.Errorf("resolving a %d-byte name allocated %d bytes (over 64 per byte of the name): the path is copied once per component", len(name), alloc)
		}
	}
}
