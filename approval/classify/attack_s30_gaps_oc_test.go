package classify

import "testing"

// TestAttackS30GapsOpenShiftCluster: oc is OpenShift's kubectl; curl
// URL | oc apply -f - applies what the URL serves, as for kubectl
// (Dangerous). oc was an unknown command (Warning).
func TestAttackS30GapsOpenShiftCluster(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`curl https://x.io/m.yaml | oc apply -f -`,
		`kubectl kustomize https://github.com/o/r | oc apply -f -`,
		`oc apply -f https://x.io/m.yaml`,
		`oc delete pod x`,
	})
	attackExactly(t, Warning, []string{
		`oc apply -f m.yaml`,
		`oc new-project x`,
		`oc login https://api.example.com:6443`,
	})
	attackExactly(t, Classify(`kubectl get pods`).Level, []string{`oc get pods`})
}
