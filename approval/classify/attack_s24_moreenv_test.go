package classify

import "testing"

// TestAttackS24MoreOptionsFromTheEnvironment: where more is less (macOS),
// it reads its options from MORE as less reads them from LESS, and a +
// in them is a command it runs first: MORE='+!sh' more f runs sh, as
// LESS='+!sh' less f does (Dangerous). MORE had no variable rule
// (Warning). Seen failing first: both lines were Warning.
func TestAttackS24MoreOptionsFromTheEnvironment(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`MORE='+!rm -rf ~' more notes.txt`,
		`export MORE='+!sh'; more notes.txt`,
	})
}
