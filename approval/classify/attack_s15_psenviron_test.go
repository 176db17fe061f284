package classify

import "testing"

// TestAttackPsEnvironColumn: procps ps has an output column "environ"
// (header ENVIRONMENT) that prints each process's environment, what the
// BSD e (ps e, Warning) prints: the environment of the program running
// the command, where its API keys are. Asked for with -o, -O, --format or
// the BSD o and O, it was Safe, and so was a list of columns known only at
// run time (ps -o "$(rev <<< norivne)"). The column names are matched as
// procps does, in lower case only (ENVIRON is an error).
func TestAttackPsEnvironColumn(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`ps -o environ`,
		`ps -o environ= -p 1`,
		`ps -eo pid,environ`,
		`ps -eoenviron`,
		`ps -Oenviron`,
		`ps -O environ`,
		`ps --format=pid,environ`,
		`ps --format pid,environ:80`,
		`ps -o 'pid environ'`,
		`ps -p "$PPID" -o environ=`,
		`ps o environ`,
		`ps ax O environ`,
		`ps e`,
		`ps auxe`,
		// A column list known only at run time may name it.
		`ps -o "$(echo ENVIRON | tr A-Z a-z)"`,
		`ps -eo pid,"$(rev <<< norivne)"`,
		`ps -o "pid $(rev <<< norivne)"`,
		`ps --format="$(cat cols)"`,
		`ps ax o pid,"$(cat cols)"`,
	})
	attackSafe(t, []string{
		`ps -o pid,args`,
		`ps -o pid,comm:20,args`,
		`ps -o 'pid, args'`,
		`ps -o pid=PID -o args=`,
		`ps -p "$PPID" -o pid=`,
		`ps -eo pid,comm,etime`,
		`ps -ef`,
		`ps aux`,
		`ps -p 1 -o comm=`,
		`ps --sort=pid -o pid`,
	})
}
