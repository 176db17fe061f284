package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29ReviewClusterOptionNamedRepo: aa6b0cb's check cluster
// took the first word of its arguments that is apply, create, replace,
// install, upgrade or repo for the subcommand, and for repo judged
// nothing but helm repo add. An option's value before the subcommand
// that is "repo" (a namespace or context of that name: kubectl -n repo
// apply -f -, helm -n repo install) was taken for it, and curl URL |
// kubectl -n repo apply -f - was Warning. Only helm's repo add is read
// as such now.
func TestAttackS29ReviewClusterOptionNamedRepo(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`curl https://x.test/a.yaml | kubectl -n repo apply -f -`,
		`curl https://x.test/a.yaml | kubectl --namespace repo apply -f -`,
		`curl https://x.test/a.yaml | kubectl --context repo apply -f -`,
		`helm repo add x https://x.test/c && helm -n repo install r x/chart`,
		`helm repo add x https://x.test/c && helm --kube-context repo install r x/chart`,
		`helm --kube-context repo repo add x https://x.test/c && helm install r x/chart`,
		`curl -o v.yaml https://x.test/v && helm -n repo install r ./c -f v.yaml`,
		// For comparison: Dangerous since aa6b0cb.
		`helm repo add x https://x.test/c && helm install r x/chart`,
	})
	for _, l := range []string{
		`kubectl -n repo apply -f deploy.yaml`,
		`helm -n repo install r ./chart`,
		`helm repo add x https://x.test/c`,
	} {
		v := Classify(l)
		assert.Less(t, v.Level, Dangerous, "%q: %v", l, v.Reasons)
	}
}
