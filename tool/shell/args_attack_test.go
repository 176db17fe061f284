package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Attacks of the model's arguments turning into something else than the
// value the tool's author meant. Every program that runs is a stand-in
// (standIn): rec records its argv; sh and bash are the real shells, so
// that a template's own script runs, with only the stand-ins on PATH.

// standIn is a world of harmless programs: a bin directory holding rec
// (which appends its argv, NUL-separated, one run a line, to a log), sh
// and bash, and a temporary HOME.
type standIn struct {
	bin, home, log string
}

func newStandIn(t *testing.T) *standIn {
	t.Helper()
	s := &standIn{bin: t.TempDir(), home: t.TempDir()}
	s.log = filepath.Join(t.TempDir(), "rec.log")
	rec := "#!/bin/sh\n{ printf 'rec'; for a in \"$@\"; do printf '\\0%s' \"$a\"; done; printf '\\n'; } >> '" + s.log + "'\n"
	require.NoError(t, os.WriteFile(filepath.Join(s.bin, "rec"), []byte(rec), 0o755))
	for _, name := range []string{"npm", "timeout", "find"} { // stand-ins that record, named as the programs
		require.NoError(t, os.Symlink("rec", filepath.Join(s.bin, name)))
	}
	for _, sh := range []string{"sh", "bash"} {
		real, err := filepath.EvalSymlinks("/bin/" + sh)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(real, filepath.Join(s.bin, sh)))
	}
	return s
}

// withMake adds the real make to the stand-ins, or skips the test.
func (s *standIn) withMake(t *testing.T) {
	t.Helper()
	real, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	require.NoError(t, os.Symlink(real, filepath.Join(s.bin, "make")))
}

// env is the environment a tool runs with: only the stand-in programs.
func (s *standIn) env() shell.Option { return shell.WithEnv("PATH="+s.bin, "HOME="+s.home) }

// runs returns the argv of each run of rec, in order.
func (s *standIn) runs(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(s.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, strings.Split(line, "\x00")[1:])
	}
	return out
}

// Attack: a placeholder inside the script of "sh -c" (or an interpreter's
// -c/-e code) is spliced into code, so "x; rec injected" ran a second
// command, in a Go-defined tool and in a tool file alike (the file's
// template parser refuses ; | $(...) in the template, but not inside a
// quoted script). The package promised that no value can run a second
// command. Such a template is now refused at construction, naming the
// safe form: the value as a positional parameter ("$1"), which a guard
// below runs with the same hostile value, literally. A whole-argument
// script ("{script}") is the author handing the model a shell, and stays.
func TestArgsAttackValueSplicedIntoAShellScript(t *testing.T) {
	s := newStandIn(t)
	sb := processEngine(t, t.TempDir())
	hostile := map[string]string{"pattern": "x; rec injected"}
	spliced := []string{"sh", "-c", "rec found {pattern}"}

	c, err := shell.NewCommand("find_note", "Search the notes", sb, spliced, s.env())
	if err == nil {
		_, _ = c.Run(context.Background(), tool.Call{Args: args(t, hostile)})
	}
	require.Error(t, err, "a placeholder spliced into a sh -c script was accepted; the run was %q", s.runs(t))
	assert.Contains(t, err.Error(), "argv.2")
	assert.Contains(t, err.Error(), `"$1"`, "the error names the safe form")

	const file = `tools:
  - name: find_note
    description: Search the notes
    type: shell
    implementation:
      command: sh -c 'rec found {pattern}'
`
	ld := &loader.Loader{Kinds: map[string]loader.KindFunc{"shell": shell.Kind(shell.WithSandbox(sb), s.env())}}
	reg := registry.New()
	err = ld.Load(reg, strings.NewReader(file), "tools.yaml")
	if err == nil {
		ft, _ := reg.Get("find_note")
		_, _ = ft.Run(context.Background(), tool.Call{Args: args(t, hostile)})
	}
	require.Error(t, err, "a tool file's placeholder inside a sh -c script was accepted; the run was %q", s.runs(t))
	assert.Contains(t, err.Error(), "command.2")

	// Interpreters' inline code, a shell behind a wrapper and bundled
	// flags are the same splice.
	for _, argv := range [][]string{
		{"python3", "-c", "print('{pattern}')"},
		{"perl", "-e", "print '{pattern}'"},
		{"node", "--eval", "console.log('{pattern}')"},
		{"node", "--eval=console.log('{pattern}')"},
		{"python3", "-cprint('{pattern}')"},
		{"timeout", "5", "/bin/bash", "-o", "pipefail", "-ec", "rec {pattern} | rec"},
		{"bash", "-c", "--", "rec {pattern}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv, s.env())
		assert.Error(t, err, "%q was accepted", argv)
	}
	assert.Empty(t, s.runs(t), "nothing ran")

	// Guard: the safe form and a whole script stay, and run as written.
	safe, err := shell.NewCommand("find_note", "Search the notes", sb,
		[]string{"sh", "-c", `rec found "$1"`, "sh", "{pattern}"}, s.env())
	require.NoError(t, err)
	_, err = safe.Run(context.Background(), tool.Call{Args: args(t, hostile)})
	require.NoError(t, err)
	for _, ok := range [][]string{
		{"sh", "-c", "{script}"},
		{"python3", "script.py", "--", "{pattern}"},
		{"bash", "run.sh", "{pattern}"},
		{"grep", "-c", "--", "{pattern}", "notes.txt"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
	assert.Equal(t, [][]string{{"found", "x; rec injected"}}, s.runs(t))
}

// Attack: a value spliced into an awk program or a sed script is code of
// that language, which runs commands: awk '/{pattern}/' given
// `x/ { system("rec injected") } /x` and sed 's/{from}/{to}/' given a
// "to" that ends the s command with the e flag ran rec injected (real awk
// and GNU sed, with the stand-ins on PATH). The classifier judges those
// lines Dangerous, which runs without an approval extension. Such a
// template is refused at construction unless the program runs sandboxed
// (--sandbox: GNU sed and gawk refuse e, w, r, system() and redirections
// there), naming awk -v as the safe form.
func TestArgsAttackValueSplicedIntoAwkOrSed(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x\n"), 0o644))
	s := newStandIn(t)
	for _, p := range []string{"awk", "sed"} {
		real, err := exec.LookPath(p)
		if err != nil {
			t.Skipf("%s is not installed", p)
		}
		require.NoError(t, os.Symlink(real, filepath.Join(s.bin, p)))
	}
	sb := processEngine(t, dir)
	for _, tc := range []struct {
		argv []string
		in   map[string]string
	}{
		{[]string{"awk", "/{pattern}/", "notes.txt"}, map[string]string{"pattern": `x/ { system("rec injected") } /x`}},
		{[]string{"sed", "-n", "s/{from}/{to}/p", "notes.txt"}, map[string]string{"from": ".*", "to": "rec injected/e;#"}},
		{[]string{"sed", "-n", "-e", "s/{from}/{to}/p", "notes.txt"}, map[string]string{"from": ".*", "to": "rec injected/e;#"}},
		{[]string{"sed", "--expression=s/{from}/{to}/", "notes.txt"}, map[string]string{"from": ".*", "to": "rec injected/e;#"}},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv, s.env())
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, tc.in)})
		}
		require.Error(t, err, "%q was accepted; the runs were %q", tc.argv, s.runs(t))
		assert.Contains(t, err.Error(), "--sandbox")
	}
	for _, argv := range [][]string{
		{"gawk", "-F", ":", "{prog}x", "f"},
		{"awk", "-f", "lib.awk", "-e", "{x};", "f"},
		{"sed", "-i", "/{x}/d", "f"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		assert.Error(t, err, "%q was accepted", argv)
	}
	assert.Empty(t, s.runs(t), "nothing ran")

	// Guards: the safe forms build; sandboxed, GNU sed refuses the
	// command a value adds, and runs nothing.
	for _, ok := range [][]string{
		{"awk", "-v", "pat={pattern}", "$0 ~ pat", "notes.txt"},
		{"awk", "-f", "prog.awk", "{file}"},
		{"awk", "{{print}}", "{file}"},
		{"sed", "-n", "-f", "script.sed", "{file}"},
		{"sed", "-e", "s/a/b/", "--", "{file}"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
	c, err := shell.NewCommand("t", "d", sb, []string{"sed", "--sandbox", "-n", "s/{from}/{to}/p", "notes.txt"}, s.env())
	require.NoError(t, err)
	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"from": ".*", "to": "rec injected/e;#"})})
	require.Error(t, err, "GNU sed --sandbox ran the e flag")
	assert.Empty(t, s.runs(t), "nothing ran")
}

// Attack: wrappers that take a command line as a string run it with a
// shell or split it themselves: flock FILE -c 'rec {x}' (su -c, script
// -c alike) ran "x; rec injected" as a second command, and env -S 'rec
// {x}' split the value "a b" into two arguments (real flock and env, the
// stand-ins on PATH). ssh, watch and entr join their command words into
// one shell line, so there even a whole-argument value is code: ssh host
// cat -- {path} runs the path on the remote shell. The classifier's
// wrapper rules say which options take a command string (string_flags,
// split_flags) and which wrappers join (join); a placeholder in such code
// is refused at construction, as for sh -c, unless it is the whole of it.
func TestArgsAttackWrapperRunsAValueAsAShellLine(t *testing.T) {
	dir := t.TempDir()
	s := newStandIn(t)
	for _, p := range []string{"flock", "env"} {
		real, err := exec.LookPath(p)
		if err != nil {
			t.Skipf("%s is not installed", p)
		}
		require.NoError(t, os.Symlink(real, filepath.Join(s.bin, p)))
	}
	sb := processEngine(t, dir)
	for _, tc := range []struct {
		argv []string
		in   string
	}{
		{[]string{"flock", "lock", "-c", "rec {x}"}, "x; rec injected"},
		{[]string{"flock", "-w", "5", "lock", "-c", "rec {x}"}, "x; rec injected"},
		{[]string{"env", "-S", "rec {x}"}, "a b"},
	} {
		c, err := shell.NewCommand("t", "d", sb, tc.argv, s.env())
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"x": tc.in})})
		}
		require.Error(t, err, "%q was accepted; the runs were %q", tc.argv, s.runs(t))
	}
	for _, argv := range [][]string{
		{"ssh", "host", "cat", "--", "{path}"},
		{"ssh", "-p", "22", "host", "{cmd}", "x"},
		{"watch", "-n", "1", "ls", "{dir}"},
		{"su", "-c", "id {x}", "user"},
		{"script", "-q", "-c", "rec {x}", "/dev/null"},
	} {
		_, err := shell.NewCommand("t", "d", sb, argv)
		assert.Error(t, err, "%q was accepted", argv)
	}
	assert.Empty(t, s.runs(t), "nothing ran")
	_, err := shell.NewCommand("t", "d", sb, []string{"ssh", "host", "sh", "-c", "rec {x}"})
	require.Error(t, err)
	assert.Equal(t, 1, strings.Count(err.Error(), "argv.4"), "one argument, one error: %v", err)

	// Guards: a wrapper's own values, and a command handed whole, build.
	for _, ok := range [][]string{
		{"ssh", "-p", "{port}", "{host}", "uptime"},
		{"ssh", "host", "{cmd}"},
		{"flock", "{lockfile}", "rec", "{x}"},
		{"flock", "lock", "-c", "{script}"},
		{"env", "-S", "{line}"},
		{"watch", "-n", "{secs}", "date"},
	} {
		_, err := shell.NewCommand("t", "d", sb, ok)
		assert.NoError(t, err, "%q was refused", ok)
	}
}

// Templates that end where a program expects its code (awk -e, sed -e,
// sh -c, flock -c) build or are refused; none panics. awk -e and sed -e
// as the last argument indexed past the argv.
func TestArgsCodeFlagsAtTheEndOfTheTemplate(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	for _, argv := range [][]string{
		{"awk", "-e"}, {"awk", "--source"}, {"awk", "-f"}, {"awk", "--"}, {"sed", "-e"}, {"sed", "-ne"}, {"sed", "--"},
		{"sed", "-f"}, {"sh", "-c"}, {"sh", "-c", "--"}, {"bash", "-o"}, {"python3", "-c"}, {"perl", "-ne"},
		{"flock", "-c"}, {"flock", "f", "-c"}, {"ssh"}, {"ssh", "-p"}, {"env", "-S"}, {"su", "-c"}, {"find"}, {"make"},
		{"awk", "-v{x}", "{y}"}, {"sed", "-e{x}"}, {"flock", "-c{x}"}, {"ssh", "--", "{h}"}, {"x", ""}, {"sh", "", "{x}"},
	} {
		assert.NotPanics(t, func() { _, _ = shell.NewCommand("t", "d", sb, argv) }, "%q", argv)
	}
}

// FuzzArgvTemplate builds tools from hostile templates (a tool file) and
// expands them with hostile values: nothing panics, and a value that is
// refused is refused with invalid_arguments.
func FuzzArgvTemplate(f *testing.F) {
	for _, s := range [][4]string{
		{"awk", "-e", "{x}", `{"x":"a"}`}, {"sed", "-ne", "", `{}`}, {"flock", "-c", "{x}", `{"x":null}`},
		{"ssh", "--", "{x}", `{"x":["a"]}`}, {"npm", "--", "{x}", `{"x":"-a"}`}, {"make", "{x}", "--", `{"x":"A=b"}`},
		{"find", "{x}", "-delete", `{"x":"!"}`}, {"rec", "-n", "{x}", `{"x":1e400}`}, {"sh", "-c", "{x} {y}", `{"x":"a"}`},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	sb := processEngine(f, f.TempDir())
	f.Fuzz(func(t *testing.T, a, b, c, in string) {
		cmd, err := shell.NewCommand("t", "d", sb, []string{a, b, c})
		if err != nil {
			return
		}
		if _, err := cmd.Argv(json.RawMessage(in)); err != nil {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		}
		_ = cmd.Assess(json.RawMessage(in))
	})
}

// Attack: an optional placeholder that is an option's value, written as
// "--author", "{who}" (which the doc warns against), was dropped when
// absent, so "--author" took the template's "--" as its value and the
// next value reached the program as an option, unchecked, because it
// came after a "--" in the template: git log --author -- --output=FILE
// writes FILE. A "--" that follows a dropped option value no longer
// counts as the end of the options.
func TestArgsAttackDroppedValueEatsTheDoubleDash(t *testing.T) {
	s := newStandIn(t)
	sb := processEngine(t, t.TempDir())
	schema := json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"},"paths":{"type":"array","items":{"type":"string"}},"path":{"type":"string"}},"required":["path"]}`)
	c, err := shell.NewCommand("log", "Show commits", sb,
		[]string{"rec", "log", "--author", "{who}", "-e", "{paths}", "--", "{path}"}, s.env(), shell.WithInputSchema(schema))
	require.NoError(t, err)

	for _, in := range []map[string]any{
		{"path": "--output=/tmp/x", "who": "me", "paths": []string{}},
		{"path": "--output=/tmp/x", "who": nil},
	} {
		_, err := c.Run(context.Background(), tool.Call{Args: args(t, in)})
		require.Error(t, err, "%v: ran as %q", in, s.runs(t))
		assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		assert.Contains(t, err.Error(), "starts with '-'")
	}
	assert.Empty(t, s.runs(t), "nothing ran")

	// Guard: with the values there, "--" ends the options as before.
	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"who": "me", "paths": []string{"a"}, "path": "-x"})})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"log", "--author", "me", "-e", "a", "--", "-x"}}, s.runs(t))
}

// Attack: a "--" that ends a runner's options ("npm run lint -- {file}",
// the usual way to hand a script its arguments, or timeout 5 -- ...)
// hands the values after it to another program that reads options again
// (eslint --output-file=FILE, pytest -p PLUGIN, libtest --logfile FILE),
// but the template took it for the end of options and let
// "--output-file=..." through unchecked. A runner's first "--" now ends
// only its own options; a second one ends the program's.
func TestArgsAttackRunnersDoubleDashIsNotTheProgramsOwn(t *testing.T) {
	s := newStandIn(t)
	sb := processEngine(t, t.TempDir())
	hostile := map[string]string{"file": "--output-file=/tmp/x"}
	for _, argv := range [][]string{
		{"npm", "run", "lint", "--", "{file}"},
		{"timeout", "5", "--", "eslint", "{file}"},
		{filepath.Join(s.bin, "npm"), "test", "--", "{file}"},
	} {
		c, err := shell.NewCommand("lint", "Lint a file", sb, argv, s.env())
		require.NoError(t, err)
		_, err = c.Run(context.Background(), tool.Call{Args: args(t, hostile)})
		require.Error(t, err, "%q: ran as %q", argv, s.runs(t))
		assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		assert.Contains(t, err.Error(), `runs after its "--" would read it as an option`)
	}
	assert.Empty(t, s.runs(t), "nothing ran")

	// Guard: the program's own "--", after the runner's, makes the value
	// an operand, as for a program run directly.
	c, err := shell.NewCommand("lint", "Lint a file", sb, []string{"npm", "run", "lint", "--", "--", "{file}"}, s.env())
	require.NoError(t, err)
	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"file": "-x.js"})})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"run", "lint", "--", "--", "-x.js"}}, s.runs(t))
}

// Attack: make reads an argument holding "=" as a variable definition,
// before or after "--", and a command-line variable overrides the
// Makefile's: "make {target}" given "TOOL=rec injected" ran the recipe
// "$(TOOL) built" as rec injected built (CC=, GO=, SHELL= alike), a
// program the model chose. A value with "=" filling a placeholder that
// starts a make argument is refused like an option (AllowOptionValues
// lets it through).
func TestArgsAttackMakeTargetDefinesAVariable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("TOOL = rec\nbuild:\n\t$(TOOL) built\n"), 0o644))
	s := newStandIn(t)
	s.withMake(t)
	sb := processEngine(t, dir)
	for _, argv := range [][]string{{"make", "{target}"}, {"make", "--", "{target}"}, {"make", "-s", "--", "{target}"}} {
		c, err := shell.NewCommand("make_target", "Build a make target", sb, argv, s.env())
		require.NoError(t, err)
		_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"target": "TOOL=rec injected"})})
		require.Error(t, err, "%q: ran as %q", argv, s.runs(t))
		assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		assert.Contains(t, err.Error(), "variable")
	}
	assert.Empty(t, s.runs(t), "nothing ran")

	// Guard: a target runs its recipe as the Makefile says.
	c, err := shell.NewCommand("make_target", "Build a make target", sb, []string{"make", "-s", "--", "{target}"}, s.env())
	require.NoError(t, err)
	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"target": "build"})})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"built"}}, s.runs(t))
}

// Attack: find reads "!" and "(" among its starting points as the start of
// its expression, so a "delete the matching files under dir" tool, find
// {dir} -name {pattern} -delete, given dir "!" ran find ! -name '*.tmp'
// -delete: everything under . but the *.tmp files (the stand-in find
// records what it was asked). The classifier judges both lines alike
// (find -delete), so an approval of the tool covered the inverted one.
// Those operator words ("!", "(", ")", ",") are refused where a value
// starts an argument after a find, as an option is.
func TestArgsAttackFindStartingPointIsAnOperator(t *testing.T) {
	s := newStandIn(t)
	sb := processEngine(t, t.TempDir())
	c, err := shell.NewCommand("clean", "Delete the matching files under a directory", sb,
		[]string{"find", "{dirs}", "-name", "{pattern}", "-delete"}, s.env(),
		shell.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"dirs":{"type":"array","items":{"type":"string"}},"pattern":{"type":"string"}},"required":["dirs","pattern"]}`)))
	require.NoError(t, err)
	for _, dirs := range [][]string{{"!"}, {"logs", "!"}, {"("}} {
		_, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"dirs": dirs, "pattern": "*.tmp"})})
		require.Error(t, err, "%q: ran as %q", dirs, s.runs(t))
		assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		assert.Contains(t, err.Error(), "expression")
	}
	assert.Empty(t, s.runs(t), "nothing ran")

	// Guard: directories, and "!" written as a file name, run.
	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"dirs": []string{"logs", "./!"}, "pattern": "!x"})})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"logs", "./!", "-name", "!x", "-delete"}}, s.runs(t))
}

// Attack: the bash tool's workdir argument moved a command's writes into a
// directory the classifier never saw: "printf x > config" is judged a
// Warning (a write to config), but run in workdir ".git" (or through a
// symlink to it) it writes .git/config, which the same classifier judges
// Dangerous when the line itself changes into .git. An approval policy
// that lets Warning through let it through. The line is now judged as run
// there: as if it began by changing into the workdir.
func TestArgsAttackBashWorkdirHidesWhereAWriteLands(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755))
	require.NoError(t, os.Symlink(".git", filepath.Join(dir, "g")))
	s := newStandIn(t)
	b, err := shell.NewBash(processEngine(t, dir), mustWorkspace(t, dir), s.env())
	require.NoError(t, err)
	require.Equal(t, classify.Dangerous, classify.Classify("cd .git\nprintf x > config").Level, "the classifier's own judgement of the write")

	for _, wd := range []string{".git", "g", "./.git/hooks/.."} {
		in := args(t, map[string]string{"command": "printf x > config", "workdir": wd})
		v := b.Assess(in)
		assert.Equal(t, classify.Dangerous, v.Level, "workdir %q: %v", wd, v.Reasons)
		// The subject (what rules match and a person reads) is the line as
		// run there too: cd into the directory the workdir names.
		assert.Equal(t, "cd -- .git\nprintf x > config", b.Subject(in), "the subject is the line as run in its workdir")
		res, _ := b.Run(context.Background(), tool.Call{Args: in})
		require.NotNil(t, res)
		assert.Equal(t, "dangerous", res.Metadata[shell.MetaDanger], "workdir %q: the run's recorded verdict", wd)
	}

	// Guard: an ordinary workdir judges the line as before.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	v := b.Assess(args(t, map[string]string{"command": "printf x > config", "workdir": "sub"}))
	assert.Equal(t, classify.Warning, v.Level, "%v", v.Reasons)
}
