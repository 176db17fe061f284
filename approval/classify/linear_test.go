package classify

import (
	"math"
	"runtime"
	"strings"
	"testing"
)

// growingLines are families of command lines that grow with n, each
// under every limit at n = 4 KiB: long words, many words, many commands,
// deep nesting, long shell strings and the line the fuzzer once found slow
// (longOptionLine). Classifying a line 4 times as long must cost about 4
// times as much. Not here: a chain of wrappers (env env ... ls), each
// judged with every word after it and listed so in Verdict.Commands, which
// costs the square of its depth by design, up to Limits.MaxNesting
// (TestDeeplyWrappedCommandsAreBounded); 32 and 128 env allocate 87 KB and
// 1.08 MB.
var growingLines = map[string]func(n int) string{
	"long option": longOptionLine,
	"word":        func(n int) string { return "echo " + strings.Repeat("a", n) },
	"words":       func(n int) string { return "echo " + strings.Repeat("ab ", n/3) },
	"commands":    func(n int) string { return strings.Repeat("ls;", n/3) },
	"pipeline":    func(n int) string { return strings.Repeat("cat|", n/4) + "cat" },
	"globs":       func(n int) string { return "cat " + strings.Repeat("*.go ", n/5) },
	"secret globs": func(n int) string {
		return "cat " + strings.Repeat(".e* ", n/4)
	},
	"quoted":       func(n int) string { return `echo "` + strings.Repeat(`\"x`, n/3) + `"` },
	"heredoc":      func(n int) string { return "cat <<EOF\n" + strings.Repeat("line x\n", n/7) + "EOF" },
	"shell string": func(n int) string { return "bash -c '" + strings.Repeat("ls; ", n/4) + "'" },
	"assignments":  func(n int) string { return strings.Repeat("a=$a; ", n/6) + "echo $a" },
	"subshells":    func(n int) string { return strings.Repeat("( ", n/32) + "ls" + strings.Repeat(" )", n/32) },
	"substitutions": func(n int) string {
		return "echo " + strings.Repeat("$(", n/32) + "ls" + strings.Repeat(")", n/32)
	},
	"arithmetic":  func(n int) string { return "echo $((" + strings.Repeat("1+", n/32) + "1))" },
	"sed script":  func(n int) string { return "sed -e '" + strings.Repeat("s/a/b/;", n/7) + "' f" },
	"git config":  func(n int) string { return "git config " + strings.Repeat("a.", n/2) + "b v" },
	"find":        func(n int) string { return "find . " + strings.Repeat("-name x -o ", n/11) + "-print" },
	"cd and glob": func(n int) string { return strings.Repeat("cd a; ", n/64) + "echo x > *.txt" },
}

// TestWorkGrowsLinearly is the classifier's guard against input whose cost
// grows faster than its length, counted rather than timed: the
// allocations and bytes allocated classifying each growingLines line at 4
// KiB are under 8 times those at 1 KiB (about 4 when the work is linear,
// 16 when it is quadratic). Time per byte is BenchmarkClassifyLongOption's
// to show; work that allocates nothing is not seen here.
func TestWorkGrowsLinearly(t *testing.T) {
	c := Default()
	for name, line := range growingLines {
		small, large := line(1<<10), line(4<<10)
		if v := c.Classify(large); v.Incomplete {
			t.Errorf("%s: the 4 KiB line is over a limit: %v", name, v.Reasons)
			continue
		}
		sAllocs, sBytes := allocated(func() { c.Classify(small) })
		lAllocs, lBytes := allocated(func() { c.Classify(large) })
		t.Logf("%-13s allocations %6d -> %6d, bytes %8d -> %8d", name, sAllocs, lAllocs, sBytes, lBytes)
		if lAllocs > 8*sAllocs {
			t.Errorf("%s: %d allocations at 4 KiB, over 8 times the %d at 1 KiB", name, lAllocs, sAllocs)
		}
		if lBytes > 8*sBytes {
			t.Errorf("%s: %d bytes allocated at 4 KiB, over 8 times the %d at 1 KiB", name, lBytes, sBytes)
		}
	}
}

// allocated returns the allocations and bytes allocated by one call of f,
// the mean of 4 runs after a first, on one thread (as testing.AllocsPerRun
// counts them), the least of 3 such means: under -race a sync.Pool (the
// parsers', regexp's machines) drops what is put in it at random, so one
// mean may count a pool's refill that another does not (the long option
// line measured 11484 bytes at 1 KiB in one run, 34318 to 55788 in others).
func allocated(f func()) (allocs, bytes uint64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	const runs, rounds = 4, 3
	allocs, bytes = math.MaxUint64, math.MaxUint64
	for range rounds {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		allocs = min(allocs, (after.Mallocs-before.Mallocs)/runs)
		bytes = min(bytes, (after.TotalAlloc-before.TotalAlloc)/runs)
	}
	return allocs, bytes
}
