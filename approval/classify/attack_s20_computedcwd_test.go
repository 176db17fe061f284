package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS20RelativeNameInAComputedDirectory: after a cd to a directory
// computed when the command runs, a relative name is a file there, and
// that directory may be ~/.kube or ~/.ssh: cd $(echo fi5rdWJl | base64 -d)
// && cat config reads ~/.kube/config, Safe where cat ~/.kube/config is
// Warning (left open by the computed-names fix, 46c5f51; seen failing
// first). A relative operand of a command that reads files, with the
// shell in a directory known only at run time, is Warning now.
func TestAttackS20RelativeNameInAComputedDirectory(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cd $(echo fi5rdWJl | base64 -d) && cat config`,
		`cd $(echo fi8uc3No | base64 -d); cat config`,
		`cd "$d" && cat config`,
		`pushd "$(echo fi5hd3M= | base64 -d)" && cat credentials`,
		`cd "$(dirname "$0")" && head -n 3 config`,
		`cd $(echo fi5hd3M= | base64 -d) && grep -r key .`,
	})
	v := Classify(`cd $(echo fi5rdWJl | base64 -d) && cat config`)
	assert.Contains(t, v.Reasons, "cat: config in a directory not known until it runs ($(echo fi5rdWJl | base64 -d)); the classifier cannot tell which file, and it may be a secret one")
	// Where the directory is known, the name is judged there as before.
	attackSafe(t, []string{
		`cd src && cat main.go`,
		`cd $PWD && cat README.md`,
		`cd "$(echo x)" && echo config`,
		`cd "$d" && cat /etc/hostname`,
	})
}
