package classify

import (
	"testing"
)

// TestAttackS33GoChdirFirst: go -C DIR, which go takes only as its first
// flag, hid the subcommand from its rule: go -C dir build -toolexec=X
// (which runs X), go -C dir test -o ~/.bashrc (which writes it) were
// judged as bare go (Warning). The subcommand after -C DIR (-C=DIR,
// --C DIR) is judged by its rule, as go build -C DIR is, and never
// below bare go's Warning.
func TestAttackS33GoChdirFirst(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`go -C dir build -toolexec=./evil ./...`,
		`go -C dir test -exec ./evil ./...`,
		`go -C=dir vet -vettool=./evil ./...`,
		`go --C dir run -toolexec ./evil .`,
		`go -C dir build -o ~/.bashrc .`,
		`go -C dir test -c -o /usr/local/bin/x .`,
		`go -C dir test -coverprofile=~/.profile ./...`,
		`go -C dir list -toolexec=./evil ./...`,
	})
	attackExactly(t, Warning, []string{
		`go -C dir build ./...`,
		`go -C dir run .`,
		`go -C dir test ./...`,
		`go -C dir vet ./...`,
		`go -C dir generate ./...`,
		`go -C dir install ./cmd/x`,
		`go -C dir version`,
		`go build ./...`,
	})
}
