package classify

import "testing"

// TestAttackS25UmaskSymbolicClauses: umask's symbolic mode takes clauses
// joined by commas, and one of them that lets others write is umask 000
// (umask u=rwx,g=rwx,o=rwx then umask prints 0000 in bash 5.2). Only a
// single clause was matched. Seen failing first: these were Safe.
// ulimit stays Safe: it lowers or raises the shell's own limits (ulimit
// -c unlimited lets a crash write a core file in the working directory,
// as the program could anyway), it writes nothing and runs nothing.
func TestAttackS25UmaskSymbolicClauses(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`umask u=rwx,g=rwx,o=rwx`,
		`umask u=rwx,o=rwx`,
		`umask g+w,o+w`,
		`umask -S u=rwx,g=rx,o=rwx`,
		`umask =rwx`,
		`umask +w`,
	})
	attackSafe(t, []string{`umask u=rwx,g=rx,o=rx`, `umask 022`, `umask`, `umask -S`, `ulimit -c unlimited`, `ulimit -n 1024`})
}
