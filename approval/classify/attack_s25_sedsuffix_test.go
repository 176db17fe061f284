package classify

import "testing"

// TestAttackS25SedComputedSuffix: sed -i"$x" edits its files in place
// whatever the suffix turns out to be, so sed -i"$x" 's/a/b/' ~/.bashrc
// writes ~/.bashrc. Seen failing first: it was Warning ("sed script is
// not known until it runs: -i$x"), where sed -i 's/a/b/' ~/.bashrc is
// Dangerous.
func TestAttackS25SedComputedSuffix(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`sed -i"$x" 's/a/b/' ~/.bashrc`,
		`sed -i"${x}" 's/a/b/' ~/.profile`,
		`sed -i"$(date +%s)" 's/a/b/' ~/.bashrc`,
		`sed --in-place="$x" 's/a/b/' ~/.bashrc`,
		`sed -i"" 's/a/b/' ~/.bashrc`,
		`sed -i'' -e 's/a/b/' ~/.bashrc`,
	})
}

// TestAttackS25SedComputedSuffixCopy: a suffix with a '*' and a '/' names
// where sed -i keeps its copy (sed -i'/home/u/.bashr*' s/x/x/ c copies c
// over ~/.bashrc), so a suffix not known until it runs may put the copy
// anywhere. Seen failing first: these were Warning.
func TestAttackS25SedComputedSuffixCopy(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`sed -i"$x" 's/a/b/' f`,
		`sed --in-place="$(cat suffix)" 's/a/b/' f`,
	})
	attackSafe(t, []string{`sed -n 's/a/b/p' f`})
}
