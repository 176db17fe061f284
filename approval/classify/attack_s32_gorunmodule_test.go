package classify

import (
	"testing"
)

// TestAttackS32GoRunsAModuleFromElsewhere: go run MODULE@VERSION (go run
// github.com/x/y@latest) downloads the module from wherever its path
// points and runs it here, as npx github:x/y does: Dangerous. It was
// Warning, as go run . is. go run of the project's own packages, and an
// argument with an @ after the package, stay as they were.
func TestAttackS32GoRunsAModuleFromElsewhere(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`go run github.com/x/y@latest`,
		`go run github.com/x/y/cmd/z@v1.2.3`,
		`go run -mod=mod github.com/x/y@latest --flag`,
		`go run -race example.com/x@master`,
		`go -C /tmp/x run github.com/x/y@latest`,
	})
	attackExactly(t, Warning, []string{
		`go run .`,
		`go run ./cmd/x`,
		`go run main.go`,
		`go run ./cmd/x user@example.com`,
		`go install github.com/x/y@latest`,
	})
}
