package classify

import (
	"strconv"
	"strings"
	"testing"
)

// wrapChainLine is a 64 KiB line of depth wrappers (env) around ls of one
// long word, or of many short ones: each wrapper judges what it runs
// again, so the line's cost is its depth times its length unless each
// word is judged once.
func wrapChainLine(wrapper string, depth int, short bool) string {
	head := strings.Repeat(wrapper+" ", depth) + "ls "
	if short {
		return head + strings.Repeat("a ", (65536-len(head))/2)
	}
	return head + strings.Repeat("a", 65536-len(head))
}

// BenchmarkClassifyWrapChain classifies wrapChainLine at depths 1 and 199
// (the parser's nesting limit is 200), for the wrappers a model could
// stack.
func BenchmarkClassifyWrapChain(b *testing.B) {
	c := Default()
	for _, w := range []string{"env", "nice", "timeout 1", "nohup", "command", "sudo"} {
		for _, depth := range []int{1, 199} {
			for _, short := range []bool{false, true} {
				line, words := wrapChainLine(w, depth, short), "long"
				if short {
					words = "short"
				}
				b.Run(strings.ReplaceAll(w, " ", "_")+"/"+strconv.Itoa(depth)+"/"+words, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						c.Classify(line)
					}
				})
			}
		}
	}
}

// BenchmarkClassifyWrapUnknownOptions classifies wrappers each with an
// option their grammar does not know, which is judged both ways.
func BenchmarkClassifyWrapUnknownOptions(b *testing.B) {
	c := Default()
	for _, depth := range []int{4, 8, 12} {
		line := wrapChainLine("env --zz", depth, true)
		b.Run(strconv.Itoa(depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(line)
			}
		})
	}
}
