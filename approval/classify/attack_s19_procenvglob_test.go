package classify

import "testing"

// TestAttackS19ProcEnvironGlob: a glob is judged by the secrets rules it
// names closely enough (the pattern's literal part, a directory of it, or
// half of its bytes spelled). /proc/*environ's literal part is
// "environ", so a glob in a process's directory that spells less than
// half of it, cat /proc/self/env*, /proc/1/e* or /proc/$PPID/*on, was
// Safe, and in /proc/PID there is no other name it expands to: it printed
// the environment, as cat /proc/self/environ (Warning) does. /proc/*/mem
// and /proc/*/fd/* are named by "/proc/" already.
func TestAttackS19ProcEnvironGlob(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat /proc/self/env*`,
		`cat /proc/1/en*`,
		`cat /proc/1/e*`,
		`cat /proc/$PPID/*on`,
		`cat /proc/1/e*n`,
		`cat /proc/*/e*`,
		`head -c 4096 /proc/self/env*`,
		`strings /proc/1/task/1/env*`,
		`cat /proc/thread-self/e?v*`,
		`grep -a KEY /proc/[0-9]*/en*`,
	})
	attackSafe(t, []string{
		`cat /proc/cpuinfo`,
		`cat /proc/cpu*`,
		`cat /proc/1/st*`,
		`cat /proc/self/s*`,
		`cat /proc/self/status`,
		`ls /proc/*/status`,
		`cat /proc/*/comm`,
		`cat /proc/[0-9]*/status`,
		`cat /proc/self/cg*`,
	})
}
