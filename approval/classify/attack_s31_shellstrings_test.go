package classify

import (
	"testing"
)

// TestAttackS31MoreShellStrings: yarn exec runs its words as a shell
// command line (yarn exec 'rm -rf ~'), and make --eval (-E) reads its
// value as makefile text, whose recipes run commands: what they run was
// not judged (Warning).
func TestAttackS31MoreShellStrings(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`yarn exec 'rm -rf ~'`,
		`yarn exec "cd ~ && rm -rf *"`,
	})
	attackAtLeast(t, Dangerous, []string{
		`make --eval=$'x:\n\trm -rf ~' x`,
		`make --eval 'x: ; rm -rf ~' x`,
		`make -E 'x: ; rm -rf ~' x`,
	})
	attackExactly(t, Warning, []string{
		`yarn exec tsc`,
		`make build`,
	})
}
