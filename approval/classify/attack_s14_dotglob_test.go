package classify

import "testing"

// TestAttackDotglobHidesASecretRead: cat * is not judged as a secret read,
// since * picks no hidden file; with shopt -s dotglob (or GLOBIGNORE set,
// which turns dotglob on) it picks .env and the like, so shopt -s
// dotglob; cat * printed them as cat .* (Warning) does.
func TestAttackDotglobHidesASecretRead(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`shopt -s dotglob; cat *`,
		`shopt -s dotglob; grep x *`,
		`shopt -s dotglob nullglob; head *`,
		`GLOBIGNORE=x; cat *`,
		`GLOBIGNORE=.; cat *`,
		`bash -O dotglob -c 'cat *'`,
	})
	attackSafe(t, []string{
		`cat *`,
		`shopt -s nullglob; cat *`,
		`shopt -s globstar; ls **`,
	})
}
