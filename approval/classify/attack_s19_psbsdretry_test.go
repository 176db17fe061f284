package classify

import "testing"

// TestAttackS19PsReadsDashOptionsAgainAsBSD: procps ps reads its options
// in the Unix style first, and when that fails reads every "-" word again
// in the BSD style, its dash dropped (parser.c's try_bsd; procps-ng 4
// without the old "bogus '-'" warning). It fails on an option the Unix
// style does not take (-x: the ps -aux habit, -r, -S, -v, -X, -h, -k, a
// digit) and on a list of users, groups, terminals or sessions in the
// same word that names none (-aux is -a -u x). There e is the BSD e: ps
// -auxe, ps -axe, ps -eux and ps -ef -x printed each process's
// environment (seen with procps-ng 4.0.2: a variable of ps's own
// environment in its line), where ps e and ps -o environ were Warning;
// all were Safe.
func TestAttackS19PsReadsDashOptionsAgainAsBSD(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`ps -auxe`,
		`ps -auxwe`,
		`ps -auxwwe`,
		`ps -aeux`,
		`ps -eaux`,
		`ps -axe`,
		`ps -xe`,
		`ps -ex`,
		`ps -eux`,
		`ps -ejx`,
		`ps -ewwx`,
		`ps -e -x`,
		`ps -ef -x`,
		`ps -x -e`,
		`ps -eS`,
		`ps -er`,
		`ps -e1`,
		`ps -euwa`,
		`ps -e -u -x`,
		`ps -auxe | grep KEY`,
	})
	attackSafe(t, []string{
		`ps -aux`,
		`ps -ax`,
		`ps -auxww`,
		`ps aux`,
		`ps -ef`,
		`ps -eF`,
		`ps -ely`,
		`ps -eLf`,
		`ps -ejH`,
		`ps -e -o pid,args`,
		`ps -eo pid,comm,etime`,
		`ps -e -u root`,
		`ps -eu root`,
		`ps -ef --sort=-pid`,
		`ps -aux --sort=-%mem`,
		`ps -x -o pid,args`,
		`ps -p 1 -o comm=`,
	})
}
