package classify

import "testing"

// TestAttackS23VariablesThatNameACommand: more programs run a variable's
// value as a command line, as git runs GIT_PAGER: gh its GH_PAGER,
// GH_EDITOR and GH_BROWSER, the AWS CLI AWS_PAGER, bat BAT_PAGER, delta
// DELTA_PAGER, kubectl KUBE_EDITOR and KUBECTL_EXTERNAL_DIFF, svn
// SVN_EDITOR, hg HGEDITOR, sudoedit SUDO_EDITOR, systemctl edit
// SYSTEMD_EDITOR, less LESSEDIT, rsync RSYNC_CONNECT_PROG (for
// rsync:// URLs), GNU parallel PARALLEL_SHELL (and PARALLEL holds options,
// --rpl's Perl code among them); zsh runs the start-up files in ZDOTDIR;
// and psql, mysql, sqlite3, node, python, redis-cli and less write their
// history to the file their variable names (~/.bashrc, say). Each was
// Warning (no variable rule says what it does).
func TestAttackS23VariablesThatNameACommand(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`GH_PAGER='rm -rf ~' gh pr list`,
		`AWS_PAGER='rm -rf ~' aws s3 ls`,
		`KUBE_EDITOR='rm -rf ~' kubectl edit pod x`,
		`RSYNC_CONNECT_PROG='rm -rf ~' rsync rsync://h/x .`,
		`SVN_EDITOR='rm -rf ~' svn commit`,
		`HGEDITOR='rm -rf ~' hg commit`,
		`GH_EDITOR='rm -rf ~' gh pr create`,
	})
	attackAtLeast(t, Dangerous, []string{
		`GH_BROWSER=./x gh pr view -w`,
		`BAT_PAGER=./x bat f`,
		`DELTA_PAGER=./x git diff`,
		`KUBECTL_EXTERNAL_DIFF=./x kubectl diff -f a.yaml`,
		`SUDO_EDITOR=./x sudoedit f`,
		`LESSEDIT=./x less f`,
		`PARALLEL_SHELL=./x parallel echo ::: a`,
		`PARALLEL='--rpl "{} system(q(id))"' parallel echo {} ::: a`,
		`ZDOTDIR=. zsh -c true`,
		`PSQL_HISTORY=~/.bashrc psql`,
		`MYSQL_HISTFILE=~/.bashrc mysql`,
		`SQLITE_HISTORY=~/.bashrc sqlite3 db`,
		`NODE_REPL_HISTORY=~/.bashrc node`,
		`PYTHON_HISTORY=~/.bashrc python3`,
		`REDISCLI_HISTFILE=~/.bashrc redis-cli`,
		`LESSHISTFILE=~/.bashrc less README.md`,
		`export GH_PAGER='./x'; gh pr list`,
	})
	attackSafe(t, []string{
		`GIT_PAGER=cat git log`,
		`LESSHISTFILE=- less README.md`,
		`LESSHISTFILE=/dev/null less README.md`,
	})
	for _, line := range []string{
		`GH_PAGER=cat gh pr list`,
		`AWS_PAGER= aws s3 ls`,
		`PSQL_HISTORY=/dev/null psql`,
	} {
		if v := Classify(line); v.Level != Warning {
			t.Errorf("%q: got %s %v, want warning (the program's own level)", line, v.Level, v.Reasons)
		}
	}
}
