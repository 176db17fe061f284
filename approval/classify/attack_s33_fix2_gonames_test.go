package classify

import "testing"

// TestAttackS33Fix2GoChdirUnknownAndNames (review of 81688e8):
// goChdirFirst gave up on -C=$D (a word known only when it runs), so go
// -C=$D build -toolexec=X was bare go (Warning) while go -C "$D" build
// -toolexec=X is Dangerous; gotip and go1.N.M (golang.org/dl) are go
// under another name and were unknown commands (Warning).
func TestAttackS33Fix2GoChdirUnknownAndNames(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`go -C=$D build -toolexec=./evil ./...`,
		`go -C="$D" test -exec ./evil ./...`,
		`gotip build -toolexec=./evil ./...`,
		`go1.22.0 -C dir build -toolexec=./evil ./...`,
		`go1.22 build -toolexec=./evil ./...`,
		`go1.23rc1 build -toolexec=./evil ./...`,
		`go build -toolexec=./evil ./...`,
	})
	// The same lines without the attack are judged as go's.
	for _, l := range [][2]string{
		{`gotip build ./...`, `go build ./...`},
		{`go1.22.0 test ./...`, `go test ./...`},
		{`go1.22.0 -C dir build ./...`, `go -C dir build ./...`},
		{`go -C=$D build ./...`, `go -C $D build ./...`},
		{`go -C="$D" build ./...`, `go -C "$D" build ./...`},
		{`go -C="$D" vet ./...`, `go -C "$D" vet ./...`},
		{`go -C=sub test ./...`, `go -C sub test ./...`},
	} {
		got, want := Classify(l[0]), Classify(l[1])
		if got.Level != want.Level {
			t.Errorf("%q: got %s %v, want %s as %q", l[0], got.Level, got.Reasons, want.Level, l[1])
		}
	}
	attackExactly(t, Warning, []string{`go build ./...`, `gotip build ./...`, `go -C sub build ./...`})
}
