package classify

import (
	"testing"
)

// TestAttackS33InstallIntoTheHome: a package manager told to install
// into a directory writes the program there: cargo install --root DIR
// (DIR/bin), npm install --prefix DIR (DIR/node_modules, DIR/bin) and go
// install with GOBIN=DIR are judged as writes to DIR, as pip install
// --target DIR is: into the home or a system directory (~, ~/.local/bin,
// /usr/local) Dangerous. They were Warning. A GOBIN known only when it
// runs is judged as pip install --target=$PWD/bin is (Dangerous); it was
// Warning. The default places and a directory in the working directory
// stay as they were.
func TestAttackS33InstallIntoTheHome(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`GOBIN=$D/bin go install example.com/x@latest`,
		`pip install --target=$PWD/bin x`,
		`cargo install --root ~ x`,
		`cargo install --root=$HOME x`,
		`cargo install --root ~/.local ripgrep`,
		`cargo install --root /usr/local x`,
		`npm i --prefix ~ x`,
		`npm install --prefix=$HOME x`,
		`npm --prefix ~/.local install -g x`,
		`npm i -g --prefix /usr/local x`,
		`npm --registry https://r.example i --prefix ~ x`,
		`GOBIN=~ go install example.com/x@latest`,
		`GOBIN=$HOME/.local/bin go install example.com/x@latest`,
		`env GOBIN=/usr/local/bin go install example.com/x@latest`,
		`export GOBIN=~/.local/bin; go install example.com/x@latest`,
		`pip install --target ~/.local/bin x`,
	})
	attackExactly(t, Warning, []string{
		`cargo install x`,
		`cargo install --root tools x`,
		`cargo install --locked ripgrep`,
		`npm i x`,
		`npm i -g x`,
		`npm install --prefix web`,
		`npm --prefix ../web run build`,
		`npm --prefix ~ run build`,
		`go install example.com/x@latest`,
		`pip install x`,
		// $PWD/bin is ./bin where the shell is (helper-266, see
		// TestAttackS33FixInstallDirInTheWorkingDirectory).
		`GOBIN=$PWD/bin go install example.com/x@latest`,
	})
}
