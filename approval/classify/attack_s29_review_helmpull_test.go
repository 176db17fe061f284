package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29ReviewHelmPullThenInstall: helm install of a chart from a
// URL, or of a chart of a repository the line added from one (aa6b0cb),
// is Dangerous. helm pull fetches the same chart to a local file or,
// with --untar, a directory, and helm install of that local chart
// installs it all the same: helm pull oci://x/c --untar && helm install r
// ./c was Warning. After a helm pull of a chart from a URL, or of the
// line's added repository, helm install or upgrade of a local chart is
// Dangerous now. A pull of a repository the line did not add, and a
// local chart alone, stay below Dangerous, as helm install x
// bitnami/nginx does.
func TestAttackS29ReviewHelmPullThenInstall(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`helm pull oci://x.test/c --untar && helm install r ./c`,
		`helm pull https://x.test/c.tgz && helm install r ./c.tgz`,
		`helm pull https://x.test/c.tgz; helm install r c.tgz`,
		`helm pull oci://x.test/c --untar --untardir /tmp/k && helm install r /tmp/k/c`,
		`helm repo add x https://x.test/c && helm pull x/chart --untar && helm install r ./chart`,
		`helm pull c --repo https://x.test/charts --untar && helm install r ./c`,
		`helm pull oci://x.test/c --untar && helm upgrade --install r ./c -n y`,
		`helm fetch oci://x.test/c --untar && helm install r ./c`,
		// For comparison: Dangerous since aa6b0cb and before.
		`helm install r oci://x.test/c`,
	})
	for _, l := range []string{
		`helm pull bitnami/nginx --untar && helm install r ./nginx`,
		`helm pull oci://x.test/c --untar`,
		`helm install r ./chart`,
		`helm pull oci://x.test/c --untar && helm install r bitnami/nginx`,
	} {
		v := Classify(l)
		assert.Less(t, v.Level, Dangerous, "%q: %v", l, v.Reasons)
	}
}
