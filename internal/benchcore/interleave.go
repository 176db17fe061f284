package benchcore

import (
	"testing"
	"time"
)

// Interleave runs each path block times in turn, for every iteration of
// b.Loop, and reports each path's time relative to the first one as the
// metric "x_<name>", and each path's time per run as "ns/<name>". Running the paths in alternating blocks of one loop
// lets a shared machine's drifting speed hit them alike, so the ratios are
// steadier than ns/op of separate benchmarks.
func Interleave(b *testing.B, block int, names []string, paths ...func()) {
	b.Helper()
	interleave(b, block, 0, names, paths)
}

// InterleaveWarm is Interleave with warm untimed runs of each path before
// each of its blocks. Use it for paths whose allocations are most of their
// cost and that use the cores differently (one worker against two): Go's
// collector paces each cycle from what it measured in the last few, and
// pays for marking with whatever cores are idle, so a path run right after
// another inherits that path's pacing and part of its collection work for
// several cycles. Interleaved without a warm-up, two workers measured only
// 1.1-1.3x one worker's throughput here while separate runs measured 1.4-1.8x
// (median 1.6x); with two workers interleaved with themselves the blocks
// agree.
// Warm runs long enough to span a few collections bring each timed block
// close to its own pacing (six warm batches: 1.4-1.5x), though not all the
// way to a separate run's.
func InterleaveWarm(b *testing.B, warm, block int, names []string, paths ...func()) {
	b.Helper()
	interleave(b, block, warm, names, paths)
}

func interleave(b *testing.B, block, warm int, names []string, paths []func()) {
	b.Helper()
	if len(names) != len(paths) || len(paths) < 2 {
		b.Fatalf("benchcore.Interleave: %d names for %d paths: give a name to each of at least two paths", len(names), len(paths))
	}
	totals := make([]time.Duration, len(paths))
	b.ReportAllocs()
	for b.Loop() {
		for p, run := range paths {
			if warm > 0 {
				b.StopTimer()
				for i := 0; i < warm; i++ {
					run()
				}
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
