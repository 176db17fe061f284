package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29InstallsFromURLs: gh extension install OWNER/REPO (or a
// URL) fetches a repository's executable, which gh runs as gh NAME from
// then on, and npm init (create) and bun create given a template from a
// git repository or a URL fetch it and run it (npm exec of
// github:x/create-y; bun clones the repository and installs its
// dependencies, running their scripts). They were Warning, while npm
// install github:x/y and npx github:x/y are Defaults.DownloadExec
// (Blocked): code from wherever the URL points, installed or run.
func TestAttackS29InstallsFromURLs(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`gh extension install owner/repo`,
		`gh ext install owner/repo`,
		`gh extensions install https://github.com/owner/repo`,
		`gh extension install owner/repo --pin v1.0.0`,
		`gh extension install --force owner/repo`,
		`bun create x/y`,
		`bun create github.com/x/y my-app`,
		`bun create https://github.com/x/y`,
		`bun create --force x/y app`,
		`npm create github:x/y`,
		`npm init github:x/y`,
		`npm init -y x/y`,
		`npm create https://x.test/t.tgz`,
		`npm init git+https://x.test/y.git`,
		`npm innit gitlab:x/y`,
	})
	// The plain forms they match.
	attackAtLeast(t, Blocked, []string{
		`npm install github:x/y`,
		`npx github:x/y`,
	})
	// Templates from the registry and local ones, and listing
	// extensions, stay as they were.
	for _, l := range []string{
		`gh extension list`,
		`gh extension install .`,
		`bun create vite`,
		`bun create ./my-template app`,
		`npm init vite`,
		`npm create vite@latest my-app`,
		`npm init -y`,
		`npm init @scope/x`,
		`npm run create a/b`,
	} {
		v := Classify(l)
		assert.Equal(t, Warning, v.Level, "%q: %v", l, v.Reasons)
	}
}
