package classify

import "testing"

// TestAttackSecretInADirectoryKnownInPart: a relative name is judged in
// each directory the line changed into, but a directory known only at run
// time was left out, so cd /proc/$PPID && cat environ printed the
// environment of the program running the command (its API keys), as cat
// /proc/$PPID/environ (Warning) does. Such a directory is now judged as
// the glob with its expansions as '*' (/proc/*).
func TestAttackSecretInADirectoryKnownInPart(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cd /proc/$PPID && cat environ`,
		`cd /proc/$$; cat environ`,
		`cd /proc/$PPID/; head environ`,
		`cd /proc/self/../$PPID; cat environ`,
		`cd /proc/$(pgrep -n node) && tr '\0' '\n' < environ`,
		`cd "/home/$USER/.ssh" && cat id_rsa`,
		`for p in $(pgrep node); do (cd /proc/$p && cat environ); done`,
	})
	attackSafe(t, []string{
		`cd /proc/$PPID && cat status`,
		`cd "$d" && ls`,
	})
	// A directory that may be any directory ($X may be set to ~/.kube)
	// makes a relative name any file: Warning since session 20
	// (TestAttackS20RelativeNameInAComputedDirectory).
	attackAtLeast(t, Warning, []string{
		`cd "$X" && cat main.go`,
		`cd "$X"; cat config`,
	})
}
