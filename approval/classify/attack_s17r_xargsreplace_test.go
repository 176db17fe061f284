package classify

import "testing"

// TestAttackS17RXargsReplaceInASecretDirectory: 25b91e3 judges a command
// xargs adds its items to as if given *, so that cd ~/.aws && ls | xargs
// cat is Warning; with a replace text (-I{}, -i, --replace) the items go
// in its place instead of after the arguments, and the check did not see
// them: cd ~/.aws && ls | xargs -I{} cat {} printed the keys Safe.
func TestAttackS17RXargsReplaceInASecretDirectory(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cd ~/.aws && ls | xargs -I{} cat {}`,
		`cd ~/.aws && ls | xargs -I % cat %`,
		`cd ~/.ssh && ls | xargs -i head {}`,
		`cd ~/.aws && ls | xargs --replace cat {}`,
		`cd ~/.config/gh && ls | xargs -I{} cat ./{}`,
	})
	attackSafe(t, []string{
		`ls | xargs -I{} cat {}`,
		`cd src && ls | xargs -I{} wc -l {}`,
		`find . -name '*.go' | xargs -I{} grep -n TODO {}`,
	})
}
