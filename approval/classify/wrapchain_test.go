package classify

import (
	"strings"
	"testing"
)

// TestWrapperChainsCostAFewPlainLines pins the bound on what wrappers make
// the classifier judge again: each wrapper judges the command after it
// with all its words, and a wrapper option the grammar does not know is
// judged both ways, so 199 env around 30,000 words took 4.5 s and 530 MB,
// and 8 "env --zz" 18 s and 2.8 GB (12 of them 88 s and 12.8 GB), for one
// line a model can send. Past a few times the line's length the rest is
// not judged: such a line is Blocked. The bytes allocated stay within a
// few times those of a plain line of the same length (ls a a a ...).
func TestWrapperChainsCostAFewPlainLines(t *testing.T) {
	c := Default()
	plain := wrapChainLine("env", 0, true)
	_, plainBytes := allocated(func() { c.Classify(plain) })
	for name, line := range map[string]string{
		"199 env, short words": wrapChainLine("env", 199, true),
		"199 env, one word":    wrapChainLine("env", 199, false),
		"8 env --zz":           wrapChainLine("env --zz", 8, true),
		"199 sudo":             wrapChainLine("sudo", 199, true),
	} {
		v := c.Classify(line)
		if v.Level != Blocked || !v.Incomplete || !strings.Contains(strings.Join(v.Reasons, "; "), "each wrapper's command counts again") {
			t.Errorf("%s: %v %v, want Blocked and Incomplete for the judged text's limit", name, v.Level, v.Reasons)
		}
		_, bytes := allocated(func() { c.Classify(line) })
		t.Logf("%-21s %10d bytes allocated, plain line %d", name, bytes, plainBytes)
		if bytes > 6*plainBytes {
			t.Errorf("%s: %d bytes allocated, over 6 times the %d of a plain line as long", name, bytes, plainBytes)
		}
	}
	// A line under a few wrappers is judged whole.
	for _, line := range []string{
		"env A=1 nice -n 5 timeout 10 nohup " + wrapChainLine("", 0, true)[:20000],
		"nice " + wrapChainLine("", 0, false)[:60000],
	} {
		if v := c.Classify(line); v.Incomplete || v.Level == Blocked {
			t.Errorf("%.40q...: %v %v, want it judged whole", line, v.Level, v.Reasons)
		}
	}
}
