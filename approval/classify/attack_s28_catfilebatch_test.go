package classify

import "testing"

// TestAttackS28CatFileBatchOfASecret: git cat-file --batch (and
// --batch-command, --batch=FORMAT) prints the contents of the objects
// its input names, so a here-string or a pipe naming HEAD:.env prints
// the committed .env as git cat-file -p HEAD:.env does (Warning); names
// it reads from a file, or from a pipe of text the line does not spell
// out, may be such a name. The line was Safe. --batch-check prints each
// object's type and size, not its contents, and stays Safe.
func TestAttackS28CatFileBatchOfASecret(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`git cat-file --batch <<< HEAD:.env`,
		`printf 'HEAD:.env\n' | git cat-file --batch`,
		`git cat-file --batch-command <<< 'contents HEAD:.env'`,
		`git cat-file --batch='%(objectname)' <<< HEAD:.ssh/id_rsa`,
		`git cat-file --batch < list`,
		`cat list | git cat-file --batch`,
		`git cat-file --batch <<EOF
HEAD:config/.env.production
EOF`,
	})
	attackSafe(t, []string{
		`echo HEAD:src/main.go | git cat-file --batch`,
		`git cat-file --batch <<< HEAD:go.mod`,
		`git cat-file --batch-check < list`,
		`git cat-file -p HEAD:go.mod`,
	})
}
