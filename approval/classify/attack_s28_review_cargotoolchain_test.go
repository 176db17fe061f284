package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS28ReviewCargoToolchainInstallGit: rustup's cargo takes the
// toolchain as its first word (cargo +nightly install ...). That word
// hid the subcommand, so cargo install --git URL, Blocked since 28f0156,
// was Warning with +nightly before it. Registry installs stay below.
func TestAttackS28ReviewCargoToolchainInstallGit(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`cargo +nightly install --git https://github.com/x/y`,
		`cargo +stable install --locked --git=https://github.com/x/y y`,
		`cargo +1.80.0 install y --git https://github.com/x/y`,
	})
	for _, l := range []string{
		`cargo +nightly install ripgrep`,
		`cargo +nightly install --path .`,
	} {
		v := Classify(l)
		assert.Less(t, v.Level, Dangerous, "%q: %v", l, v.Reasons)
	}
}
