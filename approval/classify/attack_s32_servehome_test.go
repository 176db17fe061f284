package classify

import (
	"testing"
)

// TestAttackS32ServesTheHome: serve (vercel's, run with npx, bunx, pnpm
// dlx), live-server and sirv given the home, root or a system directory
// (npx serve ~, or no directory after cd ~) serve it on the network, its
// keys and tokens with it, as npx http-server ~ does (Dangerous). They
// were Warning. Serving the workspace or a build directory stays as it
// was.
func TestAttackS32ServesTheHome(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`npx serve ~`,
		`npx serve /`,
		`npx serve -l 8080 ~`,
		`npx serve@14 $HOME`,
		`bunx serve ~`,
		`pnpm dlx serve ~`,
		`serve ~/`,
		`cd ~ && npx serve`,
		`npx live-server ~`,
		`npx sirv-cli ~`,
		`npx serve /etc`,
	})
	attackExactly(t, Warning, []string{
		`npx serve`,
		`npx serve .`,
		`npx serve dist`,
		`npx serve -s build -l 3000`,
		`npx live-server public`,
		`serve dist`,
	})
}
