package benchcore

import (
	"runtime"
	"testing"
	"time"
)

// Interleave runs each path block times in turn, for every iteration of
// b.Loop, and reports each path's time relative to the first one as the
// metric "x_<name>". Running the paths in alternating blocks of one loop
// lets a shared machine's drifting speed hit them alike, so the ratios are
// steadier than ns/op of separate benchmarks.
func Interleave(b *testing.B, block int, names []string, paths ...func()) {
	b.Helper()
	interleave(b, block, false, names, paths)
}

// InterleaveSettled is Interleave with a garbage collection, outside the
// timing, before every block. Use it for paths whose allocations are most
// of their cost: without it the collection that one path's garbage
// triggers is partly done (and paid for) while the next path runs, so a
// path that leaves a core idle (a single worker) gets the other path's
// collections done for free and the ratios lean. With it each block
// starts from a collected heap and pays for the collections its own
// allocation triggers, as a separate run of that path would.
func InterleaveSettled(b *testing.B, block int, names []string, paths ...func()) {
	b.Helper()
	interleave(b, block, true, names, paths)
}

func interleave(b *testing.B, block int, settle bool, names []string, paths []func()) {
	b.Helper()
	if len(names) != len(paths) || len(paths) < 2 {
		b.Fatalf("benchcore.Interleave: %d names for %d paths: give a name to each of at least two paths", len(names), len(paths))
	}
	totals := make([]time.Duration, len(paths))
	b.ReportAllocs()
	for b.Loop() {
		for p, run := range paths {
			if settle {
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
			}
			t0 := time.Now()
			for i := 0; i < block; i++ {
				run()
			}
			totals[p] += time.Since(t0)
		}
	}
	for p := range paths {
		b.ReportMetric(float64(totals[p].Nanoseconds())/float64(b.N*block), "ns/"+names[p])
	}
	for p := 1; p < len(paths); p++ {
		b.ReportMetric(float64(totals[p])/float64(totals[0]), "x_"+names[p])
	}
}
