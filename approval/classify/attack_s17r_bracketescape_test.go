package classify

import "testing"

// TestAttackS17RBracketEscapedCloseAfterAClass: bash reads a backslash in
// a bracket expression as quoting the next character, so
// .e[[:alpha:]\]]v is one bracket (a letter or ']') and matches .env
// (checked with bash 5.2: echo .e[[:alpha:]\]]v prints .env, and
// echo .gi[[:alpha:]\]]/config prints .git/config). The word's glob text
// drops the backslash (unescapeBare), and the bracket then ends at the
// first ']' after the class: .e[[:alpha:]]]v, which names no secret file.
// The quoted ']' is now kept in the bracket, as [.].]. A bracket that
// names no secret file stays Safe.
func TestAttackS17RBracketEscapedCloseAfterAClass(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat .e[[:alpha:]\]]v`,
		`cat .e[[:lower:]\]]v`,
		`cat ~/.ssh/id_[[:alpha:]\]]sa`,
	})
	attackAtLeast(t, Dangerous, []string{
		`cp x .gi[[:alpha:]\]]/config`,
		`tee .gi[[:alpha:]\]]/config`,
	})
	attackSafe(t, []string{
		`cat doc[[:digit:]\]].txt`,
		`ls \[x\]`,
		`cat notes[\]].md`,
	})
}
