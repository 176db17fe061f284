package classify

import "testing"

// TestAttackS19UserAndSystemGitConfig: 3418bb4 made git config -l and
// cat .git/config Warning, as a repository's configuration holds a CI
// job's https://user:TOKEN@ remote and the Authorization header
// actions/checkout keeps in http.extraheader. The user's and the system's
// configuration hold the same keys (git config --global
// url.https://user:TOKEN@host/.insteadOf, http.extraheader, a credential
// helper's inline script with its token), and git config --global -l was
// Warning while the files it reads were Safe to print: cat ~/.gitconfig,
// cat ~/.config/git/config (git's XDG place), cat /etc/gitconfig, and git
// config -f ~/.gitconfig -l, which lists a file given with -f as a file
// of the project's.
func TestAttackS19UserAndSystemGitConfig(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat ~/.gitconfig`,
		`cat $HOME/.gitconfig`,
		`cat "$HOME"/.gitconfig`,
		`head -50 ~/.gitconfig`,
		`grep -i url ~/.gitconfig`,
		`cat ~/.gitconfig.local`,
		`cat ~/.gitc*`,
		`cat ~/.config/git/config`,
		`cat $HOME/.config/git/config`,
		`cat "$XDG_CONFIG_HOME/git/config"`,
		`cat ${XDG_CONFIG_HOME:-~/.config}/git/config`,
		`cd ~/.config/git && cat config`,
		`cat /etc/gitconfig`,
		`git config -f ~/.gitconfig -l`,
		`git config --file ~/.gitconfig --list`,
		`git config -f ~/.config/git/config --get-regexp url`,
		`git config --fil=/etc/gitconfig -l`,
		`git config --global -l`,
		`git config --system --list`,
		`git config --global --get-regexp insteadof`,
	})
	attackSafe(t, []string{
		`git config --global user.name`,
		`git config --get user.email`,
		`git config -f .gitmodules -l`,
		`cat ~/.config/git/ignore`,
		`cat ~/.gitignore_global`,
		`cat .gitignore`,
		`cat .gitattributes`,
		`cat docs/git/configuration.md`,
	})
}
