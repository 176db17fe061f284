package classify

import (
	"testing"
)

// TestAttackS32RuntimesRunPackageBins: deno run npm:PKG runs the npm
// package's command, as npx PKG does (deno run -A npm:rimraf ~ is rimraf
// ~) with every permission or one that writes or runs programs (without,
// deno's sandbox holds it: Warning as before), and bun NAME (bun run
// NAME), where NAME is no file and none of bun's own commands, runs an
// installed package's command, as yarn NAME does. They were Warning.
// Scripts, files and bun's own commands stay as they were.
func TestAttackS32RuntimesRunPackageBins(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`deno run -A npm:rimraf ~`,
		`deno run --allow-all npm:rimraf@5 /`,
		`deno run -W npm:rimraf ~`,
		`bun run rimraf ~`,
		`bun rimraf ~`,
		`bun run --bun rimraf ~`,
	})
	attackAtLeast(t, Dangerous, []string{
		`deno run -A npm:http-server ~`,
		`bun http-server ~`,
	})
	attackExactly(t, Warning, []string{
		`deno run main.ts`,
		`deno run npm:rimraf ~`,
		`deno run --allow-read npm:http-server ~`,
		`deno run -A npm:vite`,
		`bun run dev`,
		`bun run build`,
		`bun index.ts`,
		`bun run ./script.ts`,
		`bun install`,
		`bun add zod`,
		`bun link`,
		`bun run test`,
	})
}
