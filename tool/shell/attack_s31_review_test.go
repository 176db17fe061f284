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

// Attack (review of febbea3): a wrapper given an option its grammar does
// not know was not followed to the program it runs, so a placeholder
// there was built: nice -5 {tool} notes.txt (-5 is the old spelling of
// -n 5) given rm deleted notes.txt (real nice and rm, process engine),
// and taskset --cpu-list, chrt --idle and strace --seccomp-bpf alike.
func TestAttackS31ReviewWrapperOptionItsGrammarDoesNotKnow(t *testing.T) {
	if p, err := exec.LookPath("nice"); err == nil {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("public-notes\n"), 0o644))
		c, err := shell.NewCommand("t", "t", processEngine(t, dir), []string{p, "-5", "{tool}", "notes.txt"})
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"tool": "rm"})})
		}
		_, statErr := os.Stat(notes)
		assert.NoError(t, statErr, "nice -5 {tool} given rm deleted notes.txt")
		assert.Error(t, err, "nice -5 {tool} was built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"nice", "--5", "{x}"},
		{"nice", "-19", "/usr/bin/{x}"},
		{"timeout", "5", "nice", "-10", "{x}"},
		{"find", ".", "-exec", "nice", "-5", "{x}", ";"},
		{"taskset", "--cpu-list", "0", "{x}"},
		{"chrt", "--idle", "0", "{x}"},
		{"strace", "--seccomp-bpf", "-f", "{x}"},
	}), "templates built")
	// Guard: the program fixed, placeholders its arguments or the
	// wrapper's values.
	for _, argv := range [][]string{
		{"nice", "-5", "make", "{target}"},
		{"nice", "-10", "sort", "--", "{file}"},
		{"taskset", "--cpu-list", "{cpus}", "make"},
		{"strace", "--seccomp-bpf", "-f", "-o", "{log}", "make"},
		{"timeout", "5", "go", "test", "{pkg}"},
		// Options with a value the classifier's grammar leaves out
		// (wrapperTakes), read as flags by the first version of this fix.
		{"ltrace", "-A", "{n}", "make"},
		{"runuser", "-w", "{vars}", "-u", "build", "make"},
		{"unshare", "--map-user", "{uid}", "make"},
		{"unshare", "--map-group={gid}", "make"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of fb3ab17): the package runners were matched only with
// their subcommand right after the program's name, so a global option
// before it hid them (npm --yes exec {x}, npm -w app exec, pnpm -C dir
// dlx, uv -q tool run, pipx --quiet run, bun --bun x), npm exec -c's
// shell line was not code as npx -c's is, and the commands that run a
// program in a project's or a version manager's environment (uv run
// {x}, poetry run, pnpm exec, bundle exec, conda run, direnv exec DIR,
// ...), or fetch and run a package (nix run {x}), and the go flags that name a program it runs (go vet -vettool, go test
// -exec, go build -toolexec), were not followed at all: go vet
// -vettool={key} . given ./evil.sh (a workspace script) ran it (real go,
// process engine).
func TestAttackS31ReviewRunnersBehindGlobalOptionsAndEnvironments(t *testing.T) {
	if p, err := exec.LookPath("go"); err == nil {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\nexit 1\n"), 0o755))
		built := buildAndRun(t, dir, [][]string{
			{p, "vet", "-vettool={key}", "."},
			{"timeout", "60", p, "vet", "-vettool", "{key}", "."},
		}, "./evil.sh")
		assert.Empty(t, built, "templates built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"npm", "--yes", "exec", "{x}"},
		{"npm", "-w", "app", "exec", "{x}"},
		{"pnpm", "-C", "dir", "dlx", "{x}"},
		{"yarn", "-q", "dlx", "{x}"},
		{"uv", "-q", "tool", "run", "{x}"},
		{"pipx", "--quiet", "run", "{x}"},
		{"bun", "--bun", "x", "{x}"},
		{"npm", "exec", "-c", "eslint {x}"},
		{"npm", "--yes", "x", "--call=eslint {x}"},
		{"uv", "run", "{x}"},
		{"uv", "run", "--with", "{pkg}", "pytest"},
		{"poetry", "run", "{x}"},
		{"pipenv", "run", "{x}"},
		{"pdm", "run", "{x}"},
		{"hatch", "run", "{x}"},
		{"pnpm", "exec", "{x}"},
		{"yarn", "exec", "{x}"},
		{"bundle", "exec", "{x}"},
		{"conda", "run", "-n", "env", "{x}"},
		{"direnv", "exec", ".", "{x}"},
		{"mise", "exec", "--", "{x}"},
		{"rbenv", "exec", "{x}"},
		{"nix", "run", "{x}"},
		{"go", "run", "-exec", "{x}", "."},
		{"go", "test", "-exec", "{x}", "./..."},
		{"go", "test", "./...", "-exec={x}"},
		{"go", "build", "-toolexec", "{x}", "./..."},
		{"toybox", "{x}"},
	}), "templates built")
	// Guard: the program fixed; the call's values its arguments, the
	// packages to test, an option's value.
	for _, argv := range [][]string{
		{"npm", "-w", "{ws}", "run", "test"},
		{"npm", "exec", "--", "eslint", "{file}"},
		{"npm", "exec", "-c", "{cmd}"},
		{"uv", "run", "--python", "{v}", "pytest", "{test}"},
		{"poetry", "run", "pytest", "-k", "{k}"},
		{"pnpm", "exec", "eslint", "{file}"},
		{"conda", "run", "-n", "{env}", "python", "script.py"},
		{"direnv", "exec", "{dir}", "make"},
		{"go", "run", "./cmd/tool", "{file}"},
		{"go", "run", "{file}"},
		{"go", "test", "-run", "{re}", "{pkg}"},
		{"go", "test", "./...", "-args", "-exec", "{x}"},
		{"go", "build", "-o", "{out}", "./..."},
		{"timeout", "5", "go", "test", "{pkg}"},
		{"nix", "run", "nixpkgs#hello", "--", "{arg}"},
		{"toybox", "ls", "{dir}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of 9a7915a and 7238232): more launchers run their first
// operand, and got no grammar: setarch x86_64 {tool} notes.txt given rm
// deleted notes.txt (real setarch and rm, process engine), and perf stat
// {x}, gdb --args {x}, eatmydata, nocache, firejail, cpulimit, chpst,
// proot, rlwrap, ssh-agent, dbus-launch, lxc-attach -n C -- {x}, toolbox
// run, machinectl shell were built; so were ip -all netns exec {x} (no
// NAME with -all; a global option before netns hid it) and bwrap
// --overlay RWSRC WORKDIR DEST {x} (three values, read as two).
func TestAttackS31ReviewMoreLaunchersRunTheirFirstOperand(t *testing.T) {
	if p, err := exec.LookPath("setarch"); err == nil {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("public-notes\n"), 0o644))
		c, err := shell.NewCommand("t", "t", processEngine(t, dir), []string{p, "x86_64", "{tool}", "notes.txt"})
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"tool": "rm"})})
		}
		_, statErr := os.Stat(notes)
		assert.NoError(t, statErr, "setarch x86_64 {tool} given rm deleted notes.txt")
		assert.Error(t, err, "setarch x86_64 {tool} was built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"setarch", "x86_64", "-R", "{x}"},
		{"linux64", "{x}"},
		{"perf", "stat", "-e", "cycles", "{x}"},
		{"perf", "record", "-g", "{x}"},
		{"gdb", "-batch", "-ex", "run", "--args", "{x}"},
		{"eatmydata", "{x}"},
		{"nocache", "{x}"},
		{"firejail", "--noprofile", "{x}"},
		{"cpulimit", "-l", "50", "{x}"},
		{"chpst", "-u", "x", "{x}"},
		{"proot", "-r", "/x", "{x}"},
		{"rlwrap", "{x}"},
		{"ssh-agent", "{x}"},
		{"dbus-launch", "{x}"},
		{"lxc-attach", "-n", "c", "--", "{x}"},
		{"toolbox", "run", "{x}"},
		{"machinectl", "shell", "x@c", "{x}"},
		{"ip", "-all", "netns", "exec", "{x}"},
		{"ip", "-n", "n", "netns", "exec", "n", "{x}"},
		{"bwrap", "--ro-bind", "/", "/", "--overlay-src", "/a", "--overlay", "/b", "/c", "/d", "{x}"},
	}), "templates built")
	for _, argv := range [][]string{
		{"setarch", "{arch}", "make"},
		{"setarch", "x86_64", "-R", "cat", "--", "{file}"},
		{"perf", "stat", "-e", "{ev}", "make"},
		{"perf", "report", "-i", "{file}"},
		{"gdb", "--args", "make", "{target}"},
		{"cpulimit", "-l", "{n}", "make"},
		{"ip", "-all", "netns", "exec", "ip", "link"},
		{"ip", "netns", "exec", "{ns}", "ping", "{host}"},
		{"bwrap", "--overlay-src", "/a", "--overlay", "{rw}", "/w", "/d", "make"},
		{"lxc-attach", "-n", "{c}", "--", "make"},
		{"eatmydata", "apt-get", "install", "{pkg}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of 1874d59): the file a program writes was declared a
// path argument only as the option spelt in full or -o{out}, so with
// forbidden_paths [secrets/**] and file declared, sort -uo {out} --
// {file} (a bundle), --out={out} (getopt_long's abbreviation), curl -so
// {out}, wget -qO {out}, and the files 1874d59 left out (curl
// --output-dir, -D; dd of=; strace -fo; time -ao) wrote into secrets
// (real programs, policy, executor, process engine; curl and wget read a
// file:// URL).
func TestAttackS31ReviewOutputFileOtherSpellings(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	secrets := filepath.Join(dir, "secrets")
	require.NoError(t, os.Mkdir(secrets, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("public-notes\n"), 0o600))
	sb := processEngine(t, dir)
	schema := []byte(`{"type":"object","properties":{"file":{"type":"string","x-toolbelt-path":true},"out":{"type":"string"}},"required":["file","out"]}`)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\", \"secrets\"]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	url := "file://" + filepath.Join(dir, "notes.txt")
	for name, tc := range map[string]struct {
		argv []string
		out  string
	}{
		"sort_bundle":        {[]string{"sort", "-uo", "{out}", "--", "{file}"}, "secrets/list"},
		"sort_bundle_attach": {[]string{"sort", "-uo{out}", "--", "{file}"}, "secrets/list"},
		"sort_abbrev":        {[]string{"sort", "--out={out}", "--", "{file}"}, "secrets/list"},
		"sort_abbrev_next":   {[]string{"sort", "--outp", "{out}", "--", "{file}"}, "secrets/list"},
		"curl_bundle":        {[]string{"curl", "-so", "{out}", url}, "secrets/list"},
		"curl_output_dir":    {[]string{"curl", "-s", "--output-dir", "{out}", "-O", url}, "secrets"},
		"wget_bundle":        {[]string{"wget", "-qO", "{out}", "--", url}, "secrets/list"},
		"dd":                 {[]string{"dd", "if={file}", "of={out}", "status=none"}, "secrets/list"},
		"strace_bundle":      {[]string{"strace", "-fo", "{out}", "true"}, "secrets/list"},
		"time_bundle":        {[]string{"/usr/bin/time", "-ao", "{out}", "true"}, "secrets/list"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.argv[0]); err != nil {
				t.Skipf("%s is not installed", tc.argv[0])
			}
			c, err := shell.New(tool.Spec{Name: name, Description: "Write a file", Risk: tool.RiskLow, InputSchema: schema}, sb, shell.Config{Argv: tc.argv})
			require.NoError(t, err)
			assert.Equal(t, []string{"file", "out"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", tc.argv)
			reg := registry.New()
			reg.MustRegister(c)
			ex := executor.MustNew(reg, executor.WithExtensions(p))
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: []byte(`{"file":"notes.txt","out":"` + tc.out + `"}`)})
			written, err := os.ReadDir(secrets)
			require.NoError(t, err)
			assert.Empty(t, written, "%s wrote into secrets", name)
			for _, e := range written {
				require.NoError(t, os.Remove(filepath.Join(secrets, e.Name())))
			}
			if assert.NotNil(t, res.Error, "%s wrote into secrets", name) {
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			}
		})
	}
	// Built only: the other files curl, wget and openssl write.
	for _, argv := range [][]string{
		{"curl", "-D", "{out}", url},
		{"curl", "--cookie-jar={out}", url},
		{"curl", "-sSo{out}", url},
		{"wget", "--output-doc={out}", url},
		{"wget", "-P", "{out}", url},
		{"openssl", "req", "-new", "-keyout", "{out}", "-in", "{file}"},
		{"strace", "-fo{out}", "true"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"file", "out"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
	// Guard: a bundle whose output letter is another letter's value
	// (sort -To: T takes "o"), options of other values, and openssl's
	// -outform are not declared.
	for _, argv := range [][]string{
		{"sort", "-To", "{out}", "--", "{file}"},
		{"sort", "-t", "{out}", "--", "{file}"},
		{"curl", "-H", "{out}", url},
		{"curl", "--data", "{out}", url},
		{"openssl", "x509", "-outform", "{out}", "-in", "{file}"},
		{"grep", "-co", "{out}", "--", "{file}"},
		{"dd", "if={file}", "bs={out}"},
	} {
		c, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: schema}, sb, shell.Config{Argv: argv})
		require.NoError(t, err)
		assert.Equal(t, []string{"file"}, sandbox.PathArguments(c.Spec().InputSchema), "%q", argv)
	}
}

// Attack (review of f50ab5f): make's command-line variables that name the
// program it runs were refused only as NAME=value, but make takes every
// flavour of assignment there: SHELL:={key}, SHELL::=, SHELL+= (the shell
// then runs the value as its script), "SHELL = {key}", and NAME!={key},
// whose value make runs with the shell as it reads it, whatever the name;
// and MAKE, which recursive recipes run ($(MAKE) -C sub), was not among
// the names. Given ./evil.sh (a workspace script) each ran it (real make,
// process engine).
func TestAttackS31ReviewMakeAssignmentFlavours(t *testing.T) {
	real, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\t@echo built\nsub:\n\t@$(MAKE) --version\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755))
	built := buildAndRun(t, dir, [][]string{
		{real, "SHELL:={key}", "all"},
		{real, "SHELL::={key}", "all"},
		{real, "SHELL+={key}", "all"},
		{real, "SHELL = {key}", "all"},
		{real, "--eval=SHELL:={key}", "all"},
		{real, "VERSION!={key}", "all"},
		{real, "MAKE={key}", "sub"},
		{"timeout", "30", real, "-s", "CC?={key}", "all"},
	}, "./evil.sh")
	assert.Empty(t, built, "templates built")
	// Guard: other variables, in any flavour, keep 8ff40cc's charset.
	for _, argv := range [][]string{
		{real, "VERSION={key}", "all"},
		{real, "VERSION:={key}", "all"},
		{real, "PREFIX ?= {key}", "all"},
	} {
		c, err := shell.NewCommand("ok", "ok", processEngine(t, dir), argv)
		require.NoError(t, err, "%q", argv)
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "1.2.3"})})
		require.NoError(t, err, "%q", argv)
		assert.Contains(t, res.Text(), "built")
	}
}

// Attack (review of febbea3 and b9e0ee5): options whose value names a
// program run in place of another were not followed: scp -S PROG and sftp
// -S PROG run PROG for the connection (in place of ssh), sftp -D PROG as
// the server, so scp -S {key} a h:b given ./evil.sh (a workspace script)
// ran it (real scp and sftp, process engine; nothing connects); and the
// variables that run0, systemd-nspawn and machinectl shell (-E,
// --setenv) and firejail, flatpak-spawn and flatpak run (--env=) set for
// their command were not judged as systemd-run's and bwrap's are, nor
// man's -HBROWSER as its --html=BROWSER.
func TestAttackS31ReviewProgramOptionsAndLauncherVariables(t *testing.T) {
	if _, err := exec.LookPath("scp"); err == nil {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755))
		built := buildAndRun(t, dir, [][]string{
			{"scp", "-S", "{key}", "a", "h:b"},
			{"scp", "-qS{key}", "a", "h:b"},
			{"sftp", "-S", "{key}", "h"},
			{"sftp", "-D", "{key}", "h"},
			{"timeout", "30", "scp", "-S", "{key}", "a", "h:b"},
		}, "./evil.sh")
		assert.Empty(t, built, "templates built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"run0", "--setenv=GIT_SSH_COMMAND=ssh {x}", "git", "fetch"},
		{"run0", "-E", "LD_PRELOAD={x}", "make"},
		{"systemd-nspawn", "--setenv=LD_PRELOAD={x}", "-D", "/r", "make"},
		{"machinectl", "shell", "--setenv=EDITOR={x}", "h", "/bin/x"},
		{"firejail", "--env=LD_PRELOAD={x}", "make"},
		{"firejail", "--env", "LD_PRELOAD={x}", "make"},
		{"flatpak-spawn", "--env=LD_PRELOAD={x}", "make"},
		{"flatpak", "run", "--env=PATH={x}", "org.app"},
		{"firejail", "--env={n}=x", "make"},
		{"man", "-H{x}", "ls"},
		{"man", "-Hfirefox {x}", "ls"},
	}), "templates built")
	for _, argv := range [][]string{
		{"scp", "-P", "{port}", "--", "{src}", "h:b"},
		{"scp", "-qi", "{key}", "{src}", "h:b"},
		{"sftp", "-b", "{batch}", "h"},
		{"run0", "--setenv=LANG={x}", "make"},
		{"firejail", "--env=LANG={x}", "make"},
		{"man", "-H", "{page}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of febbea3): su USER -c 'CMD {x}' (the words after USER
// are the user's shell's arguments; util-linux su also reads -c there as
// its own) and runuser USER -c were not judged as code, as su -c 'CMD
// {x}' USER is; and su -s SHELL runs SHELL, so su -s {x} USER let the
// model choose the program. su and runuser need root and a password, so
// the templates are only built.
func TestAttackS31ReviewSuRunsItsUsersShell(t *testing.T) {
	assert.Empty(t, builtOf(t, [][]string{
		{"su", "build", "-c", "make {target}"},
		{"su", "-", "build", "-c", "make {target}"},
		{"su", "-l", "build", "-c", "make {target}"},
		{"runuser", "build", "-c", "make {target}"},
		{"timeout", "60", "su", "build", "-c", "make {target}"},
		{"su", "-s", "{x}", "build"},
		{"su", "--shell={x}", "build"},
		{"su", "build", "-s", "{x}"},
		{"runuser", "-u", "build", "-s", "{x}"},
	}), "templates built")
	for _, argv := range [][]string{
		{"su", "-c", "{script}", "build"},
		{"su", "build", "-c", "{script}"},
		{"su", "-", "{user}", "-c", "make"},
		{"su", "-s", "/bin/bash", "{user}"},
		{"runuser", "-u", "build", "--", "make", "-s", "{target}"},
		{"runuser", "-u", "build", "make", "-s", "{target}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack: git -c's code keys are refused (d4a9ad1, a064f91), but other
// programs take a configuration value for one run the same way and run
// it: cargo --config 'build.rustc-wrapper="{key}"' build given ./evil.sh
// (a workspace script) ran it (real cargo, process engine, --offline, an
// empty crate), and hg --config hooks.*=, ui.ssh=, extensions.*=, alias
// =!CMD and svn --config-option config:tunnels:/config:helpers: were
// built (hg and svn are not installed here: built only).
func TestAttackS31ReviewConfigOptionsAreCode(t *testing.T) {
	if p, err := exec.LookPath("cargo"); err == nil {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"), 0o644))
		require.NoError(t, os.Mkdir(filepath.Join(dir, "src"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "lib.rs"), []byte(""), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\nexit 1\n"), 0o755))
		built := buildAndRun(t, dir, [][]string{
			{p, "--config", `build.rustc-wrapper="{key}"`, "build", "--offline"},
			{"timeout", "60", p, "--config=build.rustc-wrapper=\"{key}\"", "build", "--offline"},
		}, "./evil.sh")
		assert.Empty(t, built, "templates built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"cargo", "--config", "target.x86_64-unknown-linux-gnu.runner='{x}'", "run"},
		{"cargo", "--config=env.RUSTC_WRAPPER=\"{x}\"", "build"},
		{"cargo", "--config", "{k}=1", "build"},
		{"hg", "--config", "hooks.pre-status={x}", "status"},
		{"hg", "--config", "ui.ssh=ssh -i {x}", "pull"},
		{"hg", "--config=extensions.x={x}", "status"},
		{"hg", "--config", "alias.st=!{x}", "st"},
		{"svn", "--config-option", "config:tunnels:ssh={x}", "up"},
		{"svn", "--config-option=config:helpers:editor-cmd={x}", "commit"},
	}), "templates built")
	for _, argv := range [][]string{
		{"hg", "--config", "ui.username={name}", "commit", "-m", "{msg}"},
		{"hg", "--config", "{config}", "status"},
		{"svn", "--config-option", "servers:global:http-timeout={t}", "up"},
		{"cargo", "--config", "net.retry={n}", "build"},
		{"cargo", "--config", "{file}", "build"},
		{"cargo", "run", "--", "--config", "runner={x}"},
		{"cargo", "test", "{filter}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of fb3ab17): npm's configuration options that name the
// program it runs were not judged: npm run build --script-shell={key}
// runs the package script with that program as its shell, so given
// ./evil.sh (a workspace script) npm ran it (real npm, process engine,
// nothing fetched); --shell (npm explore), --editor, --browser, --git and
// --node-options (--require FILE), abbreviated as nopt takes them, were
// built too.
func TestAttackS31ReviewNpmConfigNamesTheProgram(t *testing.T) {
	if p, err := exec.LookPath("npm"); err == nil {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"m","version":"1.0.0","scripts":{"build":"echo built"}}`), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755))
		built := buildAndRun(t, dir, [][]string{
			{p, "run", "build", "--script-shell={key}"},
			{p, "run", "--script-sh", "{key}", "build"},
			{"timeout", "60", p, "run", "build", "--script-shell={key}"},
		}, "./evil.sh")
		assert.Empty(t, built, "templates built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"npm", "test", "--node-options=--require {x}"},
		{"npm", "explore", "pkg", "--shell={x}"},
		{"npm", "docs", "--browser={x}"},
		{"npm", "install", "--git={x}", "pkg"},
		{"yarn", "run", "build", "--script-shell={x}"},
	}), "templates built")
	for _, argv := range [][]string{
		{"npm", "run", "build", "--", "--script-shell={x}"},
		{"npm", "test", "--", "{file}"},
		{"npm", "install", "--save-dev", "{pkg}"},
		{"npm", "version", "{v}", "--git-tag-version=false"},
		{"npm", "--prefix", "{dir}", "test"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of f50ab5f and 8ff40cc): make's -E with its makefile
// text attached (-E{x}, -sE{x}) was neither given make's charset, as -E
// {x} with a literal before the value and --eval={x} are, nor read for a
// variable naming the program (-ESHELL={x}): make -E{key} all given
// '$(shell ./evil.sh)' ran it, and make -ESHELL={key} all given
// ./evil.sh ran it (real make, process engine).
func TestAttackS31ReviewMakeEvalAttached(t *testing.T) {
	real, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\t@echo built\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.sh"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755))
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{real, "-E{key}", "all"},
		{real, "-sE{key}", "all"},
		{real, "-Ex:={key}", "all"},
	} {
		c, err := shell.NewCommand("t", "t", sb, argv)
		require.NoError(t, err, "%q", argv)
		_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "$(shell ./evil.sh)"})})
		if assert.Error(t, err, "%q ran", argv) {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("%q ran touch", argv)
			require.NoError(t, os.Remove(filepath.Join(dir, "pwned")))
		}
		// Guard: text of the charset runs.
		res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": "VERSION=1.2"})})
		require.NoError(t, err, "%q", argv)
		assert.Contains(t, res.Text(), "built")
	}
	built := buildAndRun(t, dir, [][]string{
		{real, "-ESHELL={key}", "all"},
		{real, "-sESHELL:={key}", "all"},
	}, "./evil.sh")
	assert.Empty(t, built, "templates built")
}

// Attack (review of a63a239): strace's output file, given bundled after
// flags with the name attached (-fo{log}), was not checked for a leading
// "|" or "!", which strace reads as a command to pipe its trace into, run
// with a shell: strace -fo{key} true given '|touch pwned' ran touch (real
// strace and sh, process engine).
func TestAttackS31ReviewStraceBundledAttachedOutputIsCode(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	dir := t.TempDir()
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"strace", "-fo{key}", "true"},
		{"strace", "-qqfo{key}", "true"},
		{"timeout", "30", "strace", "-Afo{key}", "true"},
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
	// Guard: a bundle where another letter takes the rest (-e trace=...)
	// is no output file.
	c, err := shell.NewCommand("trace", "Trace", sb, []string{"strace", "-eo{key}", "true"})
	require.NoError(t, err)
	_, err = c.Argv(args(t, map[string]any{"key": "|x"}))
	assert.NoError(t, err)
}
