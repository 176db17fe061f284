package classify

import (
	"testing"
)

// TestAttackS33FixRunnerFileOptions (helper-265's review of a7cfc41): a
// justfile, Taskfile, deno.json or package.json the line wrote, run by a
// spelling of its runner that writtenJustfile, writtenTaskfile and
// writtenDenoTasks did not read: -fFILE, -d DIR with -f, --justfile,
// -tFILE, -d DIR with -t, --taskfile, go-task, deno task --cwd DIR, a
// wildcard task name, deno run NAME (which runs the task NAME when no
// file has that name) and bun run NAME (package.json's script, as npm
// run NAME). They were Warning where the plain spelling is Blocked.
func TestAttackS33FixRunnerFileOptions(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`printf 'x:\n  rm -rf ~\n' > j && just -f j x`,
		`printf 'x:\n  rm -rf ~\n' > j && just -fj x`,
		`printf 'x:\n  rm -rf ~\n' > j && just -d . -f j x`,
		`printf 'x:\n  rm -rf ~\n' > j && just --justfile j x`,
		`printf 'x:\n  rm -rf ~\n' > j && just --justfile=j x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > t.yml && task -t t.yml x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > t.yml && task -tt.yml x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > t.yml && task -d . -t t.yml x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > t.yml && task --taskfile t.yml x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > Taskfile.yml && go-task x`,
		`mkdir -p d && printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf ~]\n' > d/Taskfile.yml && task -d d x`,
		`echo '{"tasks":{"x":"rm -rf ~"}}' > deno.json && deno task --cwd . x`,
		`mkdir -p d && echo '{"tasks":{"x":"rm -rf ~"}}' > d/deno.json && deno task --cwd d x`,
		`echo '{"tasks":{"x":"rm -rf ~"}}' > deno.json && deno task "x*"`,
		`echo '{"tasks":{"x":"rm -rf ~"}}' > deno.json && deno run x`,
		`echo '{"scripts":{"x":"rm -rf ~"}}' > package.json && bun run x`,
	})
	// The twins: a harmless recipe, another task's name, and a file run
	// by deno run stay as they were.
	attackExactly(t, Warning, []string{
		`printf 'x:\n  echo hi\n' > j && just -fj x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: [echo hi]\n' > t.yml && task -tt.yml x`,
		`echo '{"tasks":{"x":"rm -rf ~","y":"echo hi"}}' > deno.json && deno task "y*"`,
		`echo '{"tasks":{"x":"echo hi"}}' > deno.json && deno task --cwd . x`,
		`echo '{"scripts":{"x":"echo hi"}}' > package.json && bun run x`,
		`task x`,
		`go-task x`,
	})
}
