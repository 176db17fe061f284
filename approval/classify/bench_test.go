package classify

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// agentCommands are 20 commands of the kind coding agents run, the
// workload of the classifier's speed target (each under 20 µs).
var agentCommands = []string{
	"ls -la",
	"git status --porcelain",
	"git diff --stat HEAD~1",
	"git log --oneline -n 20",
	"cat README.md | head -n 50",
	"grep -rn 'func main' --include='*.go' .",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l",
	"go test ./... -run TestX -count=1",
	"go vet ./...",
	"sed -n '10,40p' internal/x/y.go",
	"rg -n TODO --type go",
	"jq -r '.dependencies | keys[]' package.json",
	"awk -F: '{print $1}' /etc/passwd | sort | uniq -c",
	"while IFS= read -r line; do echo \"$line\"; done < notes.txt",
	"for f in *.md; do wc -w \"$f\"; done",
	"tail -n 100 build.log | grep -i error",
	"GIT_PAGER=cat git show --stat HEAD",
	"du -sh * | sort -h",
	"ps aux | grep -v grep | grep server",
	"mkdir -p out && go build -o out/app ./cmd/app",
}

// BenchmarkClassify classifies the 20 agent commands, one per iteration:
// ns/op is the mean time of one Classify call.
func BenchmarkClassify(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Classify(agentCommands[i%len(agentCommands)])
		i++
	}
}

// BenchmarkParseOnly is the baseline: the bash parser alone on the same
// commands, nothing judged.
func BenchmarkParseOnly(b *testing.B) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = p.Parse(strings.NewReader(agentCommands[i%len(agentCommands)]), "")
		i++
	}
}

// BenchmarkClassifyCorpus classifies the whole corpus (attacks, shell
// strings, substitutions), one command per iteration.
func BenchmarkClassifyCorpus(b *testing.B) {
	c := Default()
	cases := loadCorpus(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Classify(cases[i%len(cases)].cmd)
		i++
	}
}

// BenchmarkClassifyEach reports each agent command on its own, so that
// no single one hides above the 20 µs target behind the mean.
func BenchmarkClassifyEach(b *testing.B) {
	c := Default()
	for i, cmd := range agentCommands {
		b.Run(strings.Fields(cmd)[0]+"-"+string(rune('a'+i)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(cmd)
			}
		})
	}
}

// longOptionLine is the line the fuzzer once found slow: git config and
// one long option word, "--g", underscores and a tail with a control
// character, n bytes in all.
func longOptionLine(n int) string {
	const head, tail = "git config --g", "et\x13uVVVVnmea"
	return head + strings.Repeat("_", n-len(head)-len(tail)) + tail
}

// BenchmarkClassifyLongOption classifies longOptionLine at 1, 2, 4 and 8
// KiB: ns/op should grow with the length, not its square.
func BenchmarkClassifyLongOption(b *testing.B) {
	c := Default()
	for _, n := range []int{1 << 10, 2 << 10, 4 << 10, 8 << 10} {
		line := longOptionLine(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(line)
			}
		})
	}
}

// BenchmarkClassifyGrowing classifies each growingLines line at 1 and 4
// KiB: the time TestWorkGrowsLinearly does not measure.
func BenchmarkClassifyGrowing(b *testing.B) {
	c := Default()
	names := make([]string, 0, len(growingLines))
	for n := range growingLines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, n := range []int{1 << 10, 4 << 10} {
			line := growingLines[name](n)
			b.Run(strings.ReplaceAll(name, " ", "_")+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c.Classify(line)
				}
			})
		}
	}
}

// globLines are 64 KiB command lines of one word repeated: plain words,
// harmless globs, globs that name secret files, and globs made to cost
// the most to compare with the secret file patterns.
func globLines() map[string]string {
	alphabet := strings.Repeat("abcdefghijklmnopqrstuvwxyz._/-", 40)[:1000]
	words := map[string]string{
		"plain":     "ab",
		"go":        "*.go",
		"json":      "src/*.json",
		"env":       ".e*",
		"alphabet":  alphabet + "*",
		"starmark":  strings.Repeat("*?", 500) + ".env/x",
		"spelled":   ".e?v" + strings.Repeat("x", 1016),
		"starruns":  strings.Repeat("*"+alphabet[:30], 30),
		"dotstars":  ".e*/" + strings.Repeat("*a", 500),
		"questions": ".env/x" + strings.Repeat("?", 1000),
	}
	lines := map[string]string{}
	for name, w := range words {
		n := (65536 - 8) / (len(w) + 1)
		lines[name] = "cat " + strings.TrimSpace(strings.Repeat(w+" ", n))
	}
	return lines
}

// BenchmarkClassifyGlobLine classifies 64 KiB lines of globs (globLines).
func BenchmarkClassifyGlobLine(b *testing.B) {
	c := Default()
	lines := globLines()
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(lines[name])
			}
		})
	}
}
