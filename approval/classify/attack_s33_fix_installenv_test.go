package classify

import (
	"testing"
)

// TestAttackS33FixInstallDirFromEnvironment (helper-265's review of
// 6af5c3f): the install directory given another way than the options
// installDirWrites read: npm's prefix from its environment
// (NPM_CONFIG_PREFIX, npm_config_prefix), npm options whose value hid the
// install command (--scope @o), npm install-clean, GOPATH (go install
// writes GOPATH/bin without GOBIN), gem's -i and --bindir, uv pip's
// --target, PIP_TARGET, pnpm -C, yarn --cwd and bun add --cwd: Warning
// where npm i --prefix ~ x, pip install --target ~ x and GOBIN=~ go
// install x are Dangerous.
func TestAttackS33FixInstallDirFromEnvironment(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`NPM_CONFIG_PREFIX=~ npm i -g x`,
		`npm_config_prefix=/usr/local npm install -g x`,
		`export npm_config_prefix=~; npm i -g x`,
		`npm --scope @o i --prefix ~ x`,
		`npm --location user i --prefix ~ x`,
		`npm --fetch-retries 3 i --prefix ~ x`,
		`npm install-clean --prefix ~`,
		`GOPATH=~ go install example.com/x@latest`,
		`GOPATH=/usr/local go install example.com/x@latest`,
		`gem install -i ~ x`,
		`gem install --install-dir ~/.gems x`,
		`gem install --bindir /usr/local/bin x`,
		`gem install -n ~/bin x`,
		`uv pip install --target ~ x`,
		`PIP_TARGET=~ pip install x`,
		`pnpm -C ~ add x`,
		`yarn --cwd ~ add x`,
		`bun add --cwd ~ x`,
	})
	// The twins: the same spellings into the working directory stay as
	// they were.
	attackExactly(t, Warning, []string{
		`NPM_CONFIG_PREFIX=./web npm i x`,
		`npm --scope @o i --prefix web x`,
		`npm --scope @o i x`,
		`GOPATH=./gopath go install example.com/x@latest`,
		`GOPATH=~/go go install example.com/x@latest`,
		`export GOPATH=$HOME/go; go install example.com/x@latest`,
		`GOPATH=~ go build ./...`,
		`gem install -i vendor/gems x`,
		`gem install x`,
		`uv pip install --target vendor x`,
		`PIP_TARGET=vendor pip install x`,
		`pnpm -C web add x`,
		`yarn --cwd web add x`,
		`bun add --cwd web x`,
	})
}
