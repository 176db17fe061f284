package classify

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// BenchmarkClassify classifies the safe table, one command per iteration.
func BenchmarkClassify(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Classify(safeCases[i%len(safeCases)])
		i++
	}
}

// BenchmarkParseOnly is the baseline: a fresh bash parser parsing the same
// commands, nothing judged.
func BenchmarkParseOnly(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(safeCases[i%len(safeCases)]), "")
		i++
	}
}

// BenchmarkClassifyTricky classifies the tricky table, wrappers and shell
// strings included.
func BenchmarkClassifyTricky(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Classify(trickyCases[i%len(trickyCases)].cmd)
		i++
	}
}
