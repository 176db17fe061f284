package classify

import "testing"

// TestAttackKubectlOutputBeforeTheSubcommand: cobra finds kubectl's
// subcommand past the flags before it and then parses those flags as the
// subcommand's, so kubectl -o yaml get secret x prints the secret's data
// as kubectl get secret x -o yaml (Warning) does. -o and --output were
// allowed before any subcommand as if they were global flags.
func TestAttackKubectlOutputBeforeTheSubcommand(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`kubectl -o yaml get secret x`,
		`kubectl --output=yaml get secrets`,
		`kubectl -ojson get secrets`,
		`kubectl -o=jsonpath={.items} get secrets`,
		`kubectl --output json get secret`,
		`kubectl -n x -o yaml get secret`,
		`kubectl -o yaml cluster-info dump`,
		`kubectl --out=yaml get secrets`,
	})
	attackSafe(t, []string{
		`kubectl get secrets`,
		`kubectl -n x get pods`,
		`kubectl --context=x get pods`,
		`kubectl describe pod x`,
	})
}
