package classify

import (
	"strconv"
	"strings"
	"testing"
)

// numberedLine is head, then unit with each # replaced by 0, 1, 2, ...
// as many times as fit in n bytes with tail, then tail.
func numberedLine(head, unit, tail string, n int) string {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; ; i++ {
		u := strings.ReplaceAll(unit, "#", strconv.Itoa(i))
		if b.Len()+len(u)+len(tail) > n {
			break
		}
		b.WriteString(u)
	}
	b.WriteString(tail)
	return b.String()
}

// repeatTo is unit as many times as fit in n bytes.
func repeatTo(unit string, n int) string { return strings.Repeat(unit, n/len(unit)) }

// stateCopyLines are 64 KiB lines that set thousands of variables (or
// arrays, or exported ones) and then run commands that each copied them
// all: a command with assignments before it (X= ls), a loop body judged
// once per value, eval, bash -c, and an array added to one value at a
// time.
var stateCopyLines = map[string]string{
	"vars, prefixed commands": numberedLine("", "a#=1;", "", 32000) + repeatTo("X= ls a a a a a;", 33000),
	"vars, loop":              numberedLine("", "a#=1;", "", 61000) + numberedLine("for d in ", "# ", "; do ls; done", 4000),
	"vars, eval":              numberedLine("", "a#=1;", "", 32000) + repeatTo("eval ls a a a a a a a a;", 33000),
	"exported vars, bash -c":  numberedLine("export ", "a#=1 ", ";", 32000) + repeatTo("bash -c 'ls a a a a a';", 33000),
	"arrays, eval":            numberedLine("", "a#=(1);", "", 32000) + repeatTo("eval ls a a a a a a a a;", 33000),
	"array appended":          fillLine("", "a+=(x);"),
	"array indexed":           numberedLine("a=(x);", "a[#]=x;", "", 65536),
}

// TestStateCopiesCostAFewPlainLines pins the bound on copying what the
// line knows of its variables: each command with assignments before it,
// each value a loop body is judged with, each eval and each shell string
// copied every variable (or exported one, or array) the line had set, and
// each addition to an array copied the array, so 4,000 variables and
// 2,000 commands allocated 1.4 GB. A command without assignments copies
// nothing; past 8 times Limits.MaxLength of copied entries the line is
// Blocked.
func TestStateCopiesCostAFewPlainLines(t *testing.T) {
	c := Default()
	_, plainBytes := allocated(func() { c.Classify(fillLine("ls ", "a ")) })
	for name, line := range stateCopyLines {
		v := c.Classify(line)
		if v.Level != Blocked || !v.Incomplete || !strings.Contains(strings.Join(v.Reasons, "; "), "copies of what the line set") {
			t.Errorf("%s: %v %v, want Blocked and Incomplete for the copies' limit", name, v.Level, v.Reasons)
		}
		_, bytes := allocated(func() { c.Classify(line) })
		t.Logf("%-23s %10d bytes allocated, plain line %d", name, bytes, plainBytes)
		if bytes > 6*plainBytes {
			t.Errorf("%s: %d bytes allocated, over 6 times the %d of a plain line as long", name, bytes, plainBytes)
		}
	}
	// Commands with no assignments copy nothing: judged whole, as
	// before, for little more than a plain line.
	line := numberedLine("", "a#=1;", "", 32000) + repeatTo("ls a a a a a a a;", 33000)
	if v := c.Classify(line); v.Level != Safe || v.Incomplete {
		t.Errorf("vars, then commands: %v %v, want Safe", v.Level, v.Reasons)
	}
	if _, bytes := allocated(func() { c.Classify(line) }); bytes > 2*plainBytes {
		t.Errorf("vars, then commands: %d bytes allocated, over 2 times the %d of a plain line as long", bytes, plainBytes)
	}
	// A hundred variables and a thousand or more commands using them
	// are judged whole.
	for _, line := range []string{
		numberedLine("", "a#=1;", "", 600) + repeatTo("X=1 ls a a a a;", 60000),
		numberedLine("", "a#=1;", "", 600) + numberedLine("for d in ", "# ", "; do ls $d; done", 4000),
		numberedLine("export ", "a#=1 ", ";", 600) + repeatTo("eval ls a a; bash -c 'ls a a';", 20000),
		numberedLine("", "a+=(#);", "", 4000),
	} {
		if v := c.Classify(line); v.Incomplete || v.Level == Blocked {
			t.Errorf("%.40q...: %v %v, want it judged whole", line, v.Level, v.Reasons)
		}
	}
}
