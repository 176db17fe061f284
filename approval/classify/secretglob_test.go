package classify

import (
	"strings"
	"testing"
)

// TestAttackLongGlobNamesSecret: a glob longer than can be compared with
// the secret file patterns (maxGlobMatch) was taken to name none, so a
// bracket expression padded past 1024 bytes read .env as Safe.
func TestAttackLongGlobNamesSecret(t *testing.T) {
	for _, cmd := range []string{
		"cat .en[" + strings.Repeat("v", 1100) + "]",
		"cat ~/.ssh/id_rs[" + strings.Repeat("a", 1100) + "]",
		"cat < .en[" + strings.Repeat("v", 1100) + "]",
	} {
		if v := Classify(cmd); v.Level < Warning {
			t.Errorf("%.40q... is %s, want at least warning: %v", cmd, v.Level, v.Reasons)
		}
	}
	// A long name that is not a glob is judged as it is.
	if v := Classify("cat " + strings.Repeat("a", 1100) + ".go"); v.Level != Safe {
		t.Errorf("a long plain name is %s: %v", v.Level, v.Reasons)
	}
}

// TestSecretGlobWorkIsBounded compares the words of 64 KiB lines of globs
// (globLines, among them globs made to cost the most) with the secret
// file patterns and checks the work done, in steps, against maxSecretWork
// and what one word past it may add. Lines of harmless globs stay Safe,
// those that name .env are Warning, and so are those past the bound,
// where a glob is taken to name a secret file.
func TestSecretGlobWorkIsBounded(t *testing.T) {
	c := Default()
	ps := &c.secrets[0]
	// One word's most: counting its bytes, the spelling walk for each
	// literal and the overlap walk for each pattern.
	perWord := 2*(maxGlobMatch+1) + len(ps.lits)
	for i := range ps.lits {
		perWord += (maxGlobMatch+1)*(len(ps.lits[i])+1) + (maxGlobMatch+1)*(len(ps.toks[i])+1)
	}
	safe := map[string]bool{"plain": true, "go": true, "json": true, "spelled": true, "dotstars": true}
	for name, line := range globLines() {
		s := &state{c: c, src: line}
		var j judgement
		var args []word
		for _, f := range strings.Fields(line)[1:] {
			args = append(args, word{s: f, lit: true, glob: strings.ContainsAny(f, "*?[")})
		}
		s.secretArgs(args, &j)
		if s.secretWork > maxSecretWork+perWord {
			t.Errorf("%s: %d steps, more than %d", name, s.secretWork, maxSecretWork+perWord)
		}
		t.Logf("%s: %d words, %d steps", name, len(args), s.secretWork)
		if l := c.Classify(line).Level; safe[name] && l != Safe || !safe[name] && l < Warning {
			t.Errorf("%s: %s", name, l)
		}
	}
}
