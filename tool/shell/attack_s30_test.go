package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// Attack: find does not end its expression's start at "--". GNU and BSD
// find take "--" as the end of their own few options (-H, -L, -P, -D,
// -O), then read starting points up to the first argument that starts
// with "-" (or is "!", "(", ")" or ","), which begins the expression. So
// a "list the files under a directory" tool written as the package doc
// says, with "--" before the operand, find -- {dir} -type f, given dir
// "-delete" ran find -- -delete -type f, which deleted every file under
// the working directory (real find, real files). The template's "--" made
// the value pass as an operand. A value that starts an argument after a
// find is now refused when it starts with "-", "--" or not, except as the
// value of a primary that takes one (find -- . -name {pattern}).
func TestAttackS30FindDoubleDashIsNoEndOfTheExpression(t *testing.T) {
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("find is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	for _, f := range []string{"keep.txt", "logs/a.log"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	sb := processEngine(t, dir)
	list, err := shell.NewCommand("list", "List the files under a directory", sb,
		[]string{"find", "--", "{dirs}", "-type", "f"},
		shell.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"dirs":{"type":"array","items":{"type":"string"}}},"required":["dirs"]}`)))
	require.NoError(t, err)
	for _, dirs := range [][]string{{"-delete"}, {"logs", "-delete"}, {"-fprint"}, {"-exec"}} {
		_, err := list.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"dirs": dirs})})
		if assert.Error(t, err, "%q ran", dirs) {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
			assert.Contains(t, err.Error(), "expression")
		}
		assert.FileExists(t, filepath.Join(dir, "keep.txt"), "%q deleted the workspace's files", dirs)
		assert.FileExists(t, filepath.Join(dir, "logs/a.log"), "%q deleted the workspace's files", dirs)
	}

	// Guard: directories run, "-delete" written as a file name is one, and
	// a primary's value after "--" may start with "-".
	res, err := list.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"dirs": []string{"logs", "./-delete"}})})
	require.Error(t, err, "./-delete does not exist")
	assert.Equal(t, tool.CodeNonZeroExit, tool.AsError(err).Code, "%v", err)
	assert.Contains(t, res.Text(), "logs/a.log")
	named, err := shell.NewCommand("named", "Find files by name", sb, []string{"find", "--", ".", "-name", "{pattern}"})
	require.NoError(t, err)
	_, err = named.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"pattern": "-x*"})})
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(dir, "keep.txt"))
	assert.FileExists(t, filepath.Join(dir, "logs/a.log"))
}

// Attack: a placeholder that is the directory a program changes to (tar
// -C {dir}, git -C, make -C, --directory={dir}, env --chdir) moves every
// relative path of the call, but a tool whose schema declares its path
// arguments ("x-toolbelt-path") and not that one left it to nobody: the
// governance policy judges only declared path arguments, so with
// forbidden_paths ["secrets/**"], dir "secrets" and file "key" (judged as
// ./key) printed secrets/key. Such a placeholder is now declared a path
// argument in the tool's schema when the schema declares others, so the
// policy judges it, and each relative path under it.
func TestAttackS30ChdirOptionValueIsAPathArgument(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "secrets"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("s3cr3t-key-material\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("public-notes\n"), 0o600))
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"dir":{"type":"string","description":"where"},"file":{"type":"string","x-toolbelt-path":true}},"required":["dir","file"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for name, argv := range map[string][]string{
		"tar_c":     {"tar", "-C", "{dir}", "-cf", "-", "--", "{file}"},
		"tar_dir":   {"tar", "--directory={dir}", "-cf", "-", "--", "{file}"},
		"tar_dir2":  {"tar", "--directory", "{dir}", "-cf", "-", "--", "{file}"},
		"env_chdir": {"env", "--chdir={dir}", "cat", "--", "{file}"},
		"env_c":     {"timeout", "30", "env", "-C", "{dir}", "cat", "--", "{file}"},
	} {
		t.Run(name, func(t *testing.T) {
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

	// git -C and make -C are declared too; the schema keeps what it said.
	for _, argv := range [][]string{{"git", "-C", "{dir}", "log", "--", "{file}"}, {"make", "-C{dir}", "-f", "{file}"}} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"dir", "file"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
		assert.Contains(t, string(c.Spec().InputSchema), `"description":"where"`)
	}
	// A schema that declares no path argument is left to the policy's
	// guesses from names (DefaultPathFields), which declaring one would
	// turn off; and grep -C takes a number of lines, not a directory.
	for _, argv := range [][]string{{"tar", "-C", "{dir}", "-cf", "-", "--", "{file}"}, {"grep", "-C", "{dir}", "--", "x", "{file}"}} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: []byte(`{"type":"object","properties":{"dir":{"type":"string"},"file":{"type":"string"}}}`)}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Empty(t, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
	c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: []string{"grep", "-C", "{dir}", "--", "x", "{file}"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"file"}, sandbox.PathArguments(c.Spec().InputSchema), "grep -C is no directory")
}

// Attack: a tool file's output_budget replaced the operator's
// WithOutputBudget, however large, so a file saying 1 GiB put the whole
// capture (up to the sandbox's output cap, per stream) into the text the
// model reads, where the operator had asked for 1 KiB: seq 1 100000 put
// 588,895 bytes in. A tool file may now lower the budget, not raise it,
// as for its limits (TestAttackS17ToolFileLimitsKeepTheOperatorsOthers);
// a Go Config, the operator's own, still sets it.
func TestAttackS30ToolFileOutputBudgetOverTheOperators(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	spec := tool.Spec{Name: "count", Description: "Count", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	kind := shell.Kind(shell.WithSandbox(sb), shell.WithOutputBudget(1024))
	tl, err := kind(spec, json.RawMessage(`{"argv":["seq","1","100000"],"output_budget":1073741824}`))
	if err == nil {
		res, _ := tl.Run(context.Background(), tool.Call{Name: "count", Args: json.RawMessage(`{}`)})
		assert.Less(t, len(res.Text()), 2048, "the model read %d bytes", len(res.Text()))
	} else {
		assert.Contains(t, err.Error(), "output_budget")
		assert.Contains(t, err.Error(), "WithOutputBudget")
	}
	require.Error(t, err, "a tool file raised the operator's output budget")
	var ce *tool.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "output_budget", ce.Field)

	// Guard: a file lowers it; the default budget bounds a file too; a
	// Go Config sets it.
	tl, err = kind(spec, json.RawMessage(`{"argv":["seq","1","100000"],"output_budget":100}`))
	require.NoError(t, err)
	res, _ := tl.Run(context.Background(), tool.Call{Name: "count", Args: json.RawMessage(`{}`)})
	assert.Less(t, len(res.Text()), 300)
	_, err = shell.Kind(shell.WithSandbox(sb))(spec, json.RawMessage(`{"argv":["seq","1","100000"],"output_budget":1073741824}`))
	require.Error(t, err, "over the default budget")
	c, err := shell.New(spec, sb, shell.Config{Argv: []string{"seq", "1", "100000"}, OutputBudget: 1 << 20}, shell.WithOutputBudget(1024))
	require.NoError(t, err)
	res, err = c.Run(context.Background(), tool.Call{Name: "count", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Greater(t, len(res.Text()), 500000)
}

// Attack: a make variable set from the command line (make release
// VERSION={version}) is expanded by make and spliced into the recipes'
// shell lines, so its value is code twice over: "1.0; touch pwned1"
// ran touch from the recipe's echo $(VERSION), "$(shell touch pwned2)"
// ran in make itself, and "`touch pwned3`" in the shell (real make, real
// files). A value filling NAME={x} after a make may now hold only letters,
// digits, non-ASCII and - _ . , : / + @ % =; AllowOptionValues, which
// lets a whole NAME=value through, does not lift it.
func TestAttackS30MakeVariableValueIsRecipeCode(t *testing.T) {
	real, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("VERSION ?= dev\nrelease:\n\t@echo releasing $(VERSION)\n"), 0o644))
	sb := processEngine(t, dir)
	for _, allow := range []bool{false, true} {
		var opts []shell.Option
		if allow {
			opts = append(opts, shell.AllowOptionValues())
		}
		c, err := shell.NewCommand("release", "Release a version", sb, []string{real, "release", "VERSION={version}"}, opts...)
		require.NoError(t, err)
		for i, v := range []string{"1.0; touch pwned1", "$(shell touch pwned2)", "`touch pwned3`", "1.0 && touch pwned4", "$$(touch pwned5)", "1.0\ntouch pwned6"} {
			_, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"version": v})})
			if assert.Error(t, err, "%q ran (allow %v)", v, allow) {
				assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
				assert.Contains(t, err.Error(), "recipe")
			}
			assert.NoFileExists(t, filepath.Join(dir, "pwned"+strconv.Itoa(i+1)), "%q ran a command (allow %v)", v, allow)
		}
		// Guard: a version runs.
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"version": "1.2.3-rc.1+build:7"})})
		require.NoError(t, err)
		assert.Contains(t, res.Text(), "releasing 1.2.3-rc.1+build:7")
	}
}

// Attack: the "--" of a program that runs another was taken for the end
// of options unless the program was a classifier wrapper or a listed
// runner (npm run, timeout), so setpriv --nnp -- sort {file} and prlimit
// --nofile=1024 -- sort {file} given "--output=victim.txt" ran sort with
// that option, which emptied victim.txt (real setpriv, prlimit and sort);
// perf stat --, bwrap ... --, systemd-run --, ip netns exec NS --,
// fakeroot -- and others alike. A "--" followed by a program the command
// classifier knows now ends only the options of the program before it, as
// a runner's does: the program after it reads options again.
func TestAttackS30DoubleDashBeforeAProgramIsTheRunnersOwn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	require.NoError(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
	sb := processEngine(t, dir)
	var ran int
	for _, argv := range [][]string{
		{"setpriv", "--nnp", "--", "sort", "{file}"},
		{"prlimit", "--nofile=1024", "--", "sort", "{file}"},
		{"prlimit", "--nofile=1024", "--", "timeout", "30", "sort", "{file}"},
	} {
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Logf("%s is not installed", argv[0])
			continue
		}
		ran++
		require.NoError(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
		c, err := shell.NewCommand("sorted", "Sort a file", sb, argv)
		require.NoError(t, err)
		_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"file": "--output=victim.txt"})})
		if assert.Error(t, err, "%q ran", argv) {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
			assert.Contains(t, err.Error(), `runs after its "--" would read it as an option`)
		}
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "precious\n", string(b), "%q emptied the file", argv)

		// Guard: the program's own "--" after it makes the value an operand.
		c, err = shell.NewCommand("sorted", "Sort a file", sb, append(argv[:len(argv)-1:len(argv)-1], "--", "{file}"))
		require.NoError(t, err)
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"file": "victim.txt"})})
		require.NoError(t, err)
		assert.Equal(t, "precious\n", res.Text())
	}
	if ran == 0 {
		t.Skip("neither setpriv nor prlimit is installed")
	}
	// A "--" followed by an operand is still the end of options.
	// So is one followed by "." or by find's starting points.
	for _, argv := range [][]string{{"cat", "--", "victim.txt", "{file}"}, {"cat", "--", ".", "{file}"}, {"find", "--", "test", "-name", "{file}"}} {
		c, err := shell.NewCommand("show", "Show files", sb, argv)
		require.NoError(t, err)
		_, err = c.Argv(args(t, map[string]any{"file": "-n"}))
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: git runs some configuration values as shell commands
// (core.sshCommand, core.pager, core.editor, credential.helper, alias.X
// with "!", diff.external, filter drivers, ...), so a placeholder in such
// a value given with git -c is spliced into a shell line, as in sh -c
// 'ssh -i {key}': git -c "core.sshCommand=ssh -i {key}" ls-remote
// ssh://127.0.0.1:1/x given key "/dev/null; touch pwned; false #" ran
// touch (real git, real sh; ssh is never reached). A placeholder in the
// value of such a key, or in a key (-c {k}=v, where the model chooses
// the key), is now refused at construction, as code spliced into sh -c
// is; a whole -c argument ("{config}") is the author handing it over.
func TestAttackS30GitConfigValueIsShellCode(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{gitPath, "-c", "core.sshCommand=ssh -i {key}", "ls-remote", "ssh://127.0.0.1:1/x"},
		{gitPath, "-c", "core.sshcommand=ssh -i {key}", "ls-remote", "ssh://127.0.0.1:1/x"},
		{"timeout", "30", gitPath, "-c", "core.sshCommand=ssh -i {key}", "ls-remote", "ssh://127.0.0.1:1/x"},
		{gitPath, "-c", "{key}=x", "ls-remote", "ssh://127.0.0.1:1/x"},
		{gitPath, "clone", "--config", "core.sshCommand=ssh -i {key}", "ssh://127.0.0.1:1/x"},
		{gitPath, "clone", "--config=core.sshCommand=ssh -i {key}", "ssh://127.0.0.1:1/x"},
		{gitPath, "-c", "alias.x=!echo {key}", "x"},
		{gitPath, "-c", "credential.helper=!f() {{ echo {key}; }}; f", "ls-remote", "https://127.0.0.1:1/x"},
		{gitPath, "-c", "filter.lfs.smudge=cat {key}", "status"},
	} {
		c, err := shell.NewCommand("fetch", "List a remote's refs", sb, argv)
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "/dev/null; touch pwned; false #"})})
		}
		if assert.Error(t, err, "%q was built", argv) {
			var ce *tool.ConfigError
			assert.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), "git runs")
		}
		assert.NoFileExists(t, filepath.Join(dir, "pwned"), "%q ran touch", argv)
	}

	// Guard: values git does not run stay, and so does a whole -c.
	for _, argv := range [][]string{
		{gitPath, "-c", "user.name={key}", "-c", "user.email=a@b", "var", "GIT_AUTHOR_IDENT"},
		{gitPath, "-c", "{key}", "var", "GIT_AUTHOR_IDENT"},
		{gitPath, "log", "-c", "--", "{key}"},
	} {
		_, err := shell.NewCommand("who", "Who", sb, argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: env NAME={v} CMD sets a variable that the command runs as a
// shell command or loads as code (GIT_SSH_COMMAND, GIT_PAGER, EDITOR,
// BASH_ENV, LD_PRELOAD, NODE_OPTIONS, ...): env "GIT_SSH_COMMAND=ssh -i
// {key}" git ls-remote ssh://127.0.0.1:1/x given key "/dev/null; touch
// pwned; false #" ran touch (real env, git and sh). A placeholder in such
// a variable's value, or in a variable's name (env {name}=v, where the
// model chooses it), is now refused at construction; NODE_ENV={env} and
// a whole "{assignment}" stay.
func TestAttackS30EnvVariableValueIsShellCode(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"env", "GIT_SSH_COMMAND=ssh -i {key}", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"},
		{"env", "-u", "X", "GIT_SSH_COMMAND=ssh -i {key}", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"},
		{"timeout", "30", "env", "GIT_SSH_COMMAND=ssh -i {key}", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"},
		{"env", "{key}=x", gitPath, "ls-remote", "ssh://127.0.0.1:1/x"},
		{"env", "BASH_ENV={key}", "bash", "-c", "true"},
		{"env", "LD_PRELOAD={key}", "true"},
		{"env", "NODE_OPTIONS=--require {key}", "node", "x.js"},
	} {
		c, err := shell.NewCommand("fetch", "List a remote's refs", sb, argv)
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "/dev/null; touch pwned; false #"})})
		}
		if assert.Error(t, err, "%q was built", argv) {
			var ce *tool.ConfigError
			assert.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), "env")
		}
		assert.NoFileExists(t, filepath.Join(dir, "pwned"), "%q ran touch", argv)
	}
	for _, argv := range [][]string{
		{"env", "NODE_ENV={key}", "true"},
		{"env", "{key}", "true"},
		{"env", "A=1", "grep", "--", "B={key}", "f"},
	} {
		_, err := shell.NewCommand("ok", "ok", sb, argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: GNU tar runs the values of some options with a shell
// (--to-command, --checkpoint-action=exec=, --use-compress-program/-I,
// --rsh-command, --info-script/-F, --new-volume-script), so a "count the
// matches in each file of an archive" tool, tar -xf a.tar
// "--to-command=grep -c {pattern}", given "x; touch pwned #" ran touch
// (real tar and sh). A placeholder spliced into such a value is now
// refused at construction, as code spliced into sh -c is.
func TestAttackS30TarCommandOptionIsShellCode(t *testing.T) {
	tarPath, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("tar is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644))
	require.NoError(t, exec.Command(tarPath, "-C", dir, "-cf", filepath.Join(dir, "a.tar"), "a.txt").Run())
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{tarPath, "-xf", "a.tar", "--to-command=grep -c {pattern}"},
		{tarPath, "-xf", "a.tar", "--to-command", "grep -c {pattern}"},
		{tarPath, "-xf", "a.tar", "--checkpoint=1", "--checkpoint-action=exec=echo {pattern}"},
		{tarPath, "-I", "gzip -{pattern}", "-cf", "b.tgz", "a.txt"},
		{tarPath, "--use-compress-program=gzip -{pattern}", "-cf", "b.tgz", "a.txt"},
		{"timeout", "30", tarPath, "-xf", "a.tar", "--to-command=grep -c {pattern}"},
	} {
		c, err := shell.NewCommand("count", "Count matches in an archive", sb, argv)
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"pattern": "x; touch pwned #"})})
		}
		if assert.Error(t, err, "%q was built", argv) {
			assert.Contains(t, err.Error(), "tar runs")
		}
		assert.NoFileExists(t, filepath.Join(dir, "pwned"), "%q ran touch", argv)
	}
	for _, argv := range [][]string{
		{tarPath, "-xf", "{archive}", "--to-command=grep -c x"},
		{tarPath, "-I", "{program}", "-xf", "a.tar"},
		{tarPath, "-C", "{dir}", "-cf", "-", "--", "{file}"},
	} {
		_, err := shell.NewCommand("ok", "ok", sb, argv)
		assert.NoError(t, err, "%q", argv)
	}
}
