package classify

import (
	"strings"
	"testing"
)

// expansionLines are 64 KiB (or shorter) lines whose expansions make far
// more text than the line holds: a variable set to a long value and
// expanded many times, a value doubled again and again (a=$a$a), an
// array or the positional parameters doubled ("${a[@]}" "${a[@]}"), and
// words of ten brace expansions (1024 words each).
var expansionLines = map[string]string{
	"long value, one word":    fillLine("x="+strings.Repeat("a", 32000)+"; echo ", "$x"),
	"long value, many words":  fillLine("x="+strings.Repeat("a", 32000)+"; echo ", `"$x" `),
	"long value, split":       fillLine("x='"+strings.Repeat("a ", 16000)+"'; echo ", "$x "),
	"long value, assigned":    fillLine("x="+strings.Repeat("a", 32000)+"; ", "y=$x;"),
	"value doubled 40 times":  "a=xxxxxxxx; " + strings.Repeat("a=$a$a; ", 40) + "echo $a",
	"array doubled 40 times":  "a=(x); " + strings.Repeat(`a+=("${a[@]}"); `, 40) + `echo "${a[@]}"`,
	"set -- doubled 40 times": "set -- x; " + strings.Repeat(`set -- "$@" "$@"; `, 40) + `echo "$@"`,
	"brace words":             fillLine("echo ", "a{b,c}{d,e}{f,g}{h,i}{j,k}{l,m}{n,o}{p,q}{r,s}{t,u} "),
	// A value read again at each use: is it a number, is it a name?
	"long number, (( ))": fillLine("x="+strings.Repeat("1", 30000)+"; ", "((x));"),
	"long number, [[ ]]": fillLine("x="+strings.Repeat("1", 30000)+"; ", "[[ $x -eq 1 ]];"),
	"long name, ${!x}":   fillLine("x="+strings.Repeat("a", 30000)+"; echo ", "${!x} "),
	// A file the line wrote is read again each time it runs.
	"written file, bash": fillLine("echo '#"+strings.Repeat("a", 30000)+"' > s.sh; ", "bash s.sh;"),
	"written file, .":    fillLine("echo 'x="+strings.Repeat("a", 30000)+"' > s.sh; ", ". s.sh;"),
	// printf writes its format again for each argument left.
	"printf format, piped": fillLine("printf '"+strings.Repeat("a", 30000)+"%s\\n' ", "a ")[:65530] + "| sh",
	"printf -v format":     fillLine("printf -v x '"+strings.Repeat("a", 30000)+"%s\\n' ", "a "),
}

// fillLine is head and then unit as many times as fit in 64 KiB.
func fillLine(head, unit string) string {
	return head + strings.Repeat(unit, (65536-len(head))/len(unit))
}

// TestExpansionsCostAFewPlainLines pins the bound on the text expansions
// make: a variable's value, an array's values and a brace expansion's
// words were made anew at each use, so a 64 KiB line of "$x" with x 32
// KB long allocated 3.1 GB, one with x holding 16,000 words ran out of
// memory, and a=$a$a doubles the text each time. Past 4 times
// Limits.MaxLength of expanded text the line is Blocked, and the bytes
// allocated stay within a few times those of a plain line as long.
func TestExpansionsCostAFewPlainLines(t *testing.T) {
	c := Default()
	_, plainBytes := allocated(func() { c.Classify(fillLine("ls ", "a ")) })
	for name, line := range expansionLines {
		v := c.Classify(line)
		if v.Level != Blocked || !v.Incomplete || !strings.Contains(strings.Join(v.Reasons, "; "), "text made by expansions") {
			t.Errorf("%s: %v %v, want Blocked and Incomplete for the expanded text's limit", name, v.Level, v.Reasons)
		}
		_, bytes := allocated(func() { c.Classify(line) })
		t.Logf("%-23s %10d bytes allocated, plain line %d", name, bytes, plainBytes)
		if bytes > 6*plainBytes {
			t.Errorf("%s: %d bytes allocated, over 6 times the %d of a plain line as long", name, bytes, plainBytes)
		}
	}
	// Expansions of a few times the line's length are judged whole.
	for _, line := range []string{
		"x=" + strings.Repeat("a", 60000) + "; echo $x $x $x",
		"x='" + strings.Repeat("a ", 30000) + "'; ls $x $x",
		"a=xxxxxxxx; " + strings.Repeat("a=$a$a; ", 12) + "echo $a",
		"a=(x); " + strings.Repeat(`a+=("${a[@]}"); `, 14) + `ls "${a[@]}"`,
		strings.Repeat("echo a{b,c}{d,e}{f,g}{h,i}{j,k}{l,m}{n,o}{p,q}{r,s}{t,u}; ", 20),
	} {
		if v := c.Classify(line); v.Incomplete || v.Level == Blocked {
			t.Errorf("%.40q...: %v %v, want it judged whole", line, v.Level, v.Reasons)
		}
	}
}
