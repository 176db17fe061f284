package classify

import "testing"

// TestAttackGoWritesByProductsOutside: go test -c writes the test binary
// PKG.test into the directory go works in, and go test, vet and list
// given -modfile=FILE with -mod=mod (or GOFLAGS=-mod=mod from the
// environment) write FILE and the go.sum beside it (FILE.sum): go 1.26
// wrote the go line into ../out/alt.mod, run in a temporary directory. In
// the working directory these are part of the build, as the build cache
// is, and stay Safe; but after cd /tmp, with go test -C /tmp, or with
// -modfile naming a file outside, they land outside the working
// directory, and were Safe.
func TestAttackGoWritesByProductsOutside(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`cd /tmp && go test -c`,
		`cd ~ && go test -c ./x`,
		`cd .. && go test -c`,
		`go test -C /tmp -c`,
		`go test -C=/tmp -c ./...`,
		`go test -C "$d" -c`,
		`go test -c -C ..`,
		`cd "$d" && go test -c`,
		`go test -mod=mod -modfile=/tmp/go.mod`,
		`go test -modfile /tmp/go.mod -mod mod ./...`,
		`go test -modfile=../alt.mod`,
		`go vet -mod=mod -modfile=/tmp/go.mod`,
		`go list -mod=mod -modfile=/tmp/go.mod`,
		`go list -modfile=$HOME/x.mod -m all`,
		`go test -modfile="$f"`,
		`go test -C /tmp -modfile=alt.mod`,
	})
	attackAtLeast(t, Dangerous, []string{
		`go test -mod=mod -modfile=.git/x.mod`,
	})
	attackSafe(t, []string{
		`go test -c`,
		`go test -c ./pkg`,
		`go test -c /tmp/x`,
		`cd pkg && go test -c`,
		`go test -C sub -c`,
		`go test -mod=mod`,
		`go test -modfile=tools.mod`,
		`go test -mod=mod -modfile=alt/go.mod ./...`,
		`go list -modfile=tools.mod -m all`,
		`go vet ./...`,
		`cd /tmp && go vet`,
		`go test -mod=readonly -modfile=/tmp/go.mod`,
		`go test -modfile=/tmp/go.mod -mod=vendor`,
	})
}
