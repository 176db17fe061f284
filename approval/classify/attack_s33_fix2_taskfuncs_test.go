package classify

import "testing"

// TestAttackS33Fix2TaskRunnerFunctions (review of a7cfc41): a justfile
// or Taskfile the line wrote whose commands reach the home through
// just's functions ({{home_directory()}}, {{env_var("HOME")}}) or
// Task's templates ({{.HOME}}), or run a command from an assignment
// (x := shell("...")) or Task's top-level env (env: {X: {sh: ...}}),
// were Warning where printf 'x:\n  rm -rf ~\n' > justfile && just x is
// Blocked: they are judged as the text they expand to.
func TestAttackS33Fix2TaskRunnerFunctions(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`printf 'x:\n  rm -rf {{home_directory()}}\n' > justfile && just x`,
		`printf 'x:\n  rm -rf {{ home_directory() }}\n' > justfile && just x`,
		`printf 'x:\n  rm -rf {{env_var("HOME")}}\n' > justfile && just x`,
		`printf 'x:\n  rm -rf {{env("HOME")}}\n' > justfile && just x`,
		`printf 'x := shell("rm -rf ~")\ny:\n  echo {{x}}\n' > justfile && just y`,
		`printf 'version: 3\nenv:\n  X:\n    sh: rm -rf ~\ntasks:\n  x: echo hi\n' > Taskfile.yml && task x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds:\n      - rm -rf {{.HOME}}\n' > Taskfile.yml && task x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds: ["rm -rf {{.HOME}}"]\n' > Taskfile.yml && task x`,
	})
	// The same files with harmless commands keep their label.
	attackExactly(t, Warning, []string{
		`printf 'x:\n  ls {{home_directory()}}\n' > justfile && just x`,
		`printf 'x := shell("echo hi")\ny:\n  echo {{x}}\n' > justfile && just y`,
		`printf 'version: 3\nenv:\n  X:\n    sh: echo hi\ntasks:\n  x: echo hi\n' > Taskfile.yml && task x`,
		`printf 'version: 3\ntasks:\n  x:\n    cmds:\n      - ls {{.HOME}}\n' > Taskfile.yml && task x`,
		`printf 'x:\n  echo hi\n' > justfile && just x`,
	})
}
