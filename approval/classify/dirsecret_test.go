package classify

import (
	"strings"
	"testing"
)

// dirSecretLines are 64 KiB lines that change into 16 directories and
// then name thousands of files in a loop or function body, judged again
// for each value of the loop's variable and, in a second walk, in every
// directory the line changes into. Each name was compared with the
// secret file patterns in each directory each time, and the second walk
// judged as much again as the first: over maxJudgedText in all, with
// the loop of 7, which is Blocked.
var dirSecretLines = map[string]struct {
	line    string
	blocked bool
}{
	"cd, loop of 7, same name":      {numberedLine("", "cd d#;", "", 200) + fillLine("for x in 1 2 3 4 5 6 7; do cat ", "a ")[:65536-210] + "; done", true},
	"cd, loop of 2, distinct names": {numberedLine("", "cd d#;", "", 200) + numberedLine("for x in 1 2; do cat ", "a# ", "; done", 65536-200), false},
}

// TestSecretNamesInDirectoriesCostAFewPlainLines pins that a name in a
// directory the line changed into is compared with the secret file
// patterns once, and that the second walk of a line counts the text the
// first judged towards maxJudgedText: a loop of 7 values around 32,000
// names after 16 cd took 8.3 s and 144 MB.
func TestSecretNamesInDirectoriesCostAFewPlainLines(t *testing.T) {
	c := Default()
	_, plainBytes := allocated(func() { c.Classify(fillLine("ls ", "a ")) })
	for name, tc := range dirSecretLines {
		v := c.Classify(tc.line)
		switch {
		case tc.blocked && (v.Level != Blocked || !v.Incomplete || !strings.Contains(strings.Join(v.Reasons, "; "), "commands to judge longer than")):
			t.Errorf("%s: %v %v, want Blocked and Incomplete for the judged text's limit", name, v.Level, v.Reasons)
		case !tc.blocked && (v.Level != Safe || v.Incomplete):
			t.Errorf("%s: %v %v, want Safe", name, v.Level, v.Reasons)
		}
		_, bytes := allocated(func() { c.Classify(tc.line) })
		t.Logf("%-30s %10d bytes allocated, plain line %d", name, bytes, plainBytes)
		if bytes > 8*plainBytes {
			t.Errorf("%s: %d bytes allocated, over 8 times the %d of a plain line as long", name, bytes, plainBytes)
		}
	}
	// Still found in each directory, in a loop or function body too.
	for _, line := range []string{
		"cd ~/.aws; for x in 1 2; do cat credentials; done",
		"for x in 1 2; do cat credentials; done; cd ~/.aws",
		"f() { cat id_rsa; }; cd ~/.ssh; f",
		"cd ~/.ssh; cd /tmp; for x in 1 2; do cat id_rsa config; done",
	} {
		if v := c.Classify(line); v.Level != Warning || !strings.Contains(strings.Join(v.Reasons, "; "), "secret file") {
			t.Errorf("%s: %v %v, want Warning for the secret file", line, v.Level, v.Reasons)
		}
	}
}
