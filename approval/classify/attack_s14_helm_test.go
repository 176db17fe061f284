package classify

import "testing"

// TestAttackHelmGetPrintsReleaseSecrets: helm get values prints the
// values a release was installed with (its passwords and tokens), and
// helm get manifest, hooks and all the objects it rendered, a Secret's
// data among them, as kubectl get secret x -o yaml (Warning) does; they
// were Safe. Its notes and metadata hold none.
func TestAttackHelmGetPrintsReleaseSecrets(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`helm get values x`,
		`helm get manifest x`,
		`helm get hooks x`,
		`helm get all x`,
		`helm get`,
	})
	attackSafe(t, []string{
		`helm get notes x`,
		`helm get metadata x`,
		`helm list`,
		`helm status x`,
	})
}
