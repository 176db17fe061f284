package approval

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
)

// longLines are command lines just under the classifier's 64 KiB limit
// that make every deny rule look at many computed words: one command of
// them, many commands, words behind nested shells, globs and xargs.
func longLines() map[string]string {
	const n = 64000
	return map[string]string{
		"one command":   "echo " + strings.Repeat("$x ", n/3),
		"command words": strings.Repeat("$x ", n/3),
		"many commands": strings.Repeat("$x $y $z;", n/9-100),
		"nested shells": `bash -c "bash -c \"bash -c '` + strings.Repeat("$x ", n/4) + `'\""`,
		"globs":         "ls " + strings.Repeat("a*b ", n/4),
		"xargs":         "xargs " + strings.Repeat("a ", n/2),
		"substitutions": strings.Repeat("$(", 150) + strings.Repeat("$x ", n/4) + strings.Repeat(")", 150),
		"redirections":  "bash s.sh " + strings.Repeat(">/dev/null ", n/11) + "$x",
		"text as code":  "python3 -c '" + strings.Repeat("gitx ", n/5) + "' $x",
		"wrapper words": "mytool " + strings.Repeat("git pull ", n/9),
		"runner lines":  "tmux new " + strings.Repeat("'a git pull' ", n/13) + "$x",
		// Subcommand words among options: each is tried as git reset.
		"option runs": strings.Repeat("git -c reset -c reset -p reset -q x; ", n/37) + "git -C . $x",
		// Values a dangerous command may run, each read as a command line.
		"option values": "git rebase -x " + strings.Repeat("'a git pull' -x=b ", n/18) + "$x",
		// Other names of a rule's command word, each one a start.
		"package versions": "npx " + strings.Repeat("npm@1 ", n/6) + "$x",
		"dashed names":     "fakeroot " + strings.Repeat("git-x ", n/6) + "$x",
		"wrapped words":    "fakeroot " + strings.Repeat("git ", n/4) + "$x",
	}
}

// The work deny rules do on a long line is bounded by the line: past the
// classifier's own parse, rule.meets takes len(glob)·len(w) steps and two
// small slices, and the rest is linear. The bound is on bytes allocated,
// not time: Evaluate allocates at most what the classifier's parse of the
// line does and 64 bytes per byte of line, with six rules, one of them
// 26 stars long (about 25 bytes per byte are seen).
func TestDenyRuleWorkOnALongLineIsBounded(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)", "shell(rm -rf *)", "shell(curl *)",
		"shell(git reset --hard*)", "shell(npm publish*)", "shell(*a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*x*y*z*)"))
	judgeLine(p, "x=1; $x | sh") // warm up: lazily built tables
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, line := range longLines() {
		var ev Evaluation
		eval := allocated(func() { ev = judgeLine(p, line) })
		parse := allocated(func() { classify.Default().Classify(line) })
		assert.Equal(t, ActionRefuse, ev.Action, name)
		assert.LessOrEqual(t, eval, parse+64*uint64(len(line)), "%s: Evaluate allocated %d bytes, the parse %d", name, eval, parse)
		t.Logf("%s: %d bytes; Evaluate allocated %d bytes, the parse %d", name, len(line), eval, parse)
	}
}

func BenchmarkDenyRuleOnALongLine(b *testing.B) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)", "shell(rm -rf *)", "shell(curl *)"))
	for name, line := range longLines() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				judgeLine(p, line)
			}
		})
	}
}
