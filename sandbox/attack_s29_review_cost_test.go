package sandbox

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// mountTables returns two tables of n mounts besides /: n filesystems far
// from any hidden path (a container host's overlays), and n binds of one
// filesystem below /run/user, which landlockHidden hides.
func mountTables(n int) map[string][]mountEntry {
	spread := []mountEntry{{dev: "254:0", root: "/", point: "/"}}
	same := []mountEntry{{dev: "254:0", root: "/", point: "/"}}
	for i := range n {
		spread = append(spread, mountEntry{dev: fmt.Sprintf("0:%d", 100+i), root: "/", point: fmt.Sprintf("/var/lib/docker/overlay2/%d/merged", i)})
		same = append(same, mountEntry{dev: "0:99", root: "/", point: fmt.Sprintf("/run/user/1000/m%d", i)})
	}
	return map[string][]mountEntry{"spread": spread, "sameBelowHidden": same}
}

// hiddenForCost is a hidden list the size landlockHidden makes for two
// homes.
func hiddenForCost() []string {
	paths := []string{"/dev", "/run/secrets", "/run/credentials", "/var/run/secrets", "/run/user"}
	for _, s := range DefaultHomeSecrets {
		paths = append(paths, "/home/u/"+s, "/root/"+s)
	}
	return paths
}

// Attack (cost): otherPaths looked each mount below a hidden path up as a
// place of its own, and every place in every mount of the table, making a
// path for each pair that matched: with n mounts of one filesystem below
// /run/user (or /dev), n*n paths were made and compared with every path
// found so far, at each sandbox start. 10,000 such mounts cost 2.4 GB
// allocated and 19 s of CPU for one run's preparation
// (BenchmarkS29ReviewOtherPaths before the fix); 2,000 are counted here
// by allocations, not time.
func TestAttackS29ReviewOtherPathsCostIsLinear(t *testing.T) {
	const n = 2000
	table := mountTables(n)["sameBelowHidden"]
	paths := hiddenForCost()
	var got []string
	allocs := testing.AllocsPerRun(1, func() { got = otherPaths(table, paths) })
	assert.Empty(t, got, "every bind lies below /run/user, hidden already")
	assert.Less(t, allocs, float64(20*n), "otherPaths allocated %v times for %d mounts of one filesystem below a hidden path", allocs, n)
}

func BenchmarkS29ReviewOtherPaths(b *testing.B) {
	paths := hiddenForCost()
	for name, table := range mountTables(10000) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				otherPaths(table, paths)
			}
		})
	}
}
