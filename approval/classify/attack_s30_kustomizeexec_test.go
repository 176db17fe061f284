package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS30KustomizeExecFunctions: kustomize build
// --enable-exec (or --enable-alpha-plugins) runs the KRM functions the
// kustomization names, exec ones as programs on this machine: of a
// remote kustomization, code from wherever the URL points, run, as curl
// URL | sh runs it (Defaults.DownloadExec). It was Warning. A local one
// stays exactly Warning, and a remote one without the flags too.
func TestAttackS30KustomizeExecFunctions(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`kustomize build --enable-exec https://x.test/a`,
		`kustomize build https://x.test/a --enable-alpha-plugins --enable-exec`,
		`kustomize build --enable-alpha-plugins github.com/x/y//fn`,
		`kubectl kustomize --enable-alpha-plugins https://x.test/a`,
		`kustomize build --enable-exec=true https://x.test/a`,
	})
	for _, l := range []string{
		`kustomize build --enable-exec overlays/prod`,
		`kustomize build https://x.test/a`,
		`kustomize build --enable-exec=false https://x.test/a`,
	} {
		v := Classify(l)
		assert.Equal(t, Warning, v.Level, "%q: %v", l, v.Reasons)
	}
}
