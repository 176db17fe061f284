package classify

import "testing"

// TestAttackAnotherProcessesOpenFiles: /proc/PID/fd/N opens again the file
// process PID holds open as N, and /proc/PID/cwd/NAME names a file in its
// working directory, both behind the same ptrace check as
// /proc/PID/environ (Warning): on the process engine the command's parent
// is the program running it, so cat /proc/$PPID/fd/3 printed whatever
// file it held open (its audit trail, a configuration it read its keys
// from, a file deleted since) and cat /proc/$PPID/cwd/config.json a file
// of its own directory, outside the workspace. Both were Safe. The
// patterns cannot tell /proc/self from another process, so cat
// /proc/self/fd/0 is Warning too; /dev/fd/N, the usual name of one's own
// descriptor, and a listing of the descriptors stay Safe.
func TestAttackAnotherProcessesOpenFiles(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat /proc/$PPID/fd/3`,
		`tail /proc/$PPID/fd/1`,
		`cat /proc/1/fd/5`,
		`head -c 4096 /proc/$(pgrep -n node)/fd/7`,
		`ls -l /proc/$PPID/fd/ && cat /proc/$PPID/fd/9`,
		`cat /proc/$PPID/cwd/config.json`,
		`grep -r KEY /proc/$PPID/cwd/`,
		`cd /proc/$PPID/fd && cat 3`,
		`cat /proc/$PPID/map_files/*`,
	})
	attackSafe(t, []string{
		`cat /dev/fd/0`,
		`diff <(sort a) <(sort b)`,
		`ls -l /proc/$PPID/fd`,
		`cat /proc/$PPID/status`,
		`cat /proc/cpuinfo`,
		`echo x | tee /dev/stderr`,
	})
}
