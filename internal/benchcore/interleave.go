package benchcore

import (
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
	if len(names) != len(paths) || len(paths) < 2 {
		b.Fatalf("benchcore.Interleave: %d names for %d paths: give a name to each of at least two paths", len(names), len(paths))
	}
	totals := make([]time.Duration, len(paths))
	b.ReportAllocs()
	for b.Loop() {
		for p, run := range paths {
			t0 := time.Now()
			for i := 0; i < block; i++ {
				run()
			}
			totals[p] += time.Since(t0)
		}
	}
	for p := 1; p < len(paths); p++ {
		b.ReportMetric(float64(totals[p])/float64(totals[0]), "x_"+names[p])
	}
}
