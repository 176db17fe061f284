package classify

import (
	"strings"
	"testing"
)

// cloneLines are 64 KiB lines that clone a thousand repositories and
// then read thousands of files, whose names were each compared with
// every clone, the list of clones copied for each name in a loop or
// function body.
var cloneLines = map[string]string{
	"clones, then cat":              numberedLine("", "git clone u r#;", "", 16000) + fillLine("cat ", "a ")[:65536-16000],
	"clones, then a loop body":      numberedLine("", "git clone u r#;", "", 16000) + fillLine("for x in 1; do cat ", "a ")[:65536-16010] + "; done",
	"clones, then a function body":  numberedLine("", "git clone u r#;", "", 16000) + fillLine("f() { cat ", "a ")[:65536-16010] + "; }",
	"a function body, then clones":  fillLine("f() { cat ", "a ")[:65536-16010] + "; }; " + numberedLine("", "git clone u r#;", "", 16000-5),
	"clones, then bash in the body": numberedLine("", "git clone u r#;", "", 16000) + fillLine("f() { ", "bash a; ")[:65536-16010] + "}",
}

// TestClonedFilesCostAFewPlainLines pins that a file name is compared
// with the line's clones without copying them: a thousand clones and a
// loop body reading 24,000 files allocated 760 MB (and took 1 s without a
// loop). The verdicts are as before: Warning for the clones, Blocked for
// running a cloned file.
func TestClonedFilesCostAFewPlainLines(t *testing.T) {
	c := Default()
	_, plainBytes := allocated(func() { c.Classify(fillLine("ls ", "a ")) })
	for name, line := range cloneLines {
		v := c.Classify(line)
		want := Warning
		if strings.Contains(name, "bash") {
			want = Blocked
		}
		if v.Level != want || want == Warning && v.Incomplete {
			t.Errorf("%s: %v %v, want %v", name, v.Level, v.Reasons, want)
		}
		_, bytes := allocated(func() { c.Classify(line) })
		t.Logf("%-29s %10d bytes allocated, plain line %d", name, bytes, plainBytes)
		if bytes > 4*plainBytes {
			t.Errorf("%s: %d bytes allocated, over 4 times the %d of a plain line as long", name, bytes, plainBytes)
		}
	}
	// A file of a clone is still known as one, in a body too.
	for _, line := range []string{
		"git clone u r; cat r/install.sh | sh",
		"f() { bash r/install.sh; }; git clone u r; f",
		"git clone u r; cd r; for x in 1; do bash install.sh; done",
	} {
		if v := c.Classify(line); v.Level != Blocked {
			t.Errorf("%s: %v %v, want Blocked for running downloaded content", line, v.Level, v.Reasons)
		}
	}
}
