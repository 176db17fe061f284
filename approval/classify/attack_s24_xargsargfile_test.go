package classify

import "testing"

// TestAttackS24XargsArgFileAttached: xargs -a FILE reads its items from
// FILE, and xargs echo prints them, so xargs -a.env echo prints .env.
// The file was judged only as a word of its own (xargs -a .env echo and
// --arg-file=.env were Warning); attached to -a, in a bundle (-0a.env) or
// after other options it was not judged at all. Seen failing first: every
// line below was Safe.
func TestAttackS24XargsArgFileAttached(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`xargs -a.env echo`,
		`xargs -a~/.ssh/id_rsa echo`,
		`xargs -0a.env echo`,
		`xargs -ra.env echo`,
		`xargs -E x -a.env echo`,
		`xargs -a/proc/self/environ -0 echo`,
		`xargs -a"$f" echo`,
	})
	attackSafe(t, []string{`xargs -a items.txt echo`, `xargs -aitems.txt echo`, `xargs --arg-file=items.txt echo`})
}
