package approval

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// rule.meets must say whether some text matches both a rule's pattern
// and a command with unknown words: a false "no" would let a command the
// rule names run. It is checked against a brute-force search over every
// text of up to 6 letters, for random patterns of up to 3 of a, b, blank
// and * (a text both match, if any, is no longer than their letters).
func TestRuleMeetsAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	letters := []byte("ab ")
	random := func() []int16 {
		var p []int16
		for n := rng.IntN(4); n > 0; n-- {
			if rng.IntN(3) == 0 {
				if len(p) == 0 || p[len(p)-1] != anyText {
					p = append(p, anyText)
				}
				continue
			}
			p = append(p, int16(letters[rng.IntN(len(letters))]))
		}
		return p
	}
	toRE := func(p []int16) *regexp.Regexp {
		var b strings.Builder
		b.WriteString("^")
		for _, c := range p {
			if c == anyText {
				b.WriteString(".*")
			} else {
				b.WriteString(regexp.QuoteMeta(string(rune(c))))
			}
		}
		b.WriteString("$")
		return regexp.MustCompile(b.String())
	}
	var texts []string
	var grow func(s string)
	grow = func(s string) {
		texts = append(texts, s)
		if len(s) < 6 {
			for _, c := range letters {
				grow(s + string(c))
			}
		}
	}
	grow("")
	seen := map[bool]int{}
	for range 1000 {
		p, w := random(), random()
		r := rule{glob: p}
		pr, wr := toRE(p), toRE(w)
		want := false
		for _, s := range texts {
			if pr.MatchString(s) && wr.MatchString(s) {
				want = true
				break
			}
		}
		if got := r.meets(w); got != want {
			t.Fatalf("meets(%q, %q) = %v, want %v", render(p), render(w), got, want)
		}
		seen[want]++
	}
	if seen[true] < 50 || seen[false] < 50 {
		t.Fatalf("the random cases meet %d times and miss %d: too few of one to test", seen[true], seen[false])
	}
}

func render(p []int16) string {
	var b strings.Builder
	for _, c := range p {
		if c == anyText {
			b.WriteByte('*')
		} else {
			b.WriteByte(byte(c))
		}
	}
	return b.String()
}
