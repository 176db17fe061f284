package shell_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// codePayload is a value that, spliced into a shell line, runs touch
// pwned in the working directory and hides the rest of the line.
const codePayload = "/dev/null; touch pwned; false #"

// buildAndRun builds each template and, when it is built, runs it with
// key set to value; it reports the templates that were built, and
// whether pwned appeared after any of them.
func buildAndRun(t *testing.T, dir string, argvs [][]string, value string) (built [][]string) {
	t.Helper()
	sb := processEngine(t, dir)
	for _, argv := range argvs {
		c, err := shell.NewCommand("t", "t", sb, argv)
		if err != nil {
			var ce *tool.ConfigError
			assert.ErrorAs(t, err, &ce, "%q", argv)
			continue
		}
		built = append(built, argv)
		_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": value})})
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("%q ran touch", argv)
			require.NoError(t, os.Remove(filepath.Join(dir, "pwned")))
		}
	}
	return built
}

// Attack: ae672bf refused a placeholder in tar's command options only as
// spelt in full, but GNU tar's getopt_long takes any unambiguous
// abbreviation (--to-com=, --use-comp=, --checkpoint-act=), and its
// one-letter options bundle (-xI CMD -f ARCHIVE: -I takes the next
// argument) or come old-style without a dash (tar xIf CMD ARCHIVE); and
// --checkpoint-action={action} lets the model write exec=... itself. Each
// was built, and tar ran the value with a shell.
func TestAttackS30ReviewTarOtherSpellingsAreShellCode(t *testing.T) {
	tarPath, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("tar is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644))
	require.NoError(t, exec.Command(tarPath, "-C", dir, "-czf", filepath.Join(dir, "a.tgz"), "a.txt").Run())
	require.NoError(t, exec.Command(tarPath, "-C", dir, "-cf", filepath.Join(dir, "a.tar"), "a.txt").Run())
	built := buildAndRun(t, dir, [][]string{
		{tarPath, "-xf", "a.tar", "--to-com=grep -c {key}"},
		{tarPath, "-xf", "a.tar", "--to-comm", "grep -c {key}"},
		{tarPath, "--use-comp=gzip -d {key}", "-xf", "a.tgz"},
		{tarPath, "-xf", "a.tar", "--checkpoint=1", "--checkpoint-act=exec=echo {key}"},
		{tarPath, "-xf", "a.tar", "--checkpoint=1", "--checkpoint-action={key}"},
		{tarPath, "-xI", "gzip -d {key}", "-f", "a.tgz"},
		{tarPath, "xIf", "gzip -d {key}", "a.tgz"},
		{tarPath, "-xf", "a.tar", "--info-scr=echo {key}"},
	}, codePayload)
	assert.Empty(t, built, "templates built")
	for _, argv := range [][]string{
		{tarPath, "--checkpoint=1", "--checkpoint-action=dot", "-xf", "{archive}"},
		{tarPath, "--totals", "-xf", "{archive}", "-C", "{dir}"},
		{tarPath, "-tvf", "{archive}"},
		{tarPath, "cf", "{archive}", "{file}"},
		{tarPath, "-I", "{program}", "-xf", "a.tar"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: d4a9ad1 refused a placeholder in git -c values that git runs,
// but git runs other option values with a shell too: --upload-pack (-u
// for clone) of ls-remote, fetch, clone and pull, a local remote's
// helper run through sh -c; --receive-pack/--exec of push; rebase's
// --exec/-x; a single command after submodule foreach; and the -c after a
// global option that takes a value of its own (--git-dir DIR -c ...),
// where the scan took DIR for the subcommand. And env TB_SSH={v} git
// --config-env=core.sshCommand=TB_SSH sets core.sshCommand from a
// variable the model fills.
func TestAttackS30ReviewGitCommandOptionsAreShellCode(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for _, a := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "one"}} {
		cmd := exec.Command(gitPath, a...)
		cmd.Dir = dir
		require.NoError(t, cmd.Run())
	}
	built := buildAndRun(t, dir, [][]string{
		{gitPath, "ls-remote", "--upload-pack=git-upload-pack {key}", "."},
		{gitPath, "ls-remote", "--upload-pack", "git-upload-pack {key}", "."},
		{gitPath, "ls-remote", "--upload=git-upload-pack {key}", "."},
		{gitPath, "clone", "-u", "git-upload-pack {key}", ".", "copy"},
		{gitPath, "fetch", "--upload-pack=git-upload-pack {key}", "."},
		{gitPath, "--git-dir", ".git", "-c", "alias.x=!true {key}", "x"},
		{gitPath, "-c", "user.name=a", "-c", "user.email=a@b", "rebase", "-q", "--root", "--exec", "true {key}"},
		{gitPath, "-c", "user.name=a", "-c", "user.email=a@b", "rebase", "-q", "--root", "-x", "true {key}"},
		{"env", "TB_SSH=ssh -i {key}", gitPath, "--config-env=core.sshCommand=TB_SSH", "ls-remote", "ssh://127.0.0.1:1/x"},
		{gitPath, "submodule", "foreach", "true {key}"},
		{gitPath, "push", "--receive-pack=git-receive-pack {key}", ".", "main"},
	}, codePayload)
	assert.Empty(t, built, "templates built")
	for _, argv := range [][]string{
		{gitPath, "--git-dir", ".git", "-c", "user.name={key}", "log"},
		{gitPath, "ls-remote", "--", "{remote}"},
		{gitPath, "clone", "-q", "{url}", "{dest}"},
		{gitPath, "add", "-u", "{path}"},
		{gitPath, "push", "-u", "origin", "{branch}"},
		{gitPath, "rebase", "--exec", "{cmd}", "main"},
		{"env", "TB_NAME={key}", gitPath, "log"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: d4a9ad1's list of git configuration keys whose values git runs
// left out some: trailer.<token>.command and .cmd (git interpret-trailers
// runs them with a shell, no terminal needed), interactive.diffFilter,
// submodule.<name>.update=!CMD, gpg.ssh.defaultKeyCommand, imap.tunnel,
// difftool/mergetool.<tool>.path and others. git -c
// "trailer.sign.command=echo {key}" interpret-trailers --trailer sign=a
// ran touch.
func TestAttackS30ReviewGitConfigKeysLeftOut(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	built := buildAndRun(t, dir, [][]string{
		{gitPath, "-c", "trailer.sign.command=echo {key}", "interpret-trailers", "--trailer", "sign=a"},
		{gitPath, "-c", "trailer.sign.cmd=echo {key}", "interpret-trailers", "--trailer", "sign=a"},
		{gitPath, "-c", "interactive.diffFilter=cat {key}", "add", "-p"},
		{gitPath, "-c", "submodule.x.update=!true {key}", "submodule", "update"},
		{gitPath, "-c", "gpg.ssh.defaultKeyCommand=echo {key}", "log"},
		{gitPath, "-c", "imap.tunnel=nc {key}", "imap-send"},
	}, codePayload)
	assert.Empty(t, built, "templates built")
	_, err = shell.NewCommand("ok", "ok", processEngine(t, dir), []string{gitPath, "-c", "trailer.sign.key={key}", "interpret-trailers"})
	assert.NoError(t, err)
}

// Attack: 50c4be1 refused a placeholder in a variable env sets that the
// command runs as code, but other launchers set variables with an
// option: bwrap --setenv GIT_SSH_COMMAND "ssh -i {key}" git ls-remote
// ssh://127.0.0.1:1/x ran touch (real bwrap, git and sh), and
// systemd-run --setenv=NAME=VALUE / -E NAME=VALUE alike.
func TestAttackS30ReviewLauncherSetenvIsCode(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	var argvs [][]string
	if bwrap, err := exec.LookPath("bwrap"); err == nil && exec.Command(bwrap, "--dev-bind", "/", "/", "true").Run() == nil {
		argvs = append(argvs,
			[]string{bwrap, "--dev-bind", "/", "/", "--setenv", "GIT_SSH_COMMAND", "ssh -i {key}", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"},
			[]string{"timeout", "30", bwrap, "--dev-bind", "/", "/", "--setenv", "{key}", "x", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"})
	} else {
		t.Log("bwrap cannot run here")
	}
	argvs = append(argvs,
		[]string{"systemd-run", "--user", "--setenv=GIT_SSH_COMMAND=ssh -i {key}", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"},
		[]string{"systemd-run", "--user", "-E", "BASH_ENV={key}", "bash", "-c", "true"})
	built := buildAndRun(t, dir, argvs, codePayload)
	assert.Empty(t, built, "templates built")
	for _, argv := range [][]string{
		{"bwrap", "--dev-bind", "/", "/", "--setenv", "LANG", "{key}", "true"},
		{"systemd-run", "--user", "--setenv=LANG={key}", "true"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: git's core.sshCommand and GIT_SSH_COMMAND were refused, but
// ssh's own -o options run commands too: ssh -o "ProxyCommand=nc {host}
// 22" ... runs its value with a shell before connecting, as do
// LocalCommand and KnownHostsCommand, and PKCS11Provider loads a library.
// ssh -F /dev/null -o "ProxyCommand=nc {key} 22" 127.0.0.1 true given
// '/dev/null; touch pwned; false #' ran touch (real ssh and sh; nothing
// connects); scp and sftp take the same -o.
func TestAttackS30ReviewSSHOptionIsShellCode(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("ssh is not installed")
	}
	dir := t.TempDir()
	built := buildAndRun(t, dir, [][]string{
		{sshPath, "-F", "/dev/null", "-o", "ProxyCommand=nc {key} 22", "127.0.0.1", "true"},
		{sshPath, "-F", "/dev/null", "-oProxyCommand nc {key} 22", "127.0.0.1", "true"},
		{"timeout", "30", sshPath, "-F", "/dev/null", "-vo", "proxycommand=nc {key} 22", "127.0.0.1", "true"},
		{sshPath, "-F", "/dev/null", "-o", "{key}=x", "127.0.0.1", "true"},
		{"scp", "-F", "/dev/null", "-o", "ProxyCommand=nc {key} 22", "a", "127.0.0.1:b"},
		{"sftp", "-F", "/dev/null", "-o", "KnownHostsCommand=cat {key}", "127.0.0.1"},
	}, "$(touch pwned)") // ssh runs "exec CMD": a substitution runs first
	assert.Empty(t, built, "templates built")
	for _, argv := range [][]string{
		{sshPath, "-o", "ConnectTimeout={key}", "-p", "{port}", "{host}", "true"},
		{"scp", "-o", "{option}", "a", "{dest}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: strace reads an output file name starting with "|" or "!" as a
// command to pipe its trace into, run with a shell, so a "trace a
// program to a log" tool, strace -f -o {log} true, given "|touch pwned"
// ran touch (real strace and sh): a whole value, which passes as a file
// name. Such a value is now refused with invalid_arguments.
func TestAttackS30ReviewStraceOutputPipeIsCode(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	dir := t.TempDir()
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"strace", "-f", "-o", "{key}", "true"},
		{"strace", "-o{key}", "true"},
		{"strace", "--output={key}", "true"},
		{"timeout", "30", "strace", "-fo", "{key}", "true"},
	} {
		c, err := shell.NewCommand("trace", "Trace", sb, argv)
		require.NoError(t, err)
		for _, v := range []string{"|touch pwned", "!touch pwned"} {
			_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": v})})
			if assert.Error(t, err, "%q ran with %q", argv, v) {
				assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Errorf("%q ran touch", argv)
				require.NoError(t, os.Remove(filepath.Join(dir, "pwned")))
			}
		}
		// Guard: a file name is one.
		_, err = c.Argv(args(t, map[string]any{"key": "trace.log"}))
		assert.NoError(t, err)
	}
}

// False refusal: find's and make's rules applied to every argument after
// the word find or make wherever it stood, so cat -- find {file} given
// "-notes.txt" (a file of that name) was refused as part of find's
// expression, and cat -- make {file} given "a=b.txt" as a make variable
// definition, though cat reads both as files. They now apply only where
// find or make (or a program that may run them) reads the argument.
func TestS30ReviewFindAndMakeRulesOnlyForTheirArguments(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"find": "F\n", "make": "M\n", "-notes.txt": "N\n", "a=b.txt": "AB\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	sb := processEngine(t, dir)
	for _, tc := range []struct {
		argv       []string
		file, want string
	}{
		{[]string{"cat", "--", "find", "{file}"}, "-notes.txt", "F\nN\n"},
		{[]string{"cat", "--", "make", "{file}"}, "a=b.txt", "M\nAB\n"},
	} {
		c, err := shell.NewCommand("show", "Show", sb, tc.argv)
		require.NoError(t, err)
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"file": tc.file})})
		if assert.NoError(t, err, "%q", tc.argv) {
			assert.Equal(t, tc.want, res.Text())
		}
	}
	// Guard: find and make behind wrappers, launchers and unknown
	// programs keep their rules.
	for _, tc := range []struct {
		argv []string
		v    string
	}{
		{[]string{"find", "--", "{file}"}, "-delete"},
		{[]string{"xargs", "find", "{file}"}, "-delete"},
		{[]string{"timeout", "5", "find", "--", "{file}"}, "-delete"},
		{[]string{"setpriv", "--nnp", "--", "find", "--", "{file}"}, "-delete"},
		{[]string{"busybox", "find", "--", "{file}"}, "-delete"},
		{[]string{"nice", "make", "{file}"}, "CC=x"},
		{[]string{"env", "V={file}", "make"}, "1; x"},
	} {
		c, err := shell.NewCommand("t", "t", sb, tc.argv)
		require.NoError(t, err)
		_, err = c.Argv(args(t, map[string]any{"file": tc.v}))
		assert.Error(t, err, "%q", tc.argv)
	}
}

// Attack: spellings the first review round (4e19369) still missed:
// git submodule --quiet foreach "CMD {x}" (an option before foreach),
// git ls-remote --exec= (upload-pack's other name), hyperfine's commands
// after "--", tar --rmt-command, and env GNUMAKEFLAGS=. git submodule
// --quiet foreach (in the submodule's directory) and ls-remote --exec=
// ran touch; the others were built.
func TestAttackS30ReviewSecondRoundSpellings(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	git := func(d string, a ...string) {
		cmd := exec.Command(gitPath, append([]string{"-c", "user.name=a", "-c", "user.email=a@b", "-c", "protocol.file.allow=always"}, a...)...)
		cmd.Dir = d
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git(sub, "init", "-q", "-b", "main")
	git(sub, "commit", "-q", "--allow-empty", "-m", "one")
	repo := filepath.Join(dir, "repo")
	require.NoError(t, os.Mkdir(repo, 0o755))
	git(repo, "init", "-q", "-b", "main")
	git(repo, "submodule", "-q", "add", sub, "sub")
	built := buildAndRun(t, repo, [][]string{
		{gitPath, "submodule", "--quiet", "foreach", "true {key}"},
		{gitPath, "ls-remote", "--exec=git-upload-pack {key}", "."},
		{"hyperfine", "--runs", "1", "--", "sleep {key}"},
		{"tar", "--rmt-command=rmt {key}", "-tf", "h:a.tar"},
		{"env", "GNUMAKEFLAGS=--eval={key}", "make"},
	}, codePayload)
	assert.Empty(t, built, "templates built")
	// foreach runs its command in the submodule's directory.
	assert.NoFileExists(t, filepath.Join(repo, "sub", "pwned"), "submodule --quiet foreach ran touch")
}

// Attack: bcde5e5 read a launcher's "--" as its own only when the word
// after it names a program the classifier knows, so prlimit
// --nofile=1024 -- ./mysort {file} (a program the classifier does not
// know, here a copy of sort) given "--output=victim.txt" ran mysort with
// that option, which emptied victim.txt. The "--" of a listed launcher
// (setpriv, prlimit, perf, bwrap, systemd-run, ...) is now its own
// whatever follows.
func TestAttackS30ReviewLauncherDashesBeforeAnUnknownProgram(t *testing.T) {
	sortPath, err := exec.LookPath("sort")
	if err != nil {
		t.Skip("sort is not installed")
	}
	dir := t.TempDir()
	b, err := os.ReadFile(sortPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mysort"), b, 0o755))
	victim := filepath.Join(dir, "victim.txt")
	sb := processEngine(t, dir)
	var ran int
	for _, argv := range [][]string{
		{"prlimit", "--nofile=1024", "--", "./mysort", "{file}"},
		{"setpriv", "--nnp", "--", "./mysort", "{file}"},
	} {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		ran++
		require.NoError(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
		c, err := shell.NewCommand("sorted", "Sort a file", sb, argv)
		require.NoError(t, err)
		_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"file": "--output=victim.txt"})})
		if assert.Error(t, err, "%q ran", argv) {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		}
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "precious\n", string(b), "%q emptied the file", argv)
		// Guard: the program's own "--" makes it an operand.
		c, err = shell.NewCommand("sorted", "Sort a file", sb, append(argv[:len(argv)-1:len(argv)-1], "--", "{file}"))
		require.NoError(t, err)
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"file": "victim.txt"})})
		require.NoError(t, err)
		assert.Equal(t, "precious\n", res.Text())
	}
	if ran == 0 {
		t.Skip("neither prlimit nor setpriv is installed")
	}
}

// Attack: the sqlite3 shell runs its SQL arguments and -cmd's
// dot-commands, where .shell and .system run commands and the shell's
// edit(TEXT, EDITOR) function runs EDITOR with system(): sqlite3 t.db
// "select count(*) from t where name = '{name}'" given "x' or
// edit('x', 'touch pwned') or '" ran touch (real sqlite3). A placeholder
// in the SQL (an operand after the database) or in -cmd's value is now
// refused at construction, as an interpreter's inline code is.
func TestAttackS30ReviewSqliteSQLIsCode(t *testing.T) {
	sq, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, exec.Command(sq, filepath.Join(dir, "t.db"), "create table t(name text); insert into t values('a');").Run())
	built := buildAndRun(t, dir, [][]string{
		{sq, "t.db", "select count(*) from t where name = '{key}'"},
		{sq, "-batch", "-separator", ",", "t.db", "select count(*) from t where name = '{key}'"},
		{sq, "-cmd", ".timeout {key}", "t.db", "select 1"},
	}, "x' or edit('x', 'touch pwned') or '")
	assert.Empty(t, built, "templates built")
	for _, argv := range [][]string{{sq, "-readonly", "{db}", "select count(*) from t"}, {sq, "t.db", "{sql}"}} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: 8ff40cc restricted the value of a make variable set as
// NAME={x} on make's command line, but make takes its code from two more
// places: a variable env sets for it (env VERSION={v} make release: make
// imports the environment as variables, and the recipe's $(VERSION)
// splices it into a shell line), and the makefile text of --eval or -E
// given as the next argument (make --eval 'x: ; @echo {v}' x). Both ran
// "1.0; touch pwned" (real env and make).
func TestAttackS30ReviewMakeCodeFromEnvAndEval(t *testing.T) {
	real, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("VERSION ?= dev\nrelease:\n\t@echo releasing $(VERSION)\n"), 0o644))
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"env", "VERSION={key}", real, "release"},
		{"env", "-i", "PATH=/usr/bin:/bin", "VERSION={key}", "timeout", "30", real, "release"},
		{real, "--eval", "x: ; @echo {key}", "x"},
		{real, "-E", "x: ; @echo {key}", "x"},
		{real, "--ev=x: ; @echo {key}", "x"},
	} {
		c, err := shell.NewCommand("release", "Release", sb, argv)
		require.NoError(t, err, "%q", argv)
		_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "1.0; touch pwned"})})
		if assert.Error(t, err, "%q ran", argv) {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("%q ran touch", argv)
			require.NoError(t, os.Remove(filepath.Join(dir, "pwned")))
		}
		// Guard: a version runs.
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "1.2.3"})})
		require.NoError(t, err, "%q", argv)
		assert.Contains(t, res.Text(), "1.2.3")
	}
	// Guard: a variable env sets for another program, and a whole --eval.
	for _, argv := range [][]string{{"env", "NAME={key}", "printenv", "NAME"}, {real, "--eval", "{key}", "x"}} {
		c, err := shell.NewCommand("ok", "ok", sb, argv)
		require.NoError(t, err, "%q", argv)
		_, err = c.Argv(args(t, map[string]any{"key": "a b; c"}))
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: e16083a declared a placeholder naming the directory a program
// changes to a path argument only for the options spelt in full
// (--directory=, -C {dir}), so an abbreviation getopt_long takes (tar
// --direc=, env --ch=), a bundle (tar -cC {dir}), tar's old style (tar
// cCf {dir} - FILE), and the same option of programs it did not list
// (unshare --wd=, nsenter --wd, sudo -D, patch -d, cpio -D, go -C,
// chroot's new root) left the directory to nobody: with forbidden_paths
// [secrets/**], dir "secrets" and file "key" (judged as ./key) printed
// secrets/key.
func TestAttackS30ReviewChdirOtherSpellingsArePathArguments(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "secrets"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("s3cr3t-key-material\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("public-notes\n"), 0o600))
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"dir":{"type":"string"},"file":{"type":"string","x-toolbelt-path":true}},"required":["dir","file"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for name, argv := range map[string][]string{
		"tar_direc":   {"tar", "--direc={dir}", "-cf", "-", "--", "{file}"},
		"tar_cC":      {"tar", "-cC", "{dir}", "-f", "-", "--", "{file}"},
		"tar_old":     {"tar", "cCf", "{dir}", "-", "{file}"},
		"env_ch":      {"env", "--ch={dir}", "cat", "--", "{file}"},
		"unshare_wd":  {"unshare", "--wd={dir}", "cat", "--", "{file}"},
		"unshare_wd2": {"timeout", "30", "unshare", "--wd", "{dir}", "cat", "--", "{file}"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(argv[0]); err != nil {
				t.Skipf("%s is not installed", argv[0])
			}
			c, err := shell.New(tool.Spec{Name: name, Description: "Read a file", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: argv})
			require.NoError(t, err)
			reg := registry.New()
			reg.MustRegister(c)
			ex := executor.MustNew(reg, executor.WithExtensions(p))
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: []byte(`{"dir":"secrets","file":"key"}`)})
			assert.False(t, strings.Contains(res.Text(), "s3cr3t"), "the secret was read: %q", printable(res.Text()))
			if assert.NotNil(t, res.Error, "the secret was read") {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			}
			// Guard: a directory the policy allows still runs.
			res, _ = ex.Execute(context.Background(), tool.Call{ID: "2", Name: name, Args: []byte(`{"dir":".","file":"notes.txt"}`)})
			assert.Nil(t, res.Error, "%v", res.Error)
			assert.Contains(t, res.Text(), "public-notes")
		})
	}
	for _, argv := range [][]string{
		{"git", "--git-d={dir}", "log", "--", "{file}"},
		{"make", "-sC", "{dir}", "-f", "{file}"},
		{"sudo", "-D", "{dir}", "cat", "--", "{file}"},
		{"nsenter", "-t", "1", "-w{dir}", "cat", "--", "{file}"},
		{"patch", "-d", "{dir}", "-i", "{file}"},
		{"cpio", "-D", "{dir}", "-i", "{file}"},
		{"go", "-C", "{dir}", "run", "{file}"},
		{"chroot", "{dir}", "cat", "--", "{file}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"dir", "file"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
	// Guard: a bundle whose -C is another letter's value (tar -fC names
	// the archive C), grep -C, and make -f's value are no directory. (tar
	// -fC {dir} -c -- {file} declares {dir} since the review of 647881a:
	// an operand, a member tar reads, as {file} is; here -fC comes before
	// a value that names no file.)
	for _, argv := range [][]string{
		{"tar", "-fC", "--exclude", "{dir}", "-c", "--", "{file}"},
		{"grep", "-rC", "{dir}", "--", "x", "{file}"},
		{"make", "-f", "{dir}", "{file}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"file"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
}

// False refusal: bcde5e5 read a "--" followed by a word naming a program
// the classifier knows as a launcher's own "--" whatever the program
// before it, so cat -- env {file}, ls -- test {x} and grep -r -- make
// {file} refused a value starting with "-", though cat, ls and grep run
// nothing and read every word after their "--" as an operand. A program
// the classifier knows, not as a wrapper nor a listed launcher, now keeps
// its "--"; setpriv, prlimit and other launchers it does not know keep
// bcde5e5's rule.
func TestS30ReviewDoubleDashOfAPlainProgramEndsItsOptions(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"env": "env-file\n", "-n": "dash-n-file\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	sb := processEngine(t, dir)
	c, err := shell.NewCommand("show", "Show files", sb, []string{"cat", "--", "env", "{file}"})
	require.NoError(t, err)
	res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"file": "-n"})})
	require.NoError(t, err)
	assert.Equal(t, "env-file\ndash-n-file\n", res.Text())
	for _, argv := range [][]string{{"ls", "--", "test", "{file}"}, {"grep", "-r", "--", "make", "{file}"}} {
		c, err := shell.NewCommand("t", "t", sb, argv)
		require.NoError(t, err)
		_, err = c.Argv(args(t, map[string]any{"file": "-x"}))
		assert.NoError(t, err, "%q", argv)
	}
	// Guard: launchers keep their rule.
	for _, argv := range [][]string{{"setpriv", "--nnp", "--", "sort", "{file}"}, {"systemd-run", "--user", "--", "sort", "{file}"}, {"timeout", "5", "--", "sort", "{file}"}} {
		c, err := shell.NewCommand("t", "t", sb, argv)
		require.NoError(t, err)
		_, err = c.Argv(args(t, map[string]any{"file": "--output=x"}))
		assert.Error(t, err, "%q", argv)
	}
}

// Attack (the gaps the S30 fixes left): programs that run an option's
// value as code of their own: vim -c/--cmd/+CMD (Ex commands, where |
// chains a call system()), gdb -ex/--eval-command (gdb 13's
// $_shell()), zip -TT (a command line run with a shell), rsync
// -e/--rsh/--rsync-path (split into the remote shell's arguments: ssh
// -oProxyCommand=...), less +CMD, and hyperfine's commands (run with a
// shell). A placeholder spliced into such a value was built.
func TestAttackS30ReviewOptionValuesProgramsRunAreCode(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644))
	var runnable [][]string
	vimCall := `y/|call system("touch pwned")|"`
	if p, err := exec.LookPath("vim"); err == nil {
		built := buildAndRun(t, dir, [][]string{
			{p, "-N", "-u", "NONE", "-i", "NONE", "-es", "-c", "s/x/{key}/", "-c", "wq", "f.txt"},
			{p, "-N", "-u", "NONE", "-i", "NONE", "-es", "+s/x/{key}/", "-c", "wq", "f.txt"},
			{p, "-N", "-u", "NONE", "-i", "NONE", "-es", "--cmd", "s/x/{key}/", "-c", "wq", "f.txt"},
		}, vimCall)
		assert.Empty(t, built, "templates built")
	}
	if p, err := exec.LookPath("gdb"); err == nil {
		built := buildAndRun(t, dir, [][]string{
			{p, "-nx", "-batch", "-ex", "print {key}"},
			{p, "-nx", "-batch", "--eval-command=print {key}"},
			{p, "-nx", "-batch", "-iex", "print {key}"},
		}, `$_shell("touch pwned")`)
		assert.Empty(t, built, "templates built")
	}
	if p, err := exec.LookPath("zip"); err == nil {
		built := buildAndRun(t, dir, [][]string{
			{p, "-q", "out.zip", "f.txt", "-T", "-TT", "true {key}"},
			{p, "-q", "out.zip", "f.txt", "-T", "--unzip-command", "true {key}"},
		}, codePayload)
		assert.Empty(t, built, "templates built")
	}
	runnable = append(runnable,
		[]string{"rsync", "-e", "ssh -p {key}", "f.txt", "h:f"},
		[]string{"rsync", "-avze", "ssh -p {key}", "f.txt", "h:f"},
		[]string{"rsync", "--rsh=ssh -p {key}", "f.txt", "h:f"},
		[]string{"rsync", "--rsync-path=sudo rsync {key}", "f.txt", "h:f"},
		[]string{"less", "+/{key}", "f.txt"},
		[]string{"hyperfine", "sleep {key}"},
		[]string{"hyperfine", "--prepare", "sync {key}", "true"},
	)
	for _, argv := range runnable {
		_, err := shell.NewCommand("t", "t", processEngine(t, dir), argv)
		assert.Error(t, err, "%q was built", argv)
	}
	// Guard: whole values (the author handing the command over), file
	// names, and options that take no code.
	for _, argv := range [][]string{
		{"vim", "-es", "-c", "{cmd}", "{file}"},
		{"gdb", "-batch", "-ex", "bt", "--args", "./prog", "{arg}"},
		{"zip", "-r", "{archive}", "{dir}"},
		{"rsync", "-az", "-e", "ssh", "--", "{src}", "{dest}"},
		{"less", "-N", "{file}"},
		{"hyperfine", "--runs", "{n}", "sleep 1"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		assert.NoError(t, err, "%q", argv)
	}
}
