package classify

import "testing"

// TestAttackCargoWritesTargetOutside: cargo check, test and clippy write
// the build into target/ beside the project's Cargo.toml, and they, cargo
// tree and cargo metadata write Cargo.lock there when it is missing. In
// the working directory that is part of the build and stays Safe, as
// cargo test is by design; but cargo -C /tmp test, cd /tmp/x && cargo
// test and --manifest-path /tmp/x/Cargo.toml put it outside, and were
// Safe (--target-dir /tmp/x, which names the place, was Dangerous).
func TestAttackCargoWritesTargetOutside(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`cargo -C /tmp/x test`,
		`cargo -C /tmp/x check`,
		`cargo -C /tmp/x tree`,
		`cd /tmp/x && cargo test`,
		`cd ~/other && cargo clippy`,
		`cd .. && cargo check`,
		`cd /tmp/x && cargo metadata`,
		`cargo test --manifest-path /tmp/x/Cargo.toml`,
		`cargo check --manifest-path=../x/Cargo.toml`,
		`cargo clippy --manifest-path "$m"`,
		`cd "$d" && cargo test`,
	})
	attackSafe(t, []string{
		`cargo test`,
		`cargo check --all-targets`,
		`cargo clippy -p x`,
		`cargo tree`,
		`cargo metadata`,
		`cd crates/a && cargo test`,
		`cargo test --manifest-path crates/a/Cargo.toml`,
		`cargo -C crates/a test`,
		`cargo test -- --nocapture`,
	})
}
