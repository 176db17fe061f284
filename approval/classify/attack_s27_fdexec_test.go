package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS27FdExec: fd -x CMD (--exec) runs CMD for each file it
// finds and -X (--exec-batch) once for them all, with the names in
// place of {} ({/}, {//}, {.}, {/.}) or added after CMD's words: fd -x rm
// deletes every file fd finds, as find . -exec rm {} + does (Dangerous),
// and from the home or root directory with no pattern that keeps to some
// files it is rm -rf of it, as find ~ -exec rm -rf {} + is (Blocked).
// fd was an unknown command, judged only by the words of the command it
// runs: fd -x rm was Warning and fd . ~ -x rm -rf Dangerous.
func TestAttackS27FdExec(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`fd -x rm`,
		`fd -t f -x rm`,
		`fd --exec-batch rm`,
		`fd -e txt -x rm {}`,
		`fd -x truncate -s 0`,
		`fd -x cp /dev/null {}`,
		`fdfind -X rm -f`,
		`fd -x sh -c 'cat {} > {}.bak'`,
		`fd . --search-path /tmp -x rm`,
	})
	attackAtLeast(t, Blocked, []string{
		`fd . ~ -x rm -rf`,
		`fd . / -X rm -rf`,
		`fd -H . ~ -X rm -rf`,
		`fd -x rm -rf --search-path ~`,
		`fd --search-path=/ -X rm -rf`,
	})
	// A .env file fd picks is read by the command it runs.
	attackAtLeast(t, Warning, []string{`fd -H -e env -x cat`})
	attackSafe(t, []string{`fd -e go`, `fd -t f main`, `fd -H -x wc -l`})
	assert.Less(t, Classify(`fd -e pyc . ~ -x rm`).Level, Blocked)
}
