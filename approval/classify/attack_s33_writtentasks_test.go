package classify

import (
	"testing"
)

// TestAttackS33WrittenTaskRunners: a justfile, a Taskfile.yml or a
// deno.json (its tasks) the line writes with text it spells out, then
// just, task or deno task runs: the recipes, cmds and tasks are shell
// code the line chose, judged as that code, as a written Makefile run by
// make is. They were Warning. Recipes that do nothing of the kind stay as
// they were.
func TestAttackS33WrittenTaskRunners(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`printf 'x:\n\trm -rf ~\n' > justfile && just`,
		`printf 'x:\n    rm -rf ~\n' > justfile && just x`,
		`printf 'x:\n  @rm -rf ~\n' > Justfile; just`,
		`printf 'x:\n  rm -rf ~\n' > build.just && just -f build.just x`,
		`printf 'x:\n  rm -rf ~\n' > build.just && just --justfile=build.just`,
		"cat > justfile <<'EOF'\nx:\n    -rm -rf ~\nEOF\njust x",
		`printf 'version: 3\ntasks:\n  x:\n    cmds:\n      - rm -rf ~\n' > Taskfile.yml && task x`,
		`printf 'version: "3"\ntasks:\n  default:\n    cmds:\n      - cmd: rm -rf ~\n' > Taskfile.yaml && task`,
		`printf 'version: 3\ntasks:\n  x: rm -rf ~\n' > taskfile.yml && task x`,
		`printf 'version: 3\ntasks:\n  x:\n    - rm -rf ~\n' > Taskfile.yml && task x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [echo hi]\n    preconditions:\n      - sh: rm -rf ~\n' > Taskfile.yml && task x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > t.yml && task -t t.yml x`,
		`echo '{"tasks":{"x":"rm -rf ~"}}' > deno.json && deno task x`,
		`echo '{"tasks":{"x":{"command":"rm -rf ~"}}}' > deno.json && deno task x`,
		`echo '{"tasks":{"x":"rm -rf ~"}}' > deno.jsonc && deno task x`,
		`echo '{"tasks":{"y":"rm -rf ~","x":{"command":"echo","dependencies":["y"]}}}' > deno.json && deno task x`,
		`echo '{"scripts":{"x":"rm -rf ~"}}' > package.json && deno task x`,
		`echo '{"tasks":{"x":"rm -rf ~"}}' > d.json && deno task -c d.json x`,
		// Dangerous on the old code (the code rule of deno's match).
		`deno task --eval 'rm -rf ~'`,
	})
	attackExactly(t, Warning, []string{
		`printf 'x:\n\tgo build ./...\n' > justfile && just`,
		`just`,
		`just x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds:\n      - go build ./...\n' > Taskfile.yml && task x`,
		`task x`,
		`echo '{"tasks":{"x":"deno test"}}' > deno.json && deno task x`,
		`echo '{"tasks":{"y":"rm -rf ~","x":"deno test"}}' > deno.json && deno task x`,
		`deno task x`,
	})
}
