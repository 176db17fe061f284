package classify

import "testing"

// TestAttackS18GitConfigFileInACluster: git config reads -f FILE inside a
// cluster of short options (-zf FILE) and --file by its abbreviation
// (--fil FILE, --fil=FILE), as parse-options does, and writes the setting
// into FILE. The check knew only -f, -fFILE, --file and --file=, so these
// wrote ~/.bashrc or /etc/x as a Warning ("git config sets
// configuration"), where -f ~/.bashrc is Dangerous.
func TestAttackS18GitConfigFileInACluster(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`git config -zf ~/.bashrc a.b c`,
		`git config -zf/etc/x a.b c`,
		`git config --fil ~/.bashrc a.b c`,
		`git config --fil=/etc/x a.b c`,
		`git config --fil=.git/config core.pager x`,
	})
	attackAtLeast(t, Warning, []string{
		`git config -zf x.cfg a.b c`,
	})
	attackSafe(t, []string{
		`git config -zf .gitmodules --get-regexp path`,
		`git config --fil=.gitmodules --list`,
		`git config -z --get user.name`,
	})
}
