package classify

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReviewS13ClimbFromHomeOrVariable: cat ../../etc/shadow is judged as
// /etc/shadow since 6fda0f9, but a climb from ~, ~user or a variable's
// directory was Safe: ~/../../etc/shadow is /etc/shadow from a home two
// deep (/home/u), $HOME/../../etc/shadow and ~root/../etc/shadow too.
func TestReviewS13ClimbFromHomeOrVariable(t *testing.T) {
	want := Classify(`cat /etc/shadow`).Level
	require.Greater(t, want, Safe)
	attackAtLeast(t, want, []string{
		`cat ~/../../etc/shadow`,
		`cat ~root/../etc/shadow`,
		`cat ~+/../../../../etc/shadow`,
		`cat $HOME/../../etc/shadow`,
		`cat ${HOME}/../../etc/shadow`,
		`cat "$HOME"/../../etc/shadow`,
		`cat $PWD/../../etc/shadow`,
	})
	attackSafe(t, []string{`cat ~/../notes.txt`, `cat $HOME/../../docs/etc/notes.txt`, `cat ~/src/../README.md`})
}
