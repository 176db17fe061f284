package classify

import (
	"testing"
)

// TestAttackS32ShellReadsWrittenTextEarly: a shell in the background (or a
// pipe) that runs a file before, in the text, the line writes text it
// spells out into it (mkfifo p; sh < p & echo 'rm -rf ~' > p) runs that
// text: the FIFO waits for the writer. Judged as that code once the line
// is walked, as a download written there is. It was Warning.
func TestAttackS32ShellReadsWrittenTextEarly(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`mkfifo p; sh < p & echo 'rm -rf ~' > p`,
		`mkfifo p; bash p & printf 'rm -rf ~\n' > p`,
		`mkfifo /tmp/p; sh /tmp/p & echo 'rm -rf ~' > /tmp/p; wait`,
	})
	attackExactly(t, Warning, []string{
		`mkfifo p; sh < p & echo 'ls' > p`,
		`mkfifo p; sh < p & echo 'rm -rf ~' > q`,
		`mkfifo p; python3 p & echo 'rm -rf ~' > p`,
	})
}
