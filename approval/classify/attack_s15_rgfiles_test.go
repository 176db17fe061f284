package classify

import "testing"

// TestAttackRgFilesListsSecretsForXargs: rg --files lists the files it
// would search, as find does, and takes every operand as a path (there is
// no pattern). find ~/.config -type f | xargs cat is Warning (84b2f11),
// but rg --files ~/.config | xargs cat, which reads the same files by the
// names rg lists, was Safe: the check took ~/.config for rg's pattern and
// judged no directory. The listing alone stays Safe, as find's does.
func TestAttackRgFilesListsSecretsForXargs(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`rg --files ~/.config | xargs cat`,
		`rg --files ~/.ssh | xargs -n1 cat`,
		`rg --hidden --files ~ | xargs grep -h KEY`,
		`cat $(rg --files ~/.aws)`,
		`cd ~ && rg --files --hidden | xargs cat`,
	})
	attackSafe(t, []string{
		`rg --files ~/.config`,
		`rg --files | xargs cat`,
		`rg --files src | xargs wc -l`,
		`rg --files . | xargs grep x`,
		`rg x ~/.config/nvim/init.lua`,
	})
}
