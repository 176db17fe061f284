package shell_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// builtOf returns the templates of argvs that NewCommand builds; a
// refusal must be a *tool.ConfigError.
func builtOf(t *testing.T, argvs [][]string) (built [][]string) {
	t.Helper()
	sb := processEngine(t, t.TempDir())
	for _, argv := range argvs {
		_, err := shell.NewCommand("t", "t", sb, argv)
		if err != nil {
			var ce *tool.ConfigError
			assert.ErrorAs(t, err, &ce, "%q", argv)
			continue
		}
		built = append(built, argv)
	}
	return built
}

// Attack: the variables env sets for its command were judged (50c4be1),
// but sudo VAR=value CMD sets them too, so sudo
// GIT_SSH_COMMAND="ssh -i {key}" git ... was built; a pager man runs
// (-P, --pager=, --html=), the SQL of psql -c/--command and mysql
// -e/--execute (whose \! and system run shell commands, as sqlite3's
// .shell does) and mysql --pager were built; and hyperfine's -L NAME
// VALUES list, substituted into the commands it runs with a shell, was
// built even with the commands fixed by the author. The man templates
// are run too (process engine), though man-db runs its pager only on a
// terminal, so nothing runs here either way.
func TestAttackS31CodeOptionsLeftOut(t *testing.T) {
	var runnable [][]string
	if p, err := exec.LookPath("man"); err == nil {
		if exec.Command(p, "-w", "ls").Run() == nil {
			dir := t.TempDir()
			built := buildAndRun(t, dir, [][]string{
				{p, "-P", "cat {key}", "ls"},
				{p, "--pager=cat {key}", "ls"},
				{p, "--pag", "cat {key}", "ls"},
			}, codePayload)
			assert.Empty(t, built, "templates built")
		}
	}
	runnable = append(runnable,
		[]string{"man", "-P", "less {key}", "ls"},
		[]string{"man", "-aP", "less {key}", "ls"},
		[]string{"man", "--html=firefox {key}", "ls"},
		[]string{"sudo", "GIT_SSH_COMMAND=ssh -i {key}", "git", "fetch"},
		[]string{"sudo", "-u", "build", "LD_PRELOAD={key}", "make"},
		[]string{"sudo", "-g", "wheel", "EDITOR={key}", "git", "commit"},
		[]string{"sudo", "{name}=x", "git", "fetch"},
		[]string{"psql", "-c", "select * from t where name = '{key}'"},
		[]string{"psql", "-At", "-c", "select {key}"},
		[]string{"psql", "-Atc", "select {key}"},
		[]string{"psql", "--command=select {key}"},
		[]string{"psql", "--comm", "select {key}"},
		[]string{"mysql", "-e", "select * from t where name = '{key}'"},
		[]string{"mysql", "-Be", "select {key}"},
		[]string{"mysql", "--execute=select {key}"},
		[]string{"mariadb", "--exec", "select {key}"},
		[]string{"mysql", "--pager=less {key}"},
		[]string{"hyperfine", "-L", "n", "{key}", "sleep {{n}}"},
		[]string{"hyperfine", "--parameter-list", "n", "1,{key}", "sleep {{n}}"},
		[]string{"hyperfine", "-Ln", "{key}", "sleep {{n}}"},
	)
	assert.Empty(t, builtOf(t, runnable), "templates built")
	// Guard: whole code values (the author handing it over), other
	// options and variables, and fixed lists.
	for _, argv := range [][]string{
		{"man", "-P", "{pager}", "ls"},
		{"man", "-s", "{section}", "{page}"},
		{"sudo", "-u", "{user}", "LANG={lang}", "ls"},
		{"env", "-u", "PATH", "LANG={lang}", "ls"},
		{"psql", "-h", "{host}", "-d", "{db}", "-c", "select 1"},
		{"psql", "-c", "{sql}"},
		{"mysql", "-u", "{user}", "-e", "select 1"},
		{"hyperfine", "-L", "n", "1,2,3", "sleep {{n}}"},
		{"hyperfine", "--runs", "{n}", "sleep 1"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}
