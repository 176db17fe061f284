package classify

import (
	"sort"
	"strings"
	"testing"
)

// benchLines runs a benchmark of each line, in the order of their names.
func benchLines(b *testing.B, lines map[string]string) {
	c := Default()
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(lines[name])
			}
		})
	}
}

// BenchmarkClassifyExpansions classifies the lines whose expansions make
// far more text than they hold (expansionLines), and a plain line as
// long to compare.
func BenchmarkClassifyExpansions(b *testing.B) {
	lines := map[string]string{"plain": fillLine("ls ", "a ")}
	for n, l := range expansionLines {
		lines[n] = l
	}
	benchLines(b, lines)
}

// reasonLines are 64 KiB lines with thousands of different reasons: an
// unknown variable exported to a program, a secret file named, in one
// command or in many.
var reasonLines = map[string]string{
	"prefix assignments": numberedLine("", "a#=1 ", " ls", 65536),
	"env assignments":    numberedLine("env ", "a#=1 ", " ls", 65536),
	"secret files":       numberedLine("cat", " .env#", "", 65536),
	"secret commands":    numberedLine("", "cat .env#;", "", 65536),
}

// BenchmarkClassifyReasons classifies reasonLines, and a plain line as
// long to compare.
func BenchmarkClassifyReasons(b *testing.B) {
	lines := map[string]string{"plain": fillLine("ls ", "a ")}
	for n, l := range reasonLines {
		lines[n] = l
	}
	benchLines(b, lines)
}

// BenchmarkClassifyClones classifies the lines that clone a thousand
// repositories and read thousands of files (cloneLines), and a plain
// line as long to compare.
func BenchmarkClassifyClones(b *testing.B) {
	lines := map[string]string{"plain": fillLine("ls ", "a ")}
	for n, l := range cloneLines {
		lines[n] = l
	}
	benchLines(b, lines)
}

// BenchmarkClassifyDirSecrets classifies the lines that name thousands
// of files in a loop or function body after 16 cd (dirSecretLines),
// and a plain line as long to compare.
func BenchmarkClassifyDirSecrets(b *testing.B) {
	lines := map[string]string{"plain": fillLine("ls ", "a ")}
	for n, tc := range dirSecretLines {
		lines[n] = tc.line
	}
	benchLines(b, lines)
}

// BenchmarkClassifyStateCopies classifies the lines that set thousands
// of variables and then run commands that each copied them
// (stateCopyLines), and a plain line as long to compare.
func BenchmarkClassifyStateCopies(b *testing.B) {
	lines := map[string]string{"plain": fillLine("ls ", "a ")}
	for n, l := range stateCopyLines {
		lines[n] = l
	}
	benchLines(b, lines)
}
