package shell_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// Attack: argv[0] may not be a placeholder, but the program a wrapper
// (timeout, nice, xargs, sudo, env), a launcher after its "--" (setpriv,
// prlimit) or find's -exec/-execdir/-ok/-okdir runs could be, so the
// model chose the program: find . -name '*.log' -exec {tool} {} ';',
// written for wc or head, given rm deleted the logs (real find and rm,
// process engine).
func TestAttackS31PlaceholderAsTheProgramAWrapperRuns(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.log"), []byte("x\n"), 0o644))
	sb := processEngine(t, dir)
	c, err := shell.NewCommand("t", "t", sb, []string{"find", ".", "-name", "*.log", "-exec", "{tool}", "{{}}", ";"})
	if err == nil {
		_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"tool": "rm"})})
		_, statErr := os.Stat(filepath.Join(dir, "a.log"))
		assert.NoError(t, statErr, "find -exec {tool} given rm deleted a.log")
	}
	var ce *tool.ConfigError
	if assert.ErrorAs(t, err, &ce) {
		assert.Equal(t, "argv.5", ce.Field)
		assert.Contains(t, ce.Message, "{tool}")
		assert.Contains(t, ce.Message, "find")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"find", ".", "-execdir", "{x}", "{{}}", "+"},
		{"find", ".", "-ok", "./bin/{x}", ";"},
		{"find", ".", "-type", "f", "-okdir", "{x}", ";"},
		{"xargs", "{x}"},
		{"xargs", "-0", "-n", "1", "{x}", "-v"},
		{"sudo", "{x}"},
		{"sudo", "-u", "build", "{x}", "install"},
		{"nice", "{x}"},
		{"nice", "-n", "5", "/usr/bin/{x}"},
		{"timeout", "5", "{x}"},
		{"timeout", "-s", "KILL", "5", "--", "{x}", "a"},
		{"env", "{x}"},
		{"env", "-i", "A=1", "{x}"},
		{"timeout", "5", "nice", "{x}"},
		{"nohup", "{x}"},
		{"setpriv", "--nnp", "--", "{x}", "a"},
		{"prlimit", "--nofile=1024", "--", "{x}"},
		{"timeout", "5", "find", ".", "-exec", "{x}", ";"},
	}), "templates built")
	// Guard: the program fixed, a placeholder among its arguments, a
	// wrapper's word read as an operand by a program that runs nothing,
	// an env or sudo assignment the author hands over, and a whole script
	// or remote command (the author handing the model a shell).
	for _, argv := range [][]string{
		{"find", ".", "-name", "{p}", "-exec", "wc", "-l", "{{}}", ";"},
		{"xargs", "-0", "grep", "-l", "--", "{pattern}"},
		{"timeout", "5", "grep", "-rn", "--", "{pattern}", "."},
		{"sudo", "-u", "{user}", "ls", "{dir}"},
		{"env", "{assign}", "npm", "test"},
		{"grep", "-rn", "--", "timeout", "{file}"},
		{"sh", "-c", "{script}"},
		{"ssh", "host", "{cmd}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: like find's -fprint (1e48f9a), the file other programs write
// their output to (sort -o, tee's operands, curl -o, wget -O, strace -o,
// time -o, cc -o, openssl -out) was no declared path argument when the
// schema declared another, so a governance policy judged only that one:
// with forbidden_paths [secrets/**] and file declared, sort -o {out} --
// {file} given out secrets/list wrote secrets/list (real programs,
// policy, executor, process engine; curl reads a file:// URL).
func TestAttackS31OutputFileWhereThePolicyForbids(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "secrets"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("public-notes\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.c"), []byte("int main(void){return 0;}\n"), 0o600))
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"file":{"type":"string","x-toolbelt-path":true},"out":{"type":"string"}},"required":["file","out"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for name, argv := range map[string][]string{
		"sort":       {"sort", "-o", "{out}", "--", "{file}"},
		"sort_long":  {"sort", "--output={out}", "--", "{file}"},
		"tee":        {"timeout", "30", "tee", "--", "{out}"},
		"curl":       {"curl", "-s", "-o", "{out}", "file://" + filepath.Join(dir, "notes.txt")},
		"wget":       {"wget", "-q", "-O", "{out}", "--", "file://" + filepath.Join(dir, "notes.txt")},
		"strace":     {"strace", "-o", "{out}", "true"},
		"time":       {"/usr/bin/time", "-o", "{out}", "true"},
		"cc":         {"cc", "-o", "{out}", "x.c"},
		"openssl":    {"openssl", "rand", "-out", "{out}", "8"},
		"sort_short": {"sort", "-o{out}", "--", "{file}"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(argv[0]); err != nil && argv[0] != "timeout" {
				t.Skipf("%s is not installed", argv[0])
			}
			c, err := shell.New(tool.Spec{Name: name, Description: "Write a file", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: argv})
			require.NoError(t, err)
			assert.Equal(t, []string{"file", "out"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
			reg := registry.New()
			reg.MustRegister(c)
			ex := executor.MustNew(reg, executor.WithExtensions(p))
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: []byte(`{"file":"notes.txt","out":"secrets/list"}`)})
			_, statErr := os.Stat(filepath.Join(dir, "secrets", "list"))
			assert.True(t, os.IsNotExist(statErr), "%s wrote secrets/list", name)
			_ = os.Remove(filepath.Join(dir, "secrets", "list"))
			if assert.NotNil(t, res.Error, "%s wrote secrets/list", name) {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			}
		})
	}
	// Guard: -o of programs that read it otherwise (ssh -o OPTION, grep
	// -o) is no file.
	for _, argv := range [][]string{
		{"ssh", "-o", "{out}", "host", "true"},
		{"grep", "-o", "{out}", "--", "{file}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"file"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
}

// Attack: a whole placeholder env reads before a command word is an
// assignment to the author (env {assign} cat -- notes.txt), but env reads
// a word without "=" there as the program it runs, with the template's
// words as its arguments: given rm, env ran rm cat -- notes.txt and
// deleted notes.txt (real env and rm, process engine). And the program of
// a wrapper behind find's -exec (find . -exec timeout 5 {x} ';') was not
// followed.
func TestAttackS31EnvAssignmentAsTheProgram(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("public-notes\n"), 0o644))
	c, err := shell.NewCommand("t", "t", processEngine(t, dir), []string{"env", "{assign}", "cat", "--", "notes.txt"})
	require.NoError(t, err)
	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"assign": "rm"})})
	_, statErr := os.Stat(notes)
	assert.NoError(t, statErr, "env {assign} given rm deleted notes.txt")
	if assert.Error(t, err) {
		assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
	}
	// Guard: an assignment runs the command.
	res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"assign": "LANG=C"})})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "public-notes")
	assert.Empty(t, builtOf(t, [][]string{
		{"find", ".", "-exec", "timeout", "5", "{x}", ";"},
		{"find", ".", "-execdir", "nice", "-n", "5", "{x}", "{{}}", "+"},
	}), "templates built")
}

// Attack: febbea3 followed a listed launcher to its program only past its
// "--", but most take the program as their first operand without one:
// ip netns exec NS {x}, setpriv --nnp {x}, dbus-run-session {x}, tini
// {x}, unbuffer, dumb-init, pkexec, fakeroot, xvfb-run, cgexec -g G {x}
// were built, the model choosing the program. setpriv --nnp {tool} --
// notes.txt given rm deleted notes.txt (real setpriv and rm, process
// engine).
func TestAttackS31LauncherProgramWithoutDashes(t *testing.T) {
	if p, err := exec.LookPath("setpriv"); err == nil {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("public-notes\n"), 0o644))
		c, err := shell.NewCommand("t", "t", processEngine(t, dir), []string{p, "--nnp", "{tool}", "--", "notes.txt"})
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"tool": "rm"})})
		}
		_, statErr := os.Stat(notes)
		assert.NoError(t, statErr, "setpriv --nnp {tool} given rm deleted notes.txt")
		assert.Error(t, err, "setpriv --nnp {tool} was built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"ip", "netns", "exec", "ns1", "{x}"},
		{"ip", "netns", "exec", "{ns}", "{x}", "a"},
		{"setpriv", "--reuid", "1000", "--clear-groups", "{x}"},
		{"dbus-run-session", "{x}"},
		{"dbus-run-session", "--config-file=/etc/d.conf", "{x}"},
		{"tini", "-s", "-p", "SIGTERM", "{x}"},
		{"unbuffer", "{x}"},
		{"dumb-init", "-c", "{x}"},
		{"pkexec", "--user", "build", "{x}"},
		{"fakeroot", "-s", "state", "{x}"},
		{"xvfb-run", "-a", "-s", "-screen 0 1x1x8", "{x}"},
		{"cgexec", "-g", "cpu:grp", "{x}"},
		{"timeout", "5", "setpriv", "--nnp", "{x}"},
	}), "templates built")
	// Guard: the program fixed, a placeholder as an option's value or an
	// argument of the program.
	for _, argv := range [][]string{
		{"ip", "netns", "exec", "{ns}", "ping", "-c", "1", "{host}"},
		{"setpriv", "--reuid", "{uid}", "--nnp", "cat", "--", "{file}"},
		{"tini", "-p", "{signal}", "--", "sleep", "{n}"},
		{"xvfb-run", "-s", "{args}", "firefox", "{url}"},
		{"cgexec", "-g", "{group}", "make", "-C", "{dir}"},
		{"ip", "link", "show", "{dev}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: the launchers 9a7915a gave no grammar still took their program
// without a "--" unseen: bwrap --dev-bind / / {tool} notes.txt given rm
// deleted notes.txt (real bwrap and rm, process engine), and prlimit,
// numactl and systemd-run templates were built alike.
func TestAttackS31MoreLaunchersProgramWithoutDashes(t *testing.T) {
	if p, err := exec.LookPath("bwrap"); err == nil {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("public-notes\n"), 0o644))
		c, err := shell.NewCommand("t", "t", processEngine(t, dir), []string{p, "--dev-bind", "/", "/", "--chdir", dir, "{tool}", "notes.txt"})
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"tool": "rm"})})
		}
		_, statErr := os.Stat(notes)
		assert.NoError(t, statErr, "bwrap ... {tool} given rm deleted notes.txt")
		assert.Error(t, err, "bwrap ... {tool} was built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"bwrap", "--ro-bind", "/", "/", "--setenv", "A", "b", "--unshare-all", "{x}"},
		{"bwrap", "--bind", "{src}", "/w", "--chmod", "0755", "/w", "{x}", "a"},
		{"prlimit", "--nofile=1024", "{x}"},
		{"prlimit", "-p", "1", "--as", "{x}"},
		{"numactl", "-N", "0", "{x}"},
		{"numactl", "--interleave=all", "{x}"},
		{"systemd-run", "--user", "--wait", "-p", "MemoryMax=1G", "{x}"},
		{"systemd-run", "--unit", "job", "{x}", "a"},
	}), "templates built")
	for _, argv := range [][]string{
		{"bwrap", "--ro-bind", "{src}", "/src", "--chdir", "/src", "cat", "--", "{file}"},
		{"bwrap", "--ro-bind", "/", "/", "cat", "--", "{file}"},
		{"prlimit", "--nofile=1024", "sort", "--", "{file}"},
		{"numactl", "-C", "{cpus}", "make", "-j4"},
		{"systemd-run", "--user", "--unit", "{name}", "sleep", "{n}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: a package runner runs the package its first operand names,
// fetching it: npx {tool}, uvx {tool}, pnpm dlx {tool}, npm exec, bunx,
// pipx run, uv tool run (and the package of -p/--package/--from/--with)
// let the model choose any package to download and run, as argv[0] may
// not; npx -c/--call runs a shell line. No runner is run here (they
// reach the network): each template is only built.
func TestAttackS31PackageRunnerRunsAPackageTheModelNames(t *testing.T) {
	assert.Empty(t, builtOf(t, [][]string{
		{"npx", "{tool}", "--version"},
		{"npx", "--yes", "{tool}"},
		{"npx", "-p", "{pkg}", "eslint", "."},
		{"npx", "--package={pkg}", "eslint", "."},
		{"npx", "-c", "eslint {file}"},
		{"npx", "--call=eslint {file}"},
		{"bunx", "{tool}"},
		{"pnpx", "{tool}"},
		{"pnpm", "dlx", "{tool}"},
		{"yarn", "dlx", "-p", "{pkg}", "tool"},
		{"npm", "exec", "--", "{tool}"},
		{"npm", "x", "{tool}"},
		{"bun", "x", "{tool}"},
		{"uvx", "{tool}", "check"},
		{"uvx", "--from", "{pkg}", "ruff"},
		{"uvx", "--with={pkg}", "ruff"},
		{"uv", "tool", "run", "{tool}"},
		{"pipx", "run", "{tool}"},
		{"timeout", "60", "npx", "{tool}"},
	}), "templates built")
	// Guard: the package fixed, the call's values its arguments, and a
	// value option's placeholder.
	for _, argv := range [][]string{
		{"npx", "--yes", "eslint", "--", "{file}"},
		{"npx", "-p", "typescript", "tsc", "{file}"},
		{"uvx", "--python", "{version}", "ruff", "check", "{file}"},
		{"pnpm", "dlx", "prettier", "--check", "{file}"},
		{"npm", "exec", "--", "eslint", "{file}"},
		{"pipx", "run", "black", "{file}"},
		{"npm", "test", "--", "{file}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: make's command-line variables get a charset (8ff40cc), which
// keeps a path: make SHELL={key} runs every recipe line with the program
// the value names, and make CC={key} prog runs the compiler it names
// ($(CC) in the recipe), so given ./evil.sh (a script in the workspace,
// written by another tool call) make ran it (real make, process engine).
// env SHELL={v} and env CC={v} were refused at construction already
// (codeVariable): make's own assignments now are too.
func TestAttackS31MakeVariableNamesTheProgram(t *testing.T) {
	real, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("CC ?= cc\nall:\n\t@echo built\nprog:\n\t@$(CC) --version\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755))
	built := buildAndRun(t, dir, [][]string{
		{real, "SHELL={key}", "all"},
		{real, "-s", "CC={key}", "prog"},
		{real, "--eval=CC={key}", "prog"},
		{real, ".SHELLFLAGS={key}", "all"},
		{real, "{key}=./evil.sh", "all"},
		{"timeout", "30", real, "MAKESHELL={key}", "all"},
	}, "./evil.sh")
	assert.Empty(t, built, "templates built")
	// Guard: other variables keep 8ff40cc's runtime charset.
	c, err := shell.NewCommand("ok", "ok", processEngine(t, dir), []string{real, "VERSION={key}", "all"})
	require.NoError(t, err)
	res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "1.2.3"})})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "built")
}

// Attack: the file find writes its list to (-fprint FILE, -fprint0,
// -fprintf FILE FORMAT, -fls) was no declared path argument, so a
// governance policy judged the starting point and not it: with
// forbidden_paths [secrets/**] and dir declared a path, find {dir} -name
// '*.txt' -fprint {out} given out secrets/list wrote secrets/list (real
// find, policy, executor, process engine). It is now declared, as the
// directory of tar -C {dir} is (e16083a, 91c11d8).
func TestAttackS31FindWritesItsListWhereThePolicyForbids(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "secrets"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("public-notes\n"), 0o600))
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"dir":{"type":"string","x-toolbelt-path":true},"out":{"type":"string"}},"required":["dir","out"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for name, argv := range map[string][]string{
		"fprint":  {"find", "{dir}", "-name", "*.txt", "-fprint", "{out}"},
		"fprint0": {"find", "{dir}", "-name", "*.txt", "-fprint0", "{out}"},
		"fprintf": {"find", "{dir}", "-name", "*.txt", "-fprintf", "{out}", "%p\n"},
		"fls":     {"timeout", "30", "find", "{dir}", "-name", "*.txt", "-fls", "{out}"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := shell.New(tool.Spec{Name: name, Description: "List files", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: argv})
			require.NoError(t, err)
			reg := registry.New()
			reg.MustRegister(c)
			ex := executor.MustNew(reg, executor.WithExtensions(p))
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: []byte(`{"dir":".","out":"secrets/list"}`)})
			_, statErr := os.Stat(filepath.Join(dir, "secrets", "list"))
			assert.True(t, os.IsNotExist(statErr), "find wrote secrets/list")
			_ = os.Remove(filepath.Join(dir, "secrets", "list"))
			if assert.NotNil(t, res.Error, "find wrote secrets/list") {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			}
			// Guard: a file the policy allows is still written.
			res, _ = ex.Execute(context.Background(), tool.Call{ID: "2", Name: name, Args: []byte(`{"dir":".","out":"list.out"}`)})
			assert.Nil(t, res.Error, "%v", res.Error)
			b, err := os.ReadFile(filepath.Join(dir, "list.out"))
			require.NoError(t, err)
			assert.Contains(t, string(b), "notes.txt")
			require.NoError(t, os.Remove(filepath.Join(dir, "list.out")))
		})
	}
	// Guard: a find primary's other values, and -fprint read by a program
	// that runs nothing (grep -- -fprint {out}), are not declared.
	for _, argv := range [][]string{
		{"find", "{dir}", "-name", "{out}"},
		{"grep", "-rn", "--", "-fprint", "{out}", "{dir}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"dir"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
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
