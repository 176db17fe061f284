package classify

import (
	"testing"
)

// TestAttackS33FixInstallDirInTheWorkingDirectory (helper-265's review of
// 81688e8 and 6af5c3f, false positives): go -C DIR makes -o relative to
// DIR (go -C tools build -o ../bin/tool writes ./bin/tool), and $PWD,
// ${PWD} or $(pwd) at the start of GOBIN, npm's --prefix or cargo's
// --root is the directory the shell is in, judged as ./ is (after a cd
// too). They were Dangerous; go -C tools build -o ../bin/tool was
// Warning before 81688e8.
func TestAttackS33FixInstallDirInTheWorkingDirectory(t *testing.T) {
	attackExactly(t, Warning, []string{
		`go -C tools build -o ../bin/tool .`,
		`go -C tools test -c -o ../bin/t.test .`,
		`go build -C tools -o ../bin/tool .`,
		`GOBIN=$PWD/bin go install golang.org/x/tools/cmd/stringer@latest`,
		`GOBIN=${PWD}/bin go install golang.org/x/tools/cmd/stringer@latest`,
		`GOBIN=$(pwd)/bin go install golang.org/x/tools/cmd/stringer@latest`,
		`GOBIN="$PWD/bin" go install ./cmd/x`,
		`export GOBIN=$PWD/bin; go install ./cmd/x`,
		`npm i --prefix "$PWD/web"`,
		`npm install --prefix=$PWD/web`,
		`cargo install --root "$PWD/.tools" x`,
		`cargo install --root=$(pwd)/.tools x`,
	})
	// The twins: the same spellings that name a place outside the
	// working directory stay Dangerous.
	attackAtLeast(t, Dangerous, []string{
		`cd ~ && GOBIN=$PWD/bin go install x`,
		`cd / && npm i --prefix "$PWD/web" x`,
		`cd ~ && cargo install --root "$PWD/.tools" x`,
		`GOBIN=$PWD/../bin go install x`,
		`cargo install --root "$PWD/.." x`,
		`npm i --prefix "$PWD/.." x`,
		`export GOBIN=$PWD/bin; GOBIN=$D; go install x`,
		`export GOBIN=$PWD/bin; read -r GOBIN; go install x`,
		`go -C tools build -o ../../bin/tool .`,
		`go -C tools build -o ~/bin/tool .`,
		`go -C .. build -o bin/tool .`,
		`go -C /tmp build -o tool .`,
		`go -C "$D" build -o ../bin/tool .`,
		`go build -o ../bin/tool .`,
		`pip install --target=$PWD/bin x`,
		// cargo's --root is judged by the project check now, after
		// rustup's +TOOLCHAIN too (Warning before).
		`cargo +nightly install --root ~ x`,
		`cargo install --root ~ x`,
		`cargo --locked install --root=/usr/local x`,
	})
}
