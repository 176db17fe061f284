package classify

import (
	"strings"
	"testing"
)

// TestAttackS24AwkInplaceWritesItsFiles: gawk's inplace library (gawk -i
// inplace, @include "inplace") makes awk write its output over each file
// it reads, so gawk -i inplace '{print "rm -rf ~"}' ~/.bashrc rewrites the
// shell's start-up file. The include was judged as running awk code from
// a file (Warning) and the files as read, never as written. Seen failing
// first: every attack below was Warning.
func TestAttackS24AwkInplaceWritesItsFiles(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`gawk -i inplace '{print "rm -rf ~"}' ~/.bashrc`,
		`awk -i inplace 1 ~/.bashrc`,
		`awk -iinplace 1 /etc/hosts`,
		`awk --include inplace 1 ~/.bashrc`,
		`awk --inc=inplace 1 ~/.bashrc`,
		`awk -W include=inplace 1 ~/.bashrc`,
		`gawk -i inplace.awk 1 ~/.bashrc`,
		`gawk -i /usr/share/awk/inplace.awk 1 ~/.bashrc`,
		`gawk -i inplace -v inplace::suffix=.bak 1 .git/config`,
		`awk '@include "inplace"; 1' ~/.bashrc`,
		`awk '@include "inplace"
{ print }' ~/.ssh/authorized_keys`,
		`gawk -f prog.awk -i inplace ~/.profile`,
		`gawk -e '@include "inplace"' -e 1 ~/.bashrc`,
		`find ~ -name '*.sh' | xargs gawk -i inplace 1`,
	})
	// In the working directory it is a write there, as sed -i is.
	for _, line := range []string{`gawk -i inplace '{sub(/a/,"b")}1' notes.txt`, `awk '@include "inplace"; 1' x=1 notes.txt`} {
		v := Classify(line)
		if v.Level != Warning {
			t.Errorf("%q: got %s %v, want warning", line, v.Level, v.Reasons)
		}
		if !strings.Contains(strings.Join(v.Reasons, "\n"), "writes to notes.txt") {
			t.Errorf("%q: no reason says it writes notes.txt: %v", line, v.Reasons)
		}
	}
	attackSafe(t, []string{`awk '{print $1}' notes.txt`, `gawk '/inplace/ {print}' notes.txt`})
}
