package classify

import "testing"

// TestAttackS33Fix2ServesSecretDirectories (review of 98b2f23, check
// serves_dir): JSR's file server and npx serve of ~/.ssh, ~/.aws,
// "$HOME/.ssh", .. or after cd ~/.ssh put its keys on the network, as
// deno run -RN npm:http-server ~/.ssh and python3 -m http.server -d ~
// do (Dangerous). All nine were Warning.
func TestAttackS33Fix2ServesSecretDirectories(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`deno run -RN jsr:@std/http/file-server ~/.ssh`,
		`deno run -RN jsr:@std/http/file-server ~/.aws`,
		`deno run -RN jsr:@std/http/file-server "$HOME/.ssh"`,
		`cd ~/.ssh && deno run -RN jsr:@std/http/file-server`,
		`deno run -RN jsr:@std/http/file-server ..`,
		`npx serve ~/.ssh`,
		`npx serve ~/.aws`,
		`cd ~/.ssh && npx serve`,
		`npx serve ..`,
	})
	// The lines it is compared with stay Dangerous.
	attackAtLeast(t, Dangerous, []string{
		`deno run -RN npm:http-server ~/.ssh`,
		`python3 -m http.server -d ~`,
		`npx serve ~`,
		`cd ~ && npx serve`,
	})
}

// TestAttackS33Fix2ServesOtherDirectories: a build directory or the
// working directory keep their labels (the second is below Dangerous,
// as TestAttackS28DenoRemoteWithPermissions wants).
func TestAttackS33Fix2ServesOtherDirectories(t *testing.T) {
	attackExactly(t, Warning, []string{
		`npx serve dist`,
		`deno run -A jsr:@std/http/file-server`,
		`npx serve`,
		`npx serve ./public`,
		`deno run -RN jsr:@std/http/file-server dist`,
		`cd site && npx serve`,
	})
}
