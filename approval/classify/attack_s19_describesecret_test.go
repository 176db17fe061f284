package classify

import "testing"

// TestAttackS19KubectlDescribeSecret: kubectl describe secret prints a
// Secret's keys with their lengths, except the token of a service account
// token Secret (type kubernetes.io/service-account-token), which it prints
// in full (the usual way to fetch one: kubectl describe secret x | awk
// '$1=="token:"{print $2}'). kubectl get secret x -o yaml was Warning;
// describe was Safe in every spelling of the type, and so was describe
// -f FILE given before the subcommand (cobra parses it as describe's), a
// file whose objects may be such Secrets.
func TestAttackS19KubectlDescribeSecret(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`kubectl describe secret x`,
		`kubectl describe secrets`,
		`kubectl describe secret/x`,
		`kubectl describe secrets/x`,
		`kubectl describe Secret x`,
		`kubectl describe SECRETS`,
		`kubectl describe secrets.v1 x`,
		`kubectl describe secret.v1. x`,
		`kubectl describe sa,secret`,
		`kubectl describe secrets,sa`,
		`kubectl -n kube-system describe secret default`,
		`kubectl describe -n kube-system secret default`,
		`kubectl describe secrets -l app=x`,
		`kubectl describe pod/a secret/b`,
		`kubectl describe secret x | awk '$1=="token:"{print $2}'`,
		`kubectl -f sa-token.yaml describe`,
		`kubectl --filename=sa-token.yaml describe`,
		`kubectl -fsa-token.yaml describe`,
		`kubectl describe -f sa-token.yaml`,
	})
	attackSafe(t, []string{
		`kubectl describe pod x`,
		`kubectl -l app=secrets-manager describe pods`,
		`kubectl describe sa default`,
		`kubectl describe node n1`,
		`kubectl describe deployment secret-store`,
		`kubectl get secrets`,
		`kubectl get secret x`,
		`kubectl -f deploy.yaml get`,
	})
}
