package policy

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/internal/hostpath"
)

// TestAttackS32ReviewStartsFileURLAgreesWithFileURLPath: startsFileURL
// is true for every JSON string that hostpath.FileURLPath reads as a
// file: URL.
func TestAttackS32ReviewStartsFileURLAgreesWithFileURLPath(t *testing.T) {
	toks := []string{"view-source:", "jar:", "file:", "FILE:", " ", "\t", "\n", "\x01", "\x00", "x", "///etc/passwd", "!/", "é"}
	r := rand.New(rand.NewPCG(32, 260))
	missed, urls, total := 0, 0, 0
	examples := map[string]bool{}
	for range 300000 {
		var b strings.Builder
		for range 1 + r.IntN(7) {
			b.WriteString(toks[r.IntN(len(toks))])
		}
		b.WriteString("///etc/passwd")
		s := b.String()
		raw, _ := json.Marshal(s)
		total++
		if _, ok := hostpath.FileURLPath(s); !ok {
			continue
		}
		urls++
		if !startsFileURL(raw) {
			missed++
			if len(examples) < 8 {
				examples[string(raw)] = true
			}
		}
	}
	t.Logf("%d strings, %d file: URLs to FileURLPath, %d of them not to startsFileURL; e.g. %v", total, urls, missed, examples)
	if missed > 0 {
		t.Fail()
	}
}
