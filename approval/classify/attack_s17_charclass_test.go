package classify

import "testing"

// TestAttackGlobCharacterClassHidesAName: a bracket expression may hold a
// POSIX character class ([[:alpha:]]), an equivalence class ([[=t=]]) or
// a collating symbol ([[.t.]]), whose own ']' does not end the bracket.
// The glob reader ended the bracket at that ']' and read the one after it
// as a literal, so .gi[[:alpha:]]/config (bash 5.2 expands it to
// .git/config) was judged a plain write (Warning) and not a write into
// .git (Dangerous), and cat .e[[:alpha:]]v, which prints .env, was Safe.
// A bracket whose class is not closed, or that holds none, reads as
// before.
func TestAttackGlobCharacterClassHidesAName(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`echo x > .gi[[:alpha:]]/config`,
		`echo x > .g[[:lower:]]t/config`,
		`echo x > .[[:alpha:]]it/hooks/pre-commit`,
		`echo x > .gi[![:digit:]]/config`,
		`echo x > .gi[^[:digit:]]/config`,
		`echo x > .gi[[:alpha:][:digit:]]/config`,
		`echo x > .gi[[=t=]]/config`,
		`echo x > .gi[[.t.]]/config`,
		`printf '[core]\n' | tee .gi[[:alnum:]]/config`,
	})
	attackAtLeast(t, Warning, []string{
		`cat .e[[:alpha:]]v`,
		`cat .[[:lower:]]nv`,
		`head .en[[:alpha:]]`,
		`cat ~/.ssh/id_[[:alpha:]]sa`,
		`cat ~/.aws/credential[[:alpha:]]`,
	})
	attackSafe(t, []string{
		`cat [[:upper:]]*.md`,
		`ls -d [[:alpha:]]*`,
		`cat doc[[:digit:]].txt`,
		`cat notes[[:alpha:]`,
	})
}
