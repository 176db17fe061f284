package classify

import "testing"

// TestAttackS19GoTestRunsCodeOutside: go test is Safe as the project's own
// tests; go test -C DIR, go test DIR/... and go test after cd DIR build and
// run the tests (and their init functions and TestMain) of the packages in
// DIR. Outside the working directory that is code the line cannot judge,
// as bash /tmp/x/t.sh (Warning) is: a project unpacked in /tmp, another
// checkout in the home directory, a module in the module cache. All were
// Safe. go test -c and -n build or print without running, and an import
// path names the module's own packages or its dependencies.
func TestAttackS19GoTestRunsCodeOutside(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`go test -C /tmp/x ./...`,
		`go test -C=/tmp/x`,
		`go test -C ~/other .`,
		`go test -C .. ./...`,
		`go test /tmp/x/...`,
		`go test /tmp/x`,
		`go test ../other/...`,
		`go test -run TestX ~/go/pkg/mod/example.com/m@v1.0.0/...`,
		`go test -list . /tmp/x`,
		`cd /tmp/x && go test ./...`,
		`cd ~/src/other && go test`,
		`cd .. && go test ./...`,
	})
	attackSafe(t, []string{
		`go test ./...`,
		`go test .`,
		`go test`,
		`go test ./pkg/... ./cmd/...`,
		`go test -C sub ./...`,
		`cd pkg && go test`,
		`go test -run TestX -count=1 ./...`,
		`go test -coverpkg=./... ./...`,
		`go test -c /tmp/x`,
		`go test -n /tmp/x/...`,
		`go test example.com/m/pkg`,
		`go vet -C /tmp/x ./...`,
		`cd /tmp && go vet`,
	})
}
