package classify

import "testing"

// TestAttackS28GitLogRangeOfASecret: git log -L<range>:<file> prints the
// history of those lines of <file>, its contents among it, as git show
// HEAD:.env prints the file (Warning). Written attached to -L, the file
// hid in an option word, which secret names are not looked for in, and
// the line was Safe.
func TestAttackS28GitLogRangeOfASecret(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`git log -L1,1:.env`,
		`git log -L1,5:id_rsa`,
		`git log -L:main:.env`,
		`git log -L '/KEY/,+1:.env'`,
		`git log -L 1,1:.env`,
		`git log -p -L1,100:.aws/credentials`,
		`git log -L1,1:config/.env.production`,
		`git whatchanged -L1,1:.env`,
	})
	attackSafe(t, []string{
		`git log -L1,5:src/main.go`,
		`git log -L:main:main.go`,
		`git log -L '/func main/,+10:cmd/x/main.go'`,
		`git log --oneline`,
	})
}
