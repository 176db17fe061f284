package shell_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Legitimate templates and values that the argument checks must let
// through, next to the attacks they must still stop.

// A program run behind a wrapper (timeout, nice, env, sudo, xargs) has its
// own "--": the wrapper's grammar says where its command starts, and a
// "--" after that is the command's, which ends its options. The runners
// rule (b04052f) took every wrapper's first "--" for the wrapper's own, so
// timeout 30 grep -rn -- {pattern} . refused "-v" as a pattern, naming
// timeout as the program that would read it. A runner behind a wrapper
// (timeout 60 npm run lint -- {file}) and a wrapper's own "--" still count
// as before.
func TestArgsInnerProgramsDoubleDashBehindAWrapper(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"timeout", "30", "grep", "-rn", "--", "{x}", "."}, []string{"timeout", "30", "grep", "-rn", "--", "-v", "."}},
		{[]string{"timeout", "-s", "KILL", "30", "grep", "--", "{x}"}, []string{"timeout", "-s", "KILL", "30", "grep", "--", "-v"}},
		{[]string{"nice", "-n", "10", "grep", "-rn", "--", "{x}", "."}, []string{"nice", "-n", "10", "grep", "-rn", "--", "-v", "."}},
		{[]string{"env", "LC_ALL=C", "grep", "--", "{x}", "f"}, []string{"env", "LC_ALL=C", "grep", "--", "-v", "f"}},
		{[]string{"sudo", "-u", "app", "ls", "-l", "--", "{x}"}, []string{"sudo", "-u", "app", "ls", "-l", "--", "-v"}},
		{[]string{"xargs", "-0", "grep", "-l", "--", "{x}"}, []string{"xargs", "-0", "grep", "-l", "--", "-v"}},
		{[]string{"timeout", "5", "nice", "rg", "--", "{x}"}, []string{"timeout", "5", "nice", "rg", "--", "-v"}},
		{[]string{"timeout", "--", "5", "grep", "--", "{x}"}, []string{"timeout", "--", "5", "grep", "--", "-v"}},
		{[]string{"timeout", "60", "npm", "run", "lint", "--", "--", "{x}"}, []string{"timeout", "60", "npm", "run", "lint", "--", "--", "-v"}},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv)
		require.NoError(t, err, "%q", tc.argv)
		got, err := c.Argv(args(t, map[string]string{"x": "-v"}))
		assert.NoError(t, err, "%q refused the inner program's operand", tc.argv)
		assert.Equal(t, tc.want, got)
	}

	// Still refused: a value before the inner program's "--", after a
	// runner's own "--" behind a wrapper, or after a wrapper's own "--".
	for _, tc := range []struct {
		argv      []string
		prog, msg string
	}{
		{[]string{"timeout", "60", "npm", "run", "lint", "--", "{x}"}, "npm", `runs after its "--"`},
		{[]string{"timeout", "5", "--", "eslint", "{x}"}, "timeout", `runs after its "--"`},
		{[]string{"timeout", "--", "5", "eslint", "{x}"}, "timeout", `runs after its "--"`},
		{[]string{"timeout", "30", "grep", "{x}", "--", "f"}, "grep", "grep would read it as an option"},
		{[]string{"env", "-", "npm", "test", "--", "{x}"}, "npm", `runs after its "--"`},
		{[]string{"timeout", "--frobnicate", "30", "--", "grep", "{x}"}, "timeout", `runs after its "--"`},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv)
		require.NoError(t, err, "%q", tc.argv)
		_, err = c.Argv(args(t, map[string]string{"x": "--output-file=/tmp/x"}))
		require.Error(t, err, "%q", tc.argv)
		assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code)
		assert.Contains(t, err.Error(), tc.msg, "%q", tc.argv)
		assert.Contains(t, err.Error(), tc.prog, "%q", tc.argv)
	}
	// A wrapper's command that the template does not spell out (an
	// assignment a placeholder) is read as a runner: its first "--" ends
	// only its options. (A command that is itself a placeholder, timeout
	// 5 {cmd}, is refused at construction: TestAttackS31PlaceholderAsTheProgramAWrapperRuns.)
	for _, argv := range [][]string{
		{"env", "FOO={v}", "npm", "test", "--", "{x}"},
		{"env", "{assign}", "npm", "test", "--", "{x}"},
	} {
		c, err := shell.NewCommand("t", "d", sb, argv)
		require.NoError(t, err, "%q", argv)
		_, err = c.Argv(args(t, map[string]string{"x": "--output-file=/tmp/x", "v": "1", "assign": "A=1", "cmd": "npm"}))
		require.Error(t, err, "%q", argv)
		assert.Contains(t, err.Error(), `runs after its "--"`, "%q", argv)
	}
}

// A wrapper's long options may be abbreviated (getopt_long: env --split
// is env --split-string, flock --comm is flock --command), so a
// placeholder in an abbreviated command-string option is code as much as
// in the full spelling; b8cbe40 read only the full names and built those
// templates.
func TestArgsWrapperCommandOptionAbbreviated(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	for _, argv := range [][]string{
		{"env", "--split=rec {x}"},
		{"env", "--spl", "rec {x}"},
		{"flock", "lock", "--comm", "rec {x}"},
		{"flock", "lock", "--command=rec {x}"},
		{"su", "--sess", "id {x}", "user"},
		{"su", "--s=id {x}", "user"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		assert.Error(t, err, "%q was accepted", argv)
	}
	for _, ok := range [][]string{
		{"env", "--split", "{line}"},
		{"env", "--unset=X", "grep", "--", "{x}"},
		{"flock", "--timeout", "{secs}", "lock", "rec", "{x}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
}

// awk --sandbox is gawk's: the one-true-awk that is awk on macOS and the
// BSDs (nawk, original-awk on Linux) ignores an option it does not know
// ("unknown option --sandbox ignored") and runs the program with
// system() and redirections, so f20a60b's exemption of awk --sandbox '/{x}/'
// let a value run commands there. Only a program named gawk is exempt.
func TestArgsAwkSandboxIsGawksOnly(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	for _, argv := range [][]string{
		{"awk", "--sandbox", "/{x}/", "f"},
		{"awk", "-S", "/{x}/", "f"},
		{"nawk", "--sandbox", "/{x}/", "f"},
		{"mawk", "--sandbox", "/{x}/", "f"},
		{"/usr/bin/awk", "--sandbox", "-e", "/{x}/", "f"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		require.Error(t, err, "%q was accepted", argv)
		assert.Contains(t, err.Error(), "gawk --sandbox", "the error names the form that is safe")
	}
	for _, ok := range [][]string{
		{"gawk", "--sandbox", "/{x}/", "f"},
		{"/usr/bin/gawk", "-S", "-e", "/{x}/", "f"},
		{"sed", "--sandbox", "s/{a}/{b}/", "f"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
}

// find reads "!", "(", ")" and "," as operators where it expects a
// starting point or an expression, but the value of a primary that takes
// one (-name PATTERN, -newer FILE, -user NAME) is that value: find . -name
// '!' looks for files named "!". 171f03f refused those too, saying find
// would read the pattern "as part of its expression, not as a starting
// point". A starting point, and a primary eaten by a dropped value before
// it (-name {p} -newer {q} with p absent: -name takes -newer), are still
// refused.
func TestArgsFindPrimaryValuesMayBeOperatorWords(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	schema := json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"},"p":{"type":"string"},"q":{"type":"string"}}}`)
	for _, tc := range []struct {
		argv []string
		in   map[string]string
		want []string
	}{
		{[]string{"find", "{dir}", "-name", "{p}"}, map[string]string{"dir": "src", "p": "!"}, []string{"find", "src", "-name", "!"}},
		{[]string{"find", "{dir}", "-type", "f", "-newer", "{p}", "-print"}, map[string]string{"dir": "src", "p": "("}, []string{"find", "src", "-type", "f", "-newer", "(", "-print"}},
		{[]string{"find", "{dir}", "-iname", "{p}", "-o", "-path", "{q}"}, map[string]string{"dir": "src", "p": ")", "q": ","}, []string{"find", "src", "-iname", ")", "-o", "-path", ","}},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv, shell.WithInputSchema(schema))
		require.NoError(t, err, "%q", tc.argv)
		got, err := c.Argv(args(t, tc.in))
		assert.NoError(t, err, "%q %v", tc.argv, tc.in)
		assert.Equal(t, tc.want, got)
	}
	for _, tc := range []struct {
		argv []string
		in   map[string]string
	}{
		{[]string{"find", "{dir}", "-name", "{p}"}, map[string]string{"dir": "!", "p": "x"}},
		{[]string{"find", "{dir}", "-name", "{p}", "-newer", "{q}", "-delete"}, map[string]string{"dir": "src", "q": "!"}},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv, shell.WithInputSchema(schema))
		require.NoError(t, err, "%q", tc.argv)
		_, err = c.Argv(args(t, tc.in))
		require.Error(t, err, "%q %v", tc.argv, tc.in)
		assert.Contains(t, err.Error(), "expression")
	}
}

// sed and gawk read their options with getopt: short flags bundle, with
// the script attached (sed -ne's/a/b/p' is -n -e 's/a/b/p'), and long
// options abbreviate (sed --expr=..., gawk --sourc=...). f20a60b's code
// check read "-ne..." and "--expr=..." as some other option with its value
// attached, so a placeholder in that script built.
func TestArgsSedAwkScriptSpellings(t *testing.T) {
	dir := t.TempDir()
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"sed", "-ne", "s/{a}/{b}/p", "f"},
		{"sed", "-nes/{a}/{b}/p", "f"},
		{"sed", "-Ee", "s/{a}//", "f"},
		{"sed", "-nEes/{a}//", "f"},
		{"sed", "--expr=s/{a}/{b}/", "f"},
		{"sed", "--expr", "s/{a}/{b}/", "f"},
		{"sed", "-n", "--expre=s/{a}/{b}/p", "f"},
		{"gawk", "--sourc=/{x}/", "f"},
		{"gawk", "--so", "/{x}/", "f"},
		{"mawk", "-W", "interactive", "/{x}/", "f"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		assert.Error(t, err, "%q was accepted", argv)
	}
	for _, ok := range [][]string{
		{"sed", "-ne", "1,20p", "--", "{file}"},
		{"sed", "-i.bak", "-e", "s/a/b/", "{file}"},
		{"sed", "-ie", "s/a/b/", "{file}"},
		{"sed", "--expr=1p", "{file}"},
		{"sed", "-n", "-f", "script.sed", "{file}"},
		{"sed", "-nf", "script.sed", "{file}"},
		{"gawk", "--fil=prog.awk", "{file}"},
		{"gawk", "-v", "pat={x}", "$0 ~ pat", "{file}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
}

// An interpreter's flags bundle with its code attached: perl -ne'print if
// /{x}/' is perl -n -e with the code in the same word, as common as the
// spaced form. b04052f read an attached code flag only at the start of the
// word (-e..., --eval=...), so the bundled form built with a placeholder
// in the code.
func TestArgsInterpreterBundledAttachedCode(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	for _, argv := range [][]string{
		{"perl", "-ne", "print if /{x}/", "f"},
		{"perl", "-neprint if /{x}/", "f"},
		{"perl", "-lneprint if /{x}/", "f"},
		{"python3", "-Bcprint('{x}')"},
		{"ruby", "-ne", "puts $_ if /{x}/", "f"},
		{"ruby", "-neputs $_ if /{x}/", "f"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		assert.Error(t, err, "%q was accepted", argv)
	}
	for _, ok := range [][]string{
		{"perl", "-Mstrict", "script.pl", "{x}"},
		{"perl", "-I{dir}", "script.pl"},
		{"python3", "-W{w}", "script.py"},
		{"python3", "-m", "pytest", "-k", "{x}"},
		{"perl", "-ne", "print if /x/", "--", "{file}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
}

// A "--" that an option takes as its value because the option's own value
// was left out (git log --author {who} -- {path}, who absent) does not end
// the options, so a path starting with "-" is refused (b04052f). The
// refusal said only that git would read the path as an option, which the
// template's "--" seems to contradict; it now says why and what to give.
func TestArgsDroppedValueRefusalSaysWhy(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	schema := json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"},"path":{"type":"string"}},"required":["path"]}`)
	c, err := shell.NewCommand("log", "Show commits", sb, []string{"git", "log", "--author", "{who}", "--", "{path}"}, shell.WithInputSchema(schema))
	require.NoError(t, err)
	_, err = c.Argv(args(t, map[string]string{"path": "-notes.txt"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "starts with '-'")
	assert.Contains(t, err.Error(), `--author may take the "--" as its value`)
	assert.Contains(t, err.Error(), "who")
	got, err := c.Argv(args(t, map[string]string{"path": "-notes.txt", "who": "ann"}))
	require.NoError(t, err, "given who, the path is an operand")
	assert.Equal(t, []string{"git", "log", "--author", "ann", "--", "-notes.txt"}, got)
}

// The code check finds shells, interpreters and wrappers anywhere in the
// argv (behind timeout, docker run IMAGE, ...), so a word that only names
// one was read as that program running: rsync -e ssh names rsync's remote
// shell (the words after are rsync's), npm run watch, yarn watch and
// docker compose watch name a package script or a subcommand called
// watch. b8cbe40 read ssh and watch there as joining their words into a
// shell line and refused every template with more than one word after
// them, with no way to build it: rsync -az -e ssh {src} {host}:{dst}, the
// usual rsync tool. ssh and watch where they run a command are still
// refused.
func TestArgsWrapperNamedNotRun(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	for _, ok := range [][]string{
		{"rsync", "-az", "-e", "ssh", "{src}", "{host}:{dst}"},
		{"rsync", "-az", "--rsh", "ssh", "--", "{src}", "{host}:{dst}"},
		{"npm", "run", "watch", "--", "--port", "{port}"},
		{"pnpm", "run", "watch", "{a}", "{b}"},
		{"yarn", "watch", "{pkg}", "--verbose"},
		{"docker", "compose", "watch", "{service}", "{other}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
	for _, argv := range [][]string{
		{"ssh", "{host}", "cat", "--", "{path}"},
		{"rsync", "-az", "{src}", "{dst}", "&&", "ssh", "h", "ls", "{x}"},
		{"docker", "run", "--rm", "img", "ssh", "h", "cat", "{path}"},
		{"timeout", "5", "watch", "ls", "{dir}"},
		{"npm", "exec", "watch", "ls", "{dir}"},
		{"rsync", "-e", "ssh -p 22", "{src}", "h:{dst}", "&&", "watch", "ls", "{dir}"},
		{"yarn", "node", "-e", "console.log('{x}')"},
		{"npm", "run", "sh", "-c", "rec {x}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		assert.Error(t, err, "%q was accepted", argv)
	}
}

// make reads NAME=value as a variable only where it reads a target: the
// value of an option that takes one (make -C {dir}, -f {file}, -I, -o, -W)
// is a directory or a file name, which may hold "=" (Hive-style partition
// directories, date=2024-01-01). 97c64cb refused those too, saying make
// would read them as a variable. The target after them, and an option
// eaten by a dropped value before it, are still checked.
func TestArgsMakeOptionValuesMayHoldEquals(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	schema := json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"},"file":{"type":"string"},"target":{"type":"string"},"mk":{"type":"string"}}}`)
	for _, tc := range []struct {
		argv []string
		in   map[string]string
		want []string
	}{
		{[]string{"make", "-C", "{dir}", "{target}"}, map[string]string{"dir": "data/date=2024-01-01", "target": "build"},
			[]string{"make", "-C", "data/date=2024-01-01", "build"}},
		{[]string{"make", "--directory", "{dir}", "-f", "{file}", "--", "{target}"}, map[string]string{"dir": "a=b", "file": "x=y.mk", "target": "all"},
			[]string{"make", "--directory", "a=b", "-f", "x=y.mk", "--", "all"}},
		{[]string{"timeout", "600", "make", "-s", "-C", "{dir}"}, map[string]string{"dir": "k=v"},
			[]string{"timeout", "600", "make", "-s", "-C", "k=v"}},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv, shell.WithInputSchema(schema))
		require.NoError(t, err, "%q", tc.argv)
		got, err := c.Argv(args(t, tc.in))
		assert.NoError(t, err, "%q %v", tc.argv, tc.in)
		assert.Equal(t, tc.want, got)
	}
	for _, tc := range []struct {
		argv []string
		in   map[string]string
	}{
		{[]string{"make", "-C", "{dir}", "{target}"}, map[string]string{"dir": "d", "target": "CC=rec"}},
		// -f's value dropped: -f takes -C, and {dir} is read as a target.
		{[]string{"make", "-f", "{mk}", "-C", "{dir}"}, map[string]string{"dir": "CC=rec"}},
		{[]string{"make", "-j", "{n}"}, map[string]string{"n": "CC=rec"}},
		{[]string{"make", "--eval", "{n}"}, map[string]string{"n": "CC=rec"}},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv, shell.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"},"target":{"type":"string"},"mk":{"type":"string"},"n":{"type":"string"}}}`)))
		require.NoError(t, err, "%q", tc.argv)
		_, err = c.Argv(args(t, tc.in))
		require.Error(t, err, "%q %v", tc.argv, tc.in)
		assert.Contains(t, err.Error(), "variable definition")
	}
	_ = context.Background
}
