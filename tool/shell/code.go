package shell

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// checkCode refuses a placeholder spliced into code: the script of a shell
// given -c (sh -c 'grep {pattern} notes.txt'), an interpreter's inline
// code (python3 -c "print('{x}')"), an awk program, a sed script, or the
// command string of a wrapper (flock FILE -c CMD, and every word after
// ssh HOST, which joins them into one line), where a value such as
// "x; rm -rf ~" would run as code, whatever the argv does. The shells,
// interpreters and wrappers are those of the command classifier's default
// rules; each program is found anywhere in the argv (behind timeout, env,
// ...). A script that is a whole placeholder ("{script}") is the author
// handing the model a shell, and is allowed; so is awk or sed code run
// with --sandbox, where gawk and GNU sed refuse what runs commands or
// writes files.
func checkCode(args []argTemplate) []error {
	// The rules are found as the classifier finds them (exact names, then
	// the longest "prefix*" key: python3.12 by python3.*).
	c := classify.Default()
	var errs []error
	flagged := map[int]bool{} // arguments already refused (ssh host sh -c '... {x}')
	for i := range args {
		lit, ok := args[i].literal()
		if !ok {
			continue
		}
		prog := path.Base(lit)
		var setenv []int
		switch prog {
		case "env", "sudo":
			// sudo VAR=value CMD sets a variable for its command as env does.
			setenv = envCode(args, i+1, prog)
		case "bwrap", "systemd-run", "run0", "systemd-nspawn", "machinectl", "firejail", "flatpak-spawn", "flatpak":
			setenv = setenvCode(args, i+1, prog)
		case "make", "gmake", "bmake", "pmake":
			setenv = makeVariableCode(args, i+1)
		case "ssh", "scp", "sftp", "autossh":
			for _, j := range sshOptionCode(args, i+1) {
				if !flagged[j] {
					flagged[j] = true
					errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
						"{%s} is in an ssh -o option whose value ssh runs as a shell command or loads as code (ProxyCommand, LocalCommand, KnownHostsCommand, PKCS11Provider, ...), or that names the option, so a value such as \"x; rm -rf ~\" would run as code: fix the option in the template, or pass the value another way (-p {port}, user@{host})",
						args[j].placeholders()[0])})
				}
			}
		}
		for _, j := range setenv {
			if !flagged[j] {
				flagged[j] = true
				errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
					"{%s} is set in a variable that %s or its command runs as a program or shell command, or loads as code (or, in a variable's name, may), so a value such as \"x; rm -rf ~\" would run as code: fix the variable's value in the template, or pass the value as an argument of the command",
					args[j].placeholders()[0], prog)})
			}
		}
		sh, isShell := c.Shell(prog)
		ir, isInterpreter := c.Interpreter(prog)
		w, isWrapper := c.Wrapper(prog)
		var code []int
		var fix string
		table, from := programCode[prog], i+1
		if prog == "npm" {
			// npm exec -c and npm x -c are npx -c (npm --yes exec -c too).
			for _, sub := range []string{"exec", "x"} {
				if k := subcommand(args, i+1, []string{sub}); k >= 0 {
					table, from = programCode["npx"], k
				}
			}
		}
		switch {
		case table != nil:
			// Read first: the classifier may know these programs as
			// wrappers (rsync -e CMD), whose grammar does not say which
			// option values are code.
			var spliced []int
			code, spliced = optionCode(args, from, table)
			for _, j := range spliced {
				if len(args[j].placeholders()) > 0 && !flagged[j] {
					flagged[j] = true
					errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
						"{%s} is a list of values that %s substitutes into the commands the template gives it, which it runs with a shell, so a value such as \"x; rm -rf ~\" would run as code: fix the list in the template (-L name a,b,c), or give the whole command as one placeholder if the model is to choose it",
						args[j].placeholders()[0], prog)})
				}
			}
			fix = fmt.Sprintf("%s runs this option's value (or this operand) as code, with a shell or as its own commands: fix the code in the template and pass the value another way, or give the whole value as one placeholder if the model is to choose the code", prog)
		case configOptions[prog] != nil:
			code = configCode(args, i+1, configOptions[prog])
			fix = fmt.Sprintf("%s runs the value of this configuration key as a command or loads it as code (or, for a key chosen by the value, may): fix the key and its value in the template, or give the whole value as one placeholder if the model is to choose it", prog)
		case isShell:
			code = []int{shellScript(args, i+1, sh.ValueFlags)}
			fix = fmt.Sprintf(`read the value in the script as the positional parameter "$1", and pass it after the script and a name: %s -c 'grep -- "$1" notes.txt' %s {pattern}`, lit, prog)
		case isInterpreter:
			code = []int{inlineCode(args, i+1, ir)}
			fix = "pass the value as an argument of its own after the code, and read it from the program's arguments (sys.argv[1], process.argv[1], $ARGV[0])"
		case isWrapper && !namesOnly(args, i):
			var joined []int
			code, joined = wrapperCode(args, i+1, w)
			if j := userShellScript(args, i, prog, w); j >= 0 {
				code = append(code, j)
			}
			fix = fmt.Sprintf("%s runs it with a shell: give the command as arguments of their own (%s ... rec {x}) where %s runs one, or run a script file that reads the value from its arguments", prog, prog, prog)
			if len(joined) == 1 {
				code = append(code, joined[0])
			} else {
				// The words are joined into one shell line: a value is
				// code even as a whole argument.
				for _, j := range joined {
					if len(args[j].placeholders()) > 0 && !flagged[j] {
						flagged[j] = true
						errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
							"{%s} is joined with the words around it into a shell command line that %s runs, so a value such as \"x; rm -rf ~\" would run as code: run a script that reads the value from its arguments, or hand the whole command line over as one placeholder",
							args[j].placeholders()[0], prog)})
					}
				}
			}
		case slices.Contains(awkPrograms, prog):
			code = awkCode(args, i+1, prog == "gawk")
			fix = fmt.Sprintf("pass the value as a variable and use it in the program: %s -v pat={pattern} '$0 ~ pat' (or run gawk --sandbox, named gawk, which refuses system(), redirections and command pipes; another awk may ignore --sandbox)", lit)
		case slices.Contains(sedPrograms, prog):
			code = sedCode(args, i+1)
			fix = "run it as sed --sandbox (GNU sed), which refuses the e, r and w commands and flags a value could add, or match the value with grep -e {pattern} instead"
		case prog == "git":
			code = gitConfigCode(args, i+1)
			fix = "git runs the value of this configuration key as a shell command (or, for a key chosen by the value, may): fix the key and its value in the template, or give the whole -c argument as one placeholder (\"{config}\") if the model is to choose it"
		default:
			continue
		}
		for _, j := range code {
			if j < 0 || j >= len(args) || args[j].whole || len(args[j].placeholders()) == 0 || flagged[j] {
				continue
			}
			flagged[j] = true
			errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
				"{%s} is spliced into the code %s runs, so a value such as \"x; rm -rf ~\" would run as code: %s",
				args[j].placeholders()[0], prog, fix)})
		}
	}
	return append(errs, checkProgramNames(args, flagged)...)
}

// findRunPrimaries are find's primaries that run the program named by the
// next argument.
var findRunPrimaries = []string{"-exec", "-execdir", "-ok", "-okdir"}

// checkProgramNames refuses a placeholder in the name of a program the
// template runs through another, as one in argv[0] is: the command of a
// wrapper (timeout 5 CMD, nice, xargs, sudo, env), of a listed launcher
// after its "--" (setpriv --nnp -- CMD), and of find's -exec, -execdir,
// -ok and -okdir, followed from argv[0] as forwarders follows it (a
// wrapper's name read as an operand, grep -- timeout {file}, runs
// nothing), and into the command of each -exec (find . -exec timeout 5
// CMD ';'). A whole placeholder where env reads an assignment before a
// command word (env {assign} npm test) is left to the author, and must
// be one when a call fills it (checkAssignment), as are the wrappers
// that join their words into a shell line (ssh host {cmd}), which
// checkCode judges. An argument in flagged is refused already.
func checkProgramNames(args []argTemplate, flagged map[int]bool) []error {
	c := classify.Default()
	var errs []error
	refuse := func(j int, runner string) {
		if flagged[j] {
			return
		}
		flagged[j] = true
		errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
			"{%s} names the program (or the package) that %s runs, which must be fixed as argv[0] is, or the model chooses what runs (rm where wc was meant): name the program in the template and pass the value as one of its arguments, with a tool for each program the model may run",
			args[j].placeholders()[0], runner)})
	}
	var walk func(i int)
	walk = func(i int) {
		for i < len(args) {
			cmd := programRun(args, i, c, walk, refuse)
			if cmd < 0 || cmd >= len(args) {
				return
			}
			if len(args[cmd].placeholders()) > 0 {
				refuse(cmd, headLiteral(&args[i]))
				return
			}
			i = cmd
		}
	}
	if len(args) > 0 && len(args[0].placeholders()) == 0 {
		walk(0) // argv[0] is checked on its own
	}
	npmProgramConfig(args, refuse)
	return errs
}

// npmProgramConfigs are npm's configuration options that name a program
// it runs (the shell of run scripts, npm explore's shell, the editor, the
// browser, git) or options it passes to node (--require FILE).
var npmProgramConfigs = []string{"--script-shell", "--shell", "--editor", "--browser", "--git", "--viewer", "--node-options"}

// npmProgramConfig refuses a placeholder in the value of one of
// npmProgramConfigs given to npm, npx, pnpm or yarn (npm run build
// --script-shell={x}; nopt takes an abbreviation, --script-sh=), up to a
// "--" after which the words are the script's.
func npmProgramConfig(args []argTemplate, refuse func(j int, runner string)) {
	for i := range args {
		s, ok := args[i].literal()
		if !ok || !slices.Contains([]string{"npm", "npx", "pnpm", "pnpx", "yarn"}, path.Base(s)) {
			continue
		}
		for j := i + 1; j < len(args); j++ {
			w, lit := args[j].literal()
			if lit && w == "--" {
				break
			}
			name, _, eq := strings.Cut(headLiteral(&args[j]), "=")
			if len(name) < 5 || !strings.HasPrefix(name, "--") ||
				!slices.ContainsFunc(npmProgramConfigs, func(o string) bool { return strings.HasPrefix(o, name) }) {
				continue
			}
			switch {
			case (eq || !lit) && len(args[j].placeholders()) > 0:
				refuse(j, path.Base(s)+" "+name)
			case lit && !eq && j+1 < len(args) && len(args[j+1].placeholders()) > 0:
				refuse(j+1, path.Base(s)+" "+name)
			}
		}
		return
	}
}

// runGrammar is the grammar of a command that runs the program named by
// its first operand after its options and positionals: a package runner,
// which fetches the package and runs a program of it (npx eslint, uvx
// ruff), or a launcher (setpriv --nnp CMD, ip netns exec NS CMD). pkg
// are its options whose value names the package (-p, --from), takes its
// other options that take a value (as the next argument, or attached by
// "="), and positionals how many operands come before the program.
type runGrammar struct {
	pkg, takes  []string
	positionals int
	// takes2 are options that take the next two arguments (bwrap --bind
	// SRC DEST).
	takes2 []string
	// takes3 are options that take the next three (bwrap --overlay).
	takes3 []string
	// optionsOnly: the command runs no program named by an operand, only
	// those its pkg options name (go test -exec PROG, go vet -vettool=),
	// among options before its operands or after them.
	optionsOnly bool
	// bundles: its one-letter options bundle (scp -qS PROG): a bundle is
	// read as its last letter, the letters before it taking no value.
	bundles bool
}

// programRunners are those commands, by their words (npx, pnpm dlx, ip
// netns exec).
var programRunners = map[string]*runGrammar{
	"ip netns exec":    {positionals: 1},
	"setpriv":          {takes: []string{"--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}},
	"dbus-run-session": {takes: []string{"--config-file", "--dbus-daemon"}},
	"tini":             {takes: []string{"-p", "-e"}},
	"dumb-init":        {takes: []string{"-r", "--rewrite"}},
	"fakeroot":         {takes: []string{"-l", "--lib", "--faked", "-s", "-i", "-b"}},
	"xvfb-run":         {takes: []string{"-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "--error-file", "-p", "--xauth-protocol", "-w", "--wait"}},
	"cgexec":           {takes: []string{"-g"}},
	"prlimit":          {takes: []string{"-p", "--pid", "-o", "--output"}},
	"numactl": {takes: []string{"-i", "--interleave", "-m", "--membind", "-N", "--cpunodebind", "-C", "--physcpubind", "-p", "--preferred",
		"-P", "--preferred-many", "-w", "--weighted-interleave"}},
	"systemd-run": {takes: []string{"-u", "--unit", "-p", "--property", "--description", "--slice", "--slice-inherit", "-E", "--setenv",
		"--uid", "--gid", "--nice", "--working-directory", "-M", "--machine", "-H", "--host", "--on-active", "--on-boot",
		"--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property",
		"--socket-property", "--service-type", "--expand-environment", "-C", "--capsule", "--json"}},
	"bwrap": {takes: []string{"--args", "--uid", "--gid", "--hostname", "--chdir", "--unsetenv", "--lock-file", "--sync-fd",
		"--remount-ro", "--exec-label", "--file-label", "--proc", "--dev", "--tmpfs", "--mqueue", "--dir", "--seccomp",
		"--add-seccomp-fd", "--block-fd", "--userns-block-fd", "--info-fd", "--json-status-fd", "--cap-add", "--cap-drop",
		"--perms", "--size", "--userns", "--userns2", "--pidns", "--argv0", "--overlay-src", "--tmp-overlay", "--ro-overlay"},
		takes2: []string{"--setenv", "--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind", "--ro-bind-try",
			"--file", "--bind-data", "--ro-bind-data", "--symlink", "--chmod", "--bind-fd", "--ro-bind-fd"},
		takes3: []string{"--overlay"}}, // --overlay RWSRC WORKDIR DEST

	// Launchers that run their first operand.
	"setarch":         {positionals: 1},
	"linux32":         {},
	"linux64":         {},
	"eatmydata":       {},
	"nocache":         {},
	"catchsegv":       {},
	"firejail":        {},
	"flatpak-spawn":   {},
	"dbus-launch":     {},
	"systemd-inhibit": {takes: []string{"--what", "--who", "--why", "--mode"}},
	"ssh-agent":       {takes: []string{"-a", "-E", "-t", "-P", "-O"}},
	"cpulimit":        {takes: []string{"-l", "--limit", "-p", "--pid", "-e", "--exe"}},
	"chpst":           {takes: []string{"-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c"}},
	"proot": {takes: []string{"-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-w", "--pwd", "--cwd", "-q", "--qemu",
		"-k", "--kernel-release", "-i"}},
	"rlwrap": {takes: []string{"-b", "-C", "-D", "-e", "-f", "-F", "-g", "-H", "-l", "-M", "-O", "-P", "-q", "-s", "-S",
		"-t", "-w", "-z"}},
	"lxc-attach": {takes: []string{"-n", "--name", "-P", "--lxcpath", "-s", "--namespaces", "-a", "--arch", "-v",
		"--set-var", "-u", "--uid", "-g", "--gid", "-f", "--rcfile", "-o", "--logfile", "-l", "--logpriority"}},
	"schroot":          {takes: []string{"-c", "--chroot", "-u", "--user", "-d", "--directory", "-n", "--session-name", "-o", "--option"}},
	"toolbox run":      {takes: []string{"-c", "--container", "-d", "--distro", "-r", "--release"}},
	"perf stat":        {takes: perfTakes},
	"perf record":      {takes: perfTakes},
	"perf trace":       {takes: perfTakes},
	"machinectl shell": {positionals: 1, takes: []string{"--uid", "-E", "--setenv", "-M", "--machine", "-H", "--host"}},

	// scp -S PROG and sftp -S PROG run PROG for the connection, sftp -D
	// PROG runs it as the server, in place of ssh.
	"scp":  {pkg: []string{"-S"}, takes: []string{"-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-X"}, optionsOnly: true, bundles: true},
	"sftp": {pkg: []string{"-S", "-D"}, takes: []string{"-B", "-b", "-c", "-F", "-i", "-J", "-l", "-o", "-P", "-R", "-s", "-X"}, optionsOnly: true, bundles: true},
	// install -s --strip-program=PROG and sort --compress-program=PROG
	// run PROG (abbreviated as getopt_long takes them: --strip-p,
	// --co).
	"install": {pkg: prefixes("--strip-program", len("--strip-p")), takes: []string{"-g", "-m", "-o", "-S", "-t", "--group",
		"--mode", "--owner", "--suffix", "--target-directory"}, optionsOnly: true, bundles: true},
	"sort": {pkg: prefixes("--compress-program", len("--co")), takes: []string{"-k", "-o", "-t", "-S", "-T", "--key",
		"--output", "--field-separator", "--buffer-size", "--temporary-directory", "--parallel", "--batch-size",
		"--files0-from", "--random-source", "--sort"}, optionsOnly: true, bundles: true},

	// Package runners.
	"npx":         npmRunner,
	"npm exec":    npmRunner,
	"npm x":       npmRunner,
	"pnpx":        npmRunner,
	"pnpm dlx":    npmRunner,
	"yarn dlx":    npmRunner,
	"bunx":        npmRunner,
	"bun x":       npmRunner,
	"uvx":         uvRunner,
	"uv tool run": uvRunner,
	"pipx run":    {pkg: []string{"--spec"}, takes: []string{"--python", "--pip-args", "--index-url", "-i"}},
	"nix run":     {takes: []string{"--override-input", "--arg", "--argstr", "--option", "-I", "--include", "--inputs-from", "--expr", "-f", "--file"}},
	// The go commands that build run the programs -toolexec (and go run
	// and go test -exec, go vet -vettool) name. go run's package is
	// left to the author, as python3 {script} is: it may be a file of the
	// workspace (go run {file}).
	"go run":     {pkg: goProgramFlags, takes: goBuildTakes, optionsOnly: true},
	"go build":   {pkg: goProgramFlags, takes: goBuildTakes, optionsOnly: true},
	"go install": {pkg: goProgramFlags, takes: goBuildTakes, optionsOnly: true},
	"go test":    {pkg: goProgramFlags, takes: goBuildTakes, optionsOnly: true},
	"go vet":     {pkg: goProgramFlags, takes: goBuildTakes, optionsOnly: true},
	"go list":    {pkg: goProgramFlags, takes: goBuildTakes, optionsOnly: true},

	// Environment runners: the command runs with a project's, a
	// version manager's or an environment's programs first on PATH, but
	// any program is found (uv run rm notes.txt).
	"uv run":         {pkg: uvRunner.pkg, takes: append([]string{"--package", "--extra", "--group", "--only-group", "--no-group", "--env-file"}, uvRunner.takes...)},
	"poetry run":     {takes: []string{"-C", "--directory", "-P", "--project"}},
	"pipenv run":     {},
	"pdm run":        {takes: []string{"-p", "--project", "--venv"}},
	"hatch run":      {},
	"rye run":        {takes: []string{"--pyproject"}},
	"pnpm exec":      {takes: []string{"-C", "--dir", "--filter", "-F", "--workspace-concurrency", "--reporter"}},
	"yarn exec":      {},
	"bundle exec":    {takes: []string{"--gemfile"}},
	"conda run":      condaRunner,
	"mamba run":      condaRunner,
	"micromamba run": condaRunner,
	"pixi run":       {takes: []string{"-e", "--environment", "--manifest-path"}},
	"direnv exec":    {positionals: 1},
	"mise exec":      {takes: []string{"-C", "--cd", "-j", "--jobs"}},
	"mise x":         {takes: []string{"-C", "--cd", "-j", "--jobs"}},
	"asdf exec":      {},
	"rbenv exec":     {},
	"pyenv exec":     {},
	"nodenv exec":    {},
	"volta run":      {takes: []string{"--node", "--npm", "--yarn", "--pnpm", "--env"}},
	"fnm exec":       {takes: []string{"--using"}},
	"opam exec":      {takes: []string{"--switch", "--root"}},
	"stack exec":     {},
	"cabal exec":     {},
}

// perfTakes are the options of perf stat, record and trace that take a
// value.
var perfTakes = []string{"-e", "--event", "-p", "--pid", "-t", "--tid", "-o", "--output", "-r", "--repeat", "-C", "--cpu",
	"-G", "--cgroup", "-x", "--field-separator", "-I", "--interval-print", "-M", "--metrics", "-D", "--delay", "--pre",
	"--post", "--log-fd", "-F", "--freq", "-c", "--count", "-m", "--mmap-pages", "--call-graph", "-j", "--branch-filter",
	"--clockid", "-u", "--uid", "--duration", "--filter"}

// goProgramFlags are the go command's flags whose value names a program
// it runs, spelt with one dash or two.
var goProgramFlags = []string{"-exec", "--exec", "-toolexec", "--toolexec", "-vettool", "--vettool"}

// goBuildTakes are the go command's build flags that take a value.
var goBuildTakes = []string{"-C", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-gccgoflags", "-mod", "-modfile",
	"-overlay", "-pgo", "-buildmode", "-compiler", "-installsuffix", "-pkgdir", "-coverpkg", "-covermode", "-o"}

var condaRunner = &runGrammar{takes: []string{"-n", "--name", "-p", "--prefix", "--cwd"}}

var (
	npmRunner = &runGrammar{pkg: []string{"-p", "--package"}, takes: []string{"-c", "--call", "-w", "--workspace", "--prefix", "--registry"}}
	uvRunner  = &runGrammar{pkg: []string{"--from", "--with", "-w", "--with-editable", "--with-requirements"},
		takes: []string{"--python", "-p", "--index", "--index-url", "--extra-index-url", "--default-index", "-c", "--constraints",
			"--overrides", "--directory", "--project", "--cache-dir", "--config-file", "--env-file"}}
)

// subcommand returns the index after the literal words of a runner's
// subcommand (exec of npm exec, tool run of uv tool run) read from start,
// or -1 when they do not follow. Global options may come before each word
// (npm --yes exec, npm -w app exec, pnpm -C dir dlx, uv -q tool run): an
// option word is skipped, and so is the word after an option without an
// attached value (its value, perhaps) unless it is the word looked for.
func subcommand(args []argTemplate, start int, words []string) int {
	j := start
	for _, w := range words {
		for {
			if j >= len(args) {
				return -1
			}
			s, lit := args[j].literal()
			if lit && s == w {
				j++
				break
			}
			head := headLiteral(&args[j])
			if s == "--" || len(head) < 2 || head[0] != '-' {
				return -1
			}
			j++
			if lit && !strings.Contains(s, "=") && j < len(args) {
				if v, ok := args[j].literal(); !ok || v != w && !strings.HasPrefix(v, "-") {
					j++ // the option's value
				}
			}
		}
	}
	return j
}

// ipAll reports whether at is ip's -all option (abbreviated, or with two
// dashes), with which ip netns exec runs its command in every namespace
// and takes no NAME.
func ipAll(at argTemplate) bool {
	s, ok := at.literal()
	s = strings.TrimPrefix(s, "-")
	return ok && len(s) > 0 && strings.HasPrefix("all", s)
}

// program reads the command's options and positionals from start,
// refusing a placeholder in a value naming the package, and returns
// where the program it runs is named (len(args) for optionsOnly). runner
// is the command's words (uv tool run), as a refusal names it.
func (r *runGrammar) program(args []argTemplate, start int, runner string, refuse func(j int, runner string)) int {
	pos := 0
	for j := start; j < len(args); j++ {
		s, lit := args[j].literal()
		head := headLiteral(&args[j])
		if r.optionsOnly && lit && (s == "--" || s == "-args" || s == "--args") {
			return len(args) // the test binary's arguments
		}
		if lit && s == "--" {
			return j + 1 + max(r.positionals-pos, 0)
		}
		if !strings.HasPrefix(head, "-") {
			if r.optionsOnly {
				continue
			}
			if pos < r.positionals {
				pos++
				continue
			}
			return j
		}
		name, _, eq := strings.Cut(head, "=")
		attached := eq || !lit
		if r.bundles && !eq && len(name) > 2 && name[1] != '-' {
			// -qS PROG, -qSPROG: the first letter that takes a value
			// takes the rest of the word, or the next.
			for k := 1; k < len(name); k++ {
				if o := "-" + name[k:k+1]; slices.Contains(r.pkg, o) || slices.Contains(r.takes, o) {
					name, attached = o, k < len(head)-1 || !lit
					break
				}
			}
		}
		switch {
		case slices.Contains(r.pkg, name):
			if attached && len(args[j].placeholders()) > 0 {
				refuse(j, runner+" "+name)
			} else if !attached && j+1 < len(args) {
				if len(args[j+1].placeholders()) > 0 {
					refuse(j+1, runner+" "+name)
				}
				j++
			}
		case slices.Contains(r.takes, name) && !attached:
			j++
		case slices.Contains(r.takes2, name) && lit:
			j += 2
		case slices.Contains(r.takes3, name) && lit:
			j += 3
		}
	}
	return len(args)
}

// programRun returns the index of the program that the literal program
// args[i] runs as a wrapper or launcher, -1 when none; for a find it
// judges the program of each -exec (and its chain, with walk) itself. It
// marks a whole placeholder env reads as an assignment (assignment).
func programRun(args []argTemplate, i int, c *classify.Classifier, walk func(int), refuse func(j int, runner string)) int {
	lit, _ := args[i].literal()
	name := path.Base(lit)
	if slices.Contains(findPrograms, name) {
		for j := i + 1; j+1 < len(args); j++ {
			if s, ok := args[j].literal(); ok && slices.Contains(findRunPrimaries, s) {
				if len(args[j+1].placeholders()) > 0 {
					refuse(j+1, lit+" "+s)
				} else {
					walk(j + 1) // find . -exec timeout 5 CMD ';'
				}
			}
		}
		return -1
	}
	for k, r := range programRunners {
		words := strings.Fields(k)
		if words[0] != name {
			continue
		}
		if next := subcommand(args, i+1, words[1:]); next >= 0 {
			if k == "ip netns exec" && slices.ContainsFunc(args[i+1:next], ipAll) {
				r = &runGrammar{} // ip -all netns exec CMD: no NS
			}
			return r.program(args, next, strings.Join(append([]string{lit}, words[1:]...), " "), refuse)
		}
	}
	if name == "toybox" && i+1 < len(args) {
		return i + 1 // toybox APPLET, as busybox APPLET
	}
	if name == "gdb" || name == "cgdb" {
		// gdb --args PROG ARGS...: the program it debugs (and runs with
		// -ex run).
		for k := i + 1; k < len(args); k++ {
			if s, ok := args[k].literal(); ok && (s == "--args" || s == "-args") {
				return k + 1
			}
		}
		return -1
	}
	if name == "su" || name == "runuser" {
		// su -s SHELL USER runs SHELL: the program.
		for j := i + 1; j < len(args); j++ {
			s, lit := args[j].literal()
			head := headLiteral(&args[j])
			long, _, eq := strings.Cut(head, "=")
			switch {
			case lit && s == "--":
				j = len(args)
			case lit && (s == "-s" || len(s) > 3 && strings.HasPrefix("--shell", s) ||
				len(s) > 2 && s[0] == '-' && s[1] != '-' && s[len(s)-1] == 's' && strings.Trim(s[1:len(s)-1], "flmpP") == ""):
				if j+1 < len(args) && len(args[j+1].placeholders()) > 0 {
					refuse(j+1, name+" "+s)
				}
				j++
			case !lit && (head == "-s" || eq && len(long) > 3 && strings.HasPrefix("--shell", long)):
				refuse(j, name+" -s")
			case name == "runuser" && lit && slices.Contains([]string{"-u", "-g", "-G", "-w", "--user", "--group", "--supp-group", "--whitelist-environment"}, s):
				j++
			case name == "runuser" && !strings.HasPrefix(head, "-"):
				j = len(args) // runuser -u USER CMD: CMD's arguments from here
			}
		}
		if name == "su" {
			// su USER ARGS...: the user's shell runs with ARGS
			// (userShellScript judges a -c script there).
			return -1
		}
	}
	if w, ok := c.Wrapper(name); ok && !w.Join {
		// An option the grammar does not know (nice -5, the old spelling
		// of -n 5; taskset --cpu-list, chrt --idle) is read as a flag: the
		// command still follows, and a placeholder there may be the
		// program.
		ww := readWrapper(args, i+1, w)
		cmd := ww.cmd
		if cmd < len(args) {
			if s, ok := args[cmd].literal(); ok && s == "--" {
				cmd++
			}
		}
		// sudo VAR=value CMD, though its grammar here reads no
		// assignments.
		for name == "sudo" && cmd < len(args) && strings.Contains(headLiteral(&args[cmd]), "=") && !strings.HasPrefix(headLiteral(&args[cmd]), "-") {
			cmd++
		}
		// env {assign} npm test: an assignment, the author's choice,
		// checked to be one when the call fills it.
		for w.Assignments && cmd+1 < len(args) && args[cmd].whole {
			args[cmd].assignment = true
			cmd++
		}
		return cmd
	}
	if slices.Contains(launchers, name) && name != "ip" {
		// A launcher of no grammar here (prlimit --nofile=1024 -- CMD):
		// its "--" only when nothing but options comes before it, since
		// a word there may be the program (bwrap --ro-bind / / cat --
		// {file}: cat's "--") or an option's value.
		if k := dashesBeforeProgram(args, i+1, c, true); k >= 0 && !slices.ContainsFunc(args[i+1:k], func(a argTemplate) bool {
			return !strings.HasPrefix(headLiteral(&a), "-")
		}) {
			return k + 1
		}
	}
	return -1
}

// scriptRunners run a package script named by a word (npm run watch).
var scriptRunners = []string{"npm", "pnpm", "yarn", "bun"}

// namesOnly reports whether the literal args[i], a wrapper's name, names
// a program or a script without running it there as the wrapper, so that
// the words after it are not its command: the remote shell of rsync
// -e/--rsh (rsync -e ssh SRC HOST:DST), a package script (npm/pnpm/yarn/bun
// run watch, yarn/pnpm watch), or a compose subcommand (docker compose
// watch). Shells and interpreters are not let off so (yarn node -e CODE
// runs node).
func namesOnly(args []argTemplate, i int) bool {
	word := func(k int) string {
		if k < 0 || k >= len(args) {
			return ""
		}
		s, _ := args[k].literal()
		return s
	}
	prev := word(i - 1)
	switch prog := path.Base(word(0)); {
	case prog == "rsync" && i >= 2 && (prev == "--rsh" || len(prev) > 1 && prev[0] == '-' && prev[1] != '-' && strings.HasSuffix(prev, "e")):
		return true
	case slices.Contains(scriptRunners, prog) && i == 2 && (prev == "run" || prev == "run-script"):
		return true
	case (prog == "yarn" || prog == "pnpm") && i == 1:
		return true
	case (prog == "docker" || prog == "podman") && i == 2 && prev == "compose":
		return true
	}
	return false
}

// wrapperCode reads a wrapper's options and positionals (the classifier's
// grammar for it) and returns the arguments that are shell code: the
// values of its string and split flags (su -c CMD, flock FILE -c CMD, env
// -S LINE), and, for a wrapper that joins its command words into one
// shell line (ssh, watch, entr), those words.
func wrapperCode(args []argTemplate, start int, w *classify.WrapperRule) (code, joined []int) {
	ww := readWrapper(args, start, w)
	if w.Join {
		for j := ww.cmd; j < len(args); j++ {
			joined = append(joined, j)
		}
	}
	return ww.code, joined
}

// configOption is a program's option that sets a configuration value for
// one run (hg --config SECTION.NAME=VALUE), and the keys whose values the
// program runs as commands or loads as code.
type configOption struct {
	option string
	code   func(key string) bool
}

// configOptions are those options, by program, as git -c is git's
// (gitConfigCode).
var configOptions = map[string]*configOption{
	// Mercurial runs hooks, aliases starting with !, merge tools, extdiff
	// commands, the pager, ui.ssh, ui.editor and ui.merge, and loads
	// extensions from a path.
	"hg": {"--config", func(key string) bool {
		sec, name, _ := strings.Cut(strings.ToLower(key), ".")
		return slices.Contains([]string{"hooks", "extensions", "alias", "merge-tools", "extdiff", "pager", "diff-tools", "merge-patterns"}, sec) ||
			sec == "ui" && slices.Contains([]string{"ssh", "editor", "merge", "remotecmd"}, name)
	}},
	// Subversion runs the tunnels' commands and the helpers.
	"svn": {"--config-option", func(key string) bool {
		parts := strings.SplitN(strings.ToLower(key), ":", 3)
		return len(parts) == 3 && parts[0] == "config" && (parts[1] == "tunnels" || parts[1] == "helpers")
	}},
	// Cargo runs the runner, linker, rustc and its wrappers, the doc
	// browser and credential providers, passes rustflags to rustc (-C
	// linker=...), and sets env.* for the build.
	"cargo": {"--config", func(key string) bool {
		k := strings.ToLower(strings.TrimSpace(key))
		last := k[strings.LastIndexByte(k, '.')+1:]
		return strings.HasPrefix(k, "env.") || strings.Contains(k, "credential-provider") ||
			slices.Contains([]string{"runner", "linker", "rustflags", "rustdocflags", "rustc", "rustc-wrapper",
				"rustc-workspace-wrapper", "rustdoc", "browser"}, last)
	}},
}

// configCode returns the arguments (from start) that set a configuration
// key of o with a placeholder in its value or its key: "OPTION KEY=VALUE"
// or "OPTION=KEY=VALUE". A whole value is the author handing it over.
func configCode(args []argTemplate, start int, o *configOption) []int {
	var code []int
	judge := func(j int, prefix string) {
		at := &args[j]
		if at.whole || len(at.placeholders()) == 0 {
			return
		}
		key, _, eq := strings.Cut(strings.TrimPrefix(headLiteral(at), prefix), "=")
		if !eq || o.code(key) {
			code = append(code, j)
		}
	}
	for j := start; j < len(args); j++ {
		s, lit := args[j].literal()
		switch {
		case lit && s == "--":
			return code
		case lit && s == o.option && j+1 < len(args):
			judge(j+1, "")
			j++
		case strings.HasPrefix(headLiteral(&args[j]), o.option+"="):
			judge(j, o.option+"=")
		}
	}
	return code
}

// userShellScript returns the index of the script that su USER (or
// runuser USER, without -u) hands its user's shell after the user: the
// words after USER are that shell's arguments, so su build -c 'CMD' runs
// CMD with the shell (-1 when there is none). A lone "-" before USER is
// su's --login.
func userShellScript(args []argTemplate, i int, prog string, w *classify.WrapperRule) int {
	if prog != "su" && prog != "runuser" {
		return -1
	}
	ww := readWrapper(args, i+1, w)
	if ww.dash >= 0 {
		return -1 // su -- ...: no options after it
	}
	user := ww.cmd
	if prog == "su" {
		user = ww.cmd - 1 // its one positional
		if user <= i {
			return -1
		}
		if s, ok := args[user].literal(); ok && s == "-" && ww.cmd < len(args) {
			user = ww.cmd // su - USER
		}
	} else if slices.ContainsFunc(args[i+1:ww.cmd], func(a argTemplate) bool {
		h := headLiteral(&a)
		return h == "-u" || strings.HasPrefix(h, "--user") || strings.HasPrefix(h, "--u")
	}) {
		return -1 // runuser -u USER CMD runs CMD itself
	}
	if user >= len(args) {
		return -1
	}
	return shellScript(args, user+1, nil)
}

// wrapperTakes gives, by wrapper, options that take a value (as the next
// argument, or attached with "=") that the classifier's grammar does not
// list; an option neither lists is read as a flag (nice -5).
var wrapperTakes = map[string][]string{
	"ltrace":  {"-a", "-A", "-D", "-F", "-l", "-n", "-w", "-x"},
	"runuser": {"-w", "--whitelist-environment", "-s", "--shell", "-g", "--group", "-G", "--supp-group"},
	"unshare": {"--map-user", "--map-group", "--map-users", "--map-groups", "--setgid", "-G", "--monotonic", "--boottime"},
}

// extraTakes reports whether the option word starting with head, of the
// wrapper named by the literal prog, is one of wrapperTakes.
func extraTakes(prog argTemplate, head string, lit bool) bool {
	name, _ := prog.literal()
	opts := wrapperTakes[path.Base(name)]
	o, _, _ := strings.Cut(head, "=")
	return slices.Contains(opts, o) && (lit || strings.Contains(head, "="))
}

// wrapperWords is what a wrapper's own arguments are, read with the
// classifier's grammar for it.
type wrapperWords struct {
	code  []int // the values of its string and split flags
	cmd   int   // where the command it runs starts; len(args) when none
	dash  int   // its own "--", ending its options; -1 when none
	known bool  // every option word is one of its grammar's
}

// readWrapper reads a wrapper's options and positionals from start: the
// arguments that are shell code, where its command starts, and its own
// "--".
func readWrapper(args []argTemplate, start int, w *classify.WrapperRule) wrapperWords {
	ww := wrapperWords{dash: -1, known: true}
	pos, opts := 0, true
	j := start
	for ; j < len(args); j++ {
		s, lit := args[j].literal()
		head := headLiteral(&args[j])
		if opts && pos == 0 && w.LoneDash && lit && s == "-" {
			continue // env - is env -i
		}
		if opts && (pos == 0 || w.OptionsAfterPositionals) && len(head) > 1 && head[0] == '-' && start > 0 &&
			extraTakes(args[start-1], head, lit) {
			// An option with a value the grammar does not list (ltrace
			// -A N, unshare --map-user UID): its value is no program.
			if lit && !strings.Contains(s, "=") {
				j++
			}
			continue
		}
		if opts && (pos == 0 || w.OptionsAfterPositionals) && len(head) > 1 && head[0] == '-' {
			if lit && s == "--" {
				opts, ww.dash = false, j
				continue
			}
			flag, attached, takes, known := wrapperOption(w, head, lit)
			ww.known = ww.known && known
			if slices.Contains(w.StringFlags, flag) || slices.Contains(w.SplitFlags, flag) {
				if attached {
					ww.code = append(ww.code, j)
				} else if takes && j+1 < len(args) {
					ww.code = append(ww.code, j+1)
				}
			}
			if takes && !attached {
				j++
			}
			continue
		}
		if w.Assignments && strings.Contains(head, "=") {
			continue // NAME=value, or NAME={v}
		}
		if pos < w.Positionals {
			pos++
			continue
		}
		break
	}
	ww.cmd = min(j, len(args))
	return ww
}

// wrapperOption reads the option an argument starting with head holds
// (lit: the argument is head, no placeholder follows): its name, whether
// its value is attached (-c{x}, --command=...), whether it takes one, and
// whether every letter or the name is in the grammar. A long option may
// be abbreviated, as getopt_long reads it (env --split=... is env
// --split-string=...); an ambiguous abbreviation is read as a string or
// split flag it could be, if any.
func wrapperOption(w *classify.WrapperRule, head string, lit bool) (flag string, attached, takes, known bool) {
	o := &w.Options
	lookup := func(name string) *classify.Option {
		for i := range o.List {
			if o.List[i].Name == name {
				return &o.List[i]
			}
		}
		return nil
	}
	if strings.HasPrefix(head, "--") {
		name, _, eq := strings.Cut(head, "=")
		opt := lookup(name)
		if opt == nil && len(name) > 2 {
			var found []*classify.Option
			for i := range o.List {
				if strings.HasPrefix(o.List[i].Name, name) && strings.HasPrefix(o.List[i].Name, "--") {
					found = append(found, &o.List[i])
				}
			}
			if len(found) == 1 {
				opt = found[0]
			} else if len(found) > 1 {
				// Ambiguous: getopt refuses it, but read it as the
				// option that would make it code.
				for _, f := range found {
					if slices.Contains(w.StringFlags, f.Name) || slices.Contains(w.SplitFlags, f.Name) {
						return f.Name, eq || !lit, f.Arg == classify.RequiredArg, false
					}
				}
			}
		}
		if opt == nil {
			return name, false, false, false
		}
		return opt.Name, eq || !lit, opt.Arg == classify.RequiredArg, true
	}
	known = true
	for k := 1; k < len(head); k++ {
		name := "-" + head[k:k+1]
		opt := lookup(name)
		if opt == nil {
			known = false
			continue
		}
		if opt.Arg != classify.NoArg {
			return name, k < len(head)-1 || !lit, opt.Arg == classify.RequiredArg, known
		}
	}
	return "", false, false, known
}

// awkPrograms and sedPrograms run a program given as an argument (awk
// '/x/ { print }', sed -e 's/a/b/').
var (
	awkPrograms = []string{"awk", "gawk", "mawk", "nawk"}
	sedPrograms = []string{"sed", "gsed"}
)

// awkCode returns the indices of the arguments awk runs as its program:
// the first operand unless -f names a program file, and the values of -e
// and --source (gawk). It returns none when --sandbox comes first and the
// program is gawk (sandbox): the one-true-awk that is awk on macOS and the
// BSDs (nawk, original-awk elsewhere) ignores an option it does not know,
// with a warning, and runs the program unsandboxed, so awk --sandbox
// protects nothing there.
func awkCode(args []argTemplate, start int, sandbox bool) []int {
	return scriptCode(args, start, func(head string, lit bool) (byte, bool) {
		if lit && head == "-S" {
			head = "--sandbox"
		}
		opt, attached := awkOption(head, lit)
		if opt == 'S' && !sandbox {
			return 0, false
		}
		return opt, attached
	})
}

// awkLong are gawk's long options, which getopt_long lets a template
// abbreviate (--sourc=... is --source=...).
var awkLong = []string{"--assign", "--field-separator", "--file", "--exec", "--source", "--include", "--load",
	"--sandbox", "--bignum", "--characters-as-bytes", "--copyright", "--csv", "--debug", "--dump-variables",
	"--gen-pot", "--help", "--lint", "--lint-old", "--non-decimal-data", "--no-optimize", "--optimize", "--posix",
	"--pretty-print", "--profile", "--re-interval", "--traditional", "--use-lc-numeric", "--version", "--trace"}

// awkOption reads an awk option word that starts with head (lit: the
// whole word): 'e' for program text (-e, --source), 'f' for a program file
// (-f, -E, --file, --exec), 'v' for another option with a value (-v, -F,
// -i, -l, -W, --assign, ...), 'S' for --sandbox, 0 for a flag; and whether
// its value is attached. Only the first letter of a short word counts:
// mawk and the one-true-awk do not bundle flags.
func awkOption(head string, lit bool) (byte, bool) {
	if strings.HasPrefix(head, "--") {
		name, _, eq := strings.Cut(head, "=")
		attached := eq || !lit
		switch getoptLong(name, awkLong) {
		case "--source":
			return 'e', attached
		case "--file", "--exec":
			return 'f', attached
		case "--assign", "--field-separator", "--include", "--load":
			return 'v', attached
		case "--sandbox":
			return 'S', false
		}
		return 0, false
	}
	attached := len(head) > 2 || !lit
	switch head[1] {
	case 'e':
		return 'e', attached
	case 'f', 'E':
		return 'f', attached
	case 'v', 'F', 'i', 'l', 'W':
		return 'v', attached
	}
	return 0, false
}

// scriptCode returns the indices of the arguments that awk or sed runs as
// code, reading their options with option: the values of the code option
// ('e'), or the first operand when neither it nor a code file ('f') gives
// the code. A sandbox option ('S') makes it return none; another option
// with a value ('v') skips it.
func scriptCode(args []argTemplate, start int, option func(head string, lit bool) (byte, bool)) []int {
	var code []int
	given := false // -e or -f gave the code
	for j := start; j < len(args); j++ {
		s, lit := args[j].literal()
		if lit && s == "--" {
			if !given && j+1 < len(args) {
				code = append(code, j+1)
			}
			return code
		}
		head := headLiteral(&args[j])
		if len(head) < 2 || head[0] != '-' {
			// An operand: the code unless an option gave it, else a file.
			if !given {
				code = append(code, j)
			}
			return code
		}
		opt, attached := option(head, lit)
		switch opt {
		case 'S':
			return nil
		case 'e':
			given = true
			if attached {
				code = append(code, j)
			} else if j+1 < len(args) {
				code = append(code, j+1)
				j++
			}
		case 'f':
			given = true
			if !attached {
				j++
			}
		case 'v':
			if !attached {
				j++
			}
		}
	}
	return code
}

// getoptLong returns the long option of names that name (with its "--")
// spells or abbreviates, as getopt_long reads it; "" when none, or when
// the abbreviation is ambiguous (getopt refuses it).
func getoptLong(name string, names []string) string {
	if slices.Contains(names, name) {
		return name
	}
	found := ""
	for _, n := range names {
		if len(name) > 2 && strings.HasPrefix(n, name) {
			if found != "" {
				return ""
			}
			found = n
		}
	}
	return found
}

// sedCode returns the indices of the arguments sed runs as its script: the
// values of -e and --expression, or the first operand when neither -e nor
// -f gives the script. It returns none when --sandbox (GNU sed) comes
// first.
func sedCode(args []argTemplate, start int) []int {
	return scriptCode(args, start, sedOption)
}

// sedLong are GNU sed's long options, which getopt_long lets a template
// abbreviate (--expr=... is --expression=...).
var sedLong = []string{"--expression", "--file", "--in-place", "--line-length", "--null-data", "--zero-terminated",
	"--quiet", "--silent", "--regexp-extended", "--separate", "--sandbox", "--unbuffered", "--posix", "--debug",
	"--follow-symlinks", "--binary", "--help", "--version"}

// sedOption reads a sed option word that starts with head (lit: the whole
// word), flags bundled as getopt reads them (-ne SCRIPT, -nes/a/b/ with the
// script attached; -ie is -i with the suffix "e"): 'e' for a script (-e,
// --expression), 'f' for a script file, 'v' for -l, 'S' for --sandbox, 0
// for flags; and whether the value is attached.
func sedOption(head string, lit bool) (byte, bool) {
	if strings.HasPrefix(head, "--") {
		name, _, eq := strings.Cut(head, "=")
		attached := eq || !lit
		switch getoptLong(name, sedLong) {
		case "--expression":
			return 'e', attached
		case "--file":
			return 'f', attached
		case "--line-length":
			return 'v', attached
		case "--sandbox":
			return 'S', false
		}
		return 0, false
	}
	for k := 1; k < len(head); k++ {
		switch c := head[k]; c {
		case 'e', 'f':
			return c, k < len(head)-1 || !lit
		case 'l':
			return 'v', k < len(head)-1 || !lit
		case 'i':
			return 0, false // the rest is its suffix
		}
	}
	return 0, false
}

// gitCommandKeys are the git configuration keys whose values git runs as
// shell commands, or that lead it to run one (a hooks directory, an
// included file, a transport allowed): "a.b" is the key b of section a,
// "a.*" any key of section a, "a.*.b" the key b of any subsection of a.
var gitCommandKeys = []string{
	"core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.fsmonitor", "core.hookspath",
	"core.gitproxy", "core.alternaterefscommand", "sequence.editor", "diff.external", "diff.*.textconv",
	"diff.*.command", "difftool.*.cmd", "mergetool.*.cmd", "merge.*.driver", "filter.*.clean",
	"filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper", "gpg.program",
	"gpg.*.program", "pager.*", "alias.*", "hook.*.command", "uploadpack.packobjectshook",
	"remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs", "include.path", "includeif.*.path",
	"init.templatedir", "web.browser", "browser.*.cmd", "browser.*.path", "man.*.cmd", "man.*.path",
	"sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd", "sendemail.smtpserver",
	"protocol.allow", "protocol.*.allow", "safe.directory",
	"trailer.*.command", "trailer.*.cmd", "interactive.difffilter", "submodule.*.update", "gpg.*.defaultkeycommand",
	"imap.tunnel", "instaweb.httpd", "guitool.*.cmd", "difftool.*.path", "mergetool.*.path",
}

// gitGlobalTakes are git's options before the subcommand that take the
// next argument as their value (git --git-dir DIR -c ... log).
var gitGlobalTakes = []string{"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds"}

// gitSubcommandCode lists git subcommands' options whose values git runs
// with a shell: the upload-pack or receive-pack command a local or ssh
// remote is reached through, rebase's --exec, filter-branch's filters,
// difftool's command, grep's pager, send-email's commands; and the
// template directory of clone and init, whose hooks git runs.
var gitSubcommandCode = map[string]*codeOptions{
	"ls-remote":  {long: []string{"--upload-pack", "--exec"}},
	"fetch":      {long: []string{"--upload-pack"}},
	"pull":       {long: []string{"--upload-pack"}},
	"fetch-pack": {long: []string{"--upload-pack", "--exec"}},
	"clone":      {long: []string{"--upload-pack", "--template"}, short: "u", takes: "obcj"},
	"init":       {long: []string{"--template"}},
	"push":       {long: []string{"--receive-pack", "--exec"}, takes: "o"},
	"send-pack":  {long: []string{"--receive-pack", "--exec"}},
	"archive":    {long: []string{"--exec"}, takes: "o"},
	"rebase":     {long: []string{"--exec"}, short: "x", takes: "sSX"},
	"difftool":   {long: []string{"--extcmd"}, short: "x", takes: "t"},
	"grep":       {long: []string{"--open-files-in-pager"}, short: "O", takes: "eABCfm"},
	"filter-branch": {long: []string{"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
		"--commit-filter", "--tag-name-filter"}},
	"send-email": {long: []string{"--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"}},
}

// gitCommandKey reports whether key (section[.subsection].name) is one of
// gitCommandKeys; sections and names are matched without regard to case.
func gitCommandKey(key string) bool {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return true // not a key git reads: judged as one it may run
	}
	section, name := strings.ToLower(key[:first]), strings.ToLower(key[last+1:])
	sub := first != last
	for _, k := range gitCommandKeys {
		p := strings.Split(k, ".")
		switch {
		case p[0] != section:
		case len(p) == 2 && p[1] == "*":
			return true
		case len(p) == 2 && !sub && p[1] == name:
			return true
		case len(p) == 3 && sub && p[2] == name:
			return true
		}
	}
	return false
}

// gitConfigCode returns the arguments of a git command line (from start,
// after "git") that set configuration a placeholder may turn into a
// command git runs: the values of git -c KEY=VALUE before the
// subcommand, and of clone's -c/--config, where the key is one of
// gitCommandKeys or holds a placeholder (the model chooses it).
func gitConfigCode(args []argTemplate, start int) []int {
	var code []int
	judge := func(j int, prefix string) {
		at := &args[j]
		if len(at.placeholders()) == 0 {
			return
		}
		head := strings.TrimPrefix(headLiteral(at), prefix)
		eq := strings.IndexByte(head, '=')
		if eq < 0 || gitCommandKey(head[:eq]) {
			code = append(code, j)
		}
	}
	j := start
	// Global options up to the subcommand: -c KEY=VALUE, -C DIR and
	// the others of gitGlobalTakes take the next argument; the rest take
	// theirs attached or none. --config-env and --exec-path are code with
	// any placeholder: the model would choose where a key's value (or
	// git's programs) come from.
	for ; j < len(args); j++ {
		s, ok := args[j].literal()
		head := headLiteral(&args[j])
		if !ok {
			if strings.HasPrefix(head, "--config-env=") || strings.HasPrefix(head, "--exec-path") {
				code = append(code, j)
			}
			if strings.HasPrefix(head, "-") {
				continue
			}
			return code // the subcommand is a placeholder
		}
		if slices.Contains(gitGlobalTakes, s) {
			if j+1 < len(args) {
				switch s {
				case "-c":
					judge(j+1, "")
				case "--config-env":
					code = append(code, j+1)
				}
			}
			j++
			continue
		}
		if !strings.HasPrefix(s, "-") || s == "--" {
			break
		}
	}
	if j >= len(args) {
		return code
	}
	sub, _ := args[j].literal()
	if o := gitSubcommandCode[sub]; o != nil {
		sc, _ := optionCode(args, j+1, o) // git's have no lists
		code = append(code, sc...)
	}
	if sub == "submodule" && j+2 < len(args) {
		// submodule foreach CMD: one command word is run with a shell
		// (several are run as an argv).
		foreach := j + 1 // after submodule's own options (--quiet)
		for foreach < len(args)-1 {
			if s, ok := args[foreach].literal(); !ok || !strings.HasPrefix(s, "-") {
				break
			}
			foreach++
		}
		if s, _ := args[foreach].literal(); s == "foreach" {
			var words []int
			for k := foreach + 1; k < len(args); k++ {
				if s, ok := args[k].literal(); !ok || !strings.HasPrefix(s, "-") {
					words = append(words, k)
				}
			}
			if len(words) == 1 {
				code = append(code, words[0])
			}
		}
	}
	if sub != "clone" {
		return code
	}
	for j++; j < len(args); j++ {
		s, ok := args[j].literal()
		switch {
		case ok && s == "--":
			return code
		case ok && (s == "-c" || s == "--config"):
			if j+1 < len(args) {
				judge(j+1, "")
			}
			j++
		case strings.HasPrefix(headLiteral(&args[j]), "--config="):
			judge(j, "--config=")
		}
	}
	return code
}

// codeOptions are a program's options whose values it runs as code (a
// shell command line, an editor's or debugger's commands).
type codeOptions struct {
	// long are long options whose value is code, "--name VALUE" or
	// "--name=VALUE"; any abbreviation of one is read as it (getopt_long
	// takes an unambiguous one, and an ambiguous one is refused anyway).
	long []string
	// not are long options that abbreviate none of long though they
	// start like one (tar --checkpoint, a prefix of --checkpoint-action).
	not []string
	// longTakes are other long options that take the next argument as
	// their value, which is not code (hyperfine --export-json FILE).
	longTakes []string
	// short are one-letter options whose value is code, attached (-Icmd)
	// or the next argument, bundled after flags (-xIf CMD: -I's value is
	// the next argument); takes are the other one-letter options that take
	// a value, which ends a bundle.
	short, takes string
	// words are options spelt with one dash whose value is code (gdb -ex,
	// zip -TT), also written with two dashes or "=VALUE" attached.
	words []string
	// wordTakes are other one-dash words that take the next argument
	// (sqlite3 -separator X).
	wordTakes []string
	// skipOperands is how many operands come before the code ones
	// (sqlite3 DB SQL...: one).
	skipOperands int
	// plus: an argument "+CMD" is code (vim +CMD, less +CMD).
	plus bool
	// operands: every operand is a command line (hyperfine CMD...).
	operands bool
	// oldStyle: a first argument without a dash bundles letters whose
	// values are the next arguments in turn (tar xIf CMD ARCHIVE).
	oldStyle bool
	// lists are options that take a name and a list of values, each
	// substituted for {name} in the program's commands (hyperfine -L NAME
	// VALUES, --parameter-list; -LNAME VALUES): the list is code even as
	// a whole placeholder, since it is spliced into a command the author
	// wrote.
	lists []string
	// untilOperand: the first operand is a program of the program's own,
	// whose options are not its (npx eslint -c FILE).
	untilOperand bool
}

// programCode lists the programs whose option values are code, by name.
var programCode = map[string]*codeOptions{
	"tar": tarOptions, "gtar": tarOptions,
	"rsync": {long: []string{"--rsh", "--rsync-path"}, short: "e", takes: "BfTM"},
	"vim":   vimOptions, "vi": vimOptions, "nvim": vimOptions, "ex": vimOptions, "view": vimOptions, "vimdiff": vimOptions, "gvim": vimOptions,
	"gdb":  {words: []string{"-ex", "-iex", "-eval-command", "-init-eval-command"}},
	"zip":  {words: []string{"-TT", "--unzip-command"}},
	"less": {plus: true},
	// sqlite3 DB SQL...: the SQL and -cmd's dot-commands, where .shell,
	// .system and the shell's edit(TEXT, EDITOR) run commands.
	"sqlite3": {words: []string{"-cmd"}, operands: true, skipOperands: 1, wordTakes: []string{"-separator", "-newline",
		"-nullvalue", "-vfs", "-mmap", "-pagecache", "-lookaside", "-maxsize", "-heap", "-init", "-escape"}},
	"hyperfine": {long: []string{"--prepare", "--setup", "--cleanup", "--conclude", "--shell"}, short: "pscS", takes: "wmMrPuno",
		longTakes: []string{"--warmup", "--min-runs", "--max-runs", "--runs", "--style", "--sort", "--time-unit", "--export-asciidoc",
			"--export-csv", "--export-json", "--export-markdown", "--export-orgmode", "--output", "--input", "--command-name"},
		operands: true, lists: []string{"-L", "--parameter-list"}},
	// man -P PAGER, --pager=, --html=BROWSER (-HBROWSER): man runs them
	// with a shell.
	"man": {long: []string{"--pager", "--html"}, short: "PH", takes: "CRLmMSseErp"},
	// SQL clients: psql's \! and mysql's system run shell commands from
	// the SQL (the sqlite3 rule); mysql --pager runs a command.
	"psql": {long: []string{"--command"}, short: "c", takes: "dfhpUvLoTFPR"},
	// npx -c/--call runs a shell line, before the package's program.
	"npx":     {long: []string{"--call"}, short: "c", takes: "pw", longTakes: []string{"--package", "--workspace", "--prefix", "--registry"}, untilOperand: true},
	"mysql":   mysqlOptions,
	"mariadb": mysqlOptions,
	// split --filter=COMMAND runs it with a shell; install -s
	// --strip-program=PROGRAM and sort --compress-program=PROGRAM run
	// the program.
	"split":   {long: []string{"--filter"}, takes: "abClnt"},
	"install": {long: []string{"--strip-program"}, takes: "gmoSt"},
	"sort":    {long: []string{"--compress-program"}, takes: "kotST"},
}

// mysqlOptions: mysql's and mariadb's SQL (-e, --execute, --init-command)
// and --pager's command.
var mysqlOptions = &codeOptions{long: []string{"--execute", "--init-command", "--pager"}, short: "e", takes: "uhPDS"}

var (
	// tarOptions are GNU tar's options whose values it runs with a
	// shell; --checkpoint-action's value is judged by tarCheckpoint.
	tarOptions = &codeOptions{
		long: []string{"--to-command", "--use-compress-program", "--rsh-command", "--rmt-command", "--info-script",
			"--new-volume-script", "--checkpoint-action"},
		not:      []string{"--checkpoint"},
		short:    "IF",
		takes:    "bCfgHKLNTVX",
		oldStyle: true,
	}
	// vimOptions: vim does not bundle letters (-es is Ex mode, silent).
	vimOptions = &codeOptions{long: []string{"--cmd"}, short: "c", takes: "iTtuUwW", plus: true}
)

// optionCode returns the arguments of a program (from start) that its
// codeOptions say are code, up to a "--".
func optionCode(args []argTemplate, start int, o *codeOptions) (code, spliced []int) {
	operand := 0 // operands seen
	next := func(j int) {
		if j < len(args) {
			code = append(code, j)
		}
	}
	for j := start; j < len(args); j++ {
		s, lit := args[j].literal()
		head := headLiteral(&args[j])
		if lit && s == "--" {
			if o.operands {
				// hyperfine -- CMD...: operands still, and commands.
				for k := j + 1; k < len(args); k++ {
					code = append(code, k)
				}
			}
			break
		}
		if o.untilOperand && !strings.HasPrefix(head, "-") {
			break // npx eslint -c FILE: eslint's -c
		}
		switch {
		case lit && slices.Contains(o.lists, s):
			// -L NAME VALUES: the values go into commands.
			if j+2 < len(args) {
				spliced = append(spliced, j+2)
			}
			j += 2
		case slices.ContainsFunc(o.lists, func(l string) bool {
			return strings.HasPrefix(head, l+"=") || len(l) == 2 && strings.HasPrefix(head, l) || !lit && head == l
		}):
			// -LNAME VALUES, --parameter-list=NAME VALUES.
			if j+1 < len(args) {
				spliced = append(spliced, j+1)
			}
			j++
		case o.plus && strings.HasPrefix(head, "+"):
			code = append(code, j)
		case slices.ContainsFunc(o.words, func(w string) bool { return wordOption(head, lit, w) }):
			if lit && !strings.Contains(s, "=") && slices.ContainsFunc(o.words, func(w string) bool { return s == w || s == "-"+w }) {
				next(j + 1)
				j++
			} else {
				code = append(code, j)
			}
		case lit && slices.ContainsFunc(o.wordTakes, func(w string) bool { return s == w || s == "-"+w }):
			j++
		case strings.HasPrefix(head, "--"):
			name, _, eq := strings.Cut(head, "=")
			if !slices.Contains(o.not, name) && len(name) > 3 && slices.ContainsFunc(o.long, func(l string) bool { return strings.HasPrefix(l, name) }) {
				if eq || !lit {
					code = append(code, j)
				} else {
					next(j + 1)
					j++
				}
			} else if lit && !eq && slices.Contains(o.longTakes, name) {
				j++
			}
		case len(head) > 1 && head[0] == '-':
			for k := 1; k < len(head); k++ {
				c := head[k]
				if strings.IndexByte(o.short, c) >= 0 {
					if k < len(head)-1 || !lit {
						code = append(code, j)
					} else {
						next(j + 1)
						j++
					}
					break
				}
				if strings.IndexByte(o.takes, c) >= 0 {
					if k == len(head)-1 && lit {
						j++
					}
					break
				}
			}
		case o.oldStyle && j == start && lit && s != "":
			// tar xIf CMD ARCHIVE: each letter that takes a value takes
			// the next argument in turn.
			n := 0
			for k := 0; k < len(s); k++ {
				switch {
				case strings.IndexByte(o.short, s[k]) >= 0:
					n++
					next(j + n)
				case strings.IndexByte(o.takes, s[k]) >= 0:
					n++
				}
			}
			j += n
		case o.operands:
			if operand >= o.skipOperands && len(args[j].placeholders()) > 0 {
				code = append(code, j)
			}
			operand++
		}
	}
	if o == tarOptions {
		code = slices.DeleteFunc(code, func(j int) bool { return !tarCheckpoint(&args[j], j > 0 && isCheckpointAction(&args[j-1])) })
	}
	return code, spliced
}

// wordOption reports whether an argument starting with head is the
// one-dash word option w (gdb -ex), spelt with one or two dashes, with
// its value attached by "=" or not.
func wordOption(head string, lit bool, w string) bool {
	for _, p := range []string{w, "-" + w} {
		if strings.HasPrefix(w, "--") && p != w {
			continue
		}
		if head == p && lit || strings.HasPrefix(head, p+"=") || head == p && !lit {
			return true
		}
	}
	return false
}

// isCheckpointAction reports whether at is tar's --checkpoint-action (or
// an abbreviation) without its value.
func isCheckpointAction(at *argTemplate) bool {
	s, ok := at.literal()
	return ok && len(s) > len("--checkpoint") && strings.HasPrefix("--checkpoint-action", s)
}

// tarCheckpoint reports whether tar's argument at, flagged by optionCode,
// is code: the value of --checkpoint-action is code only when it is (or
// may be made by the model) exec=CMD; sep says the value is the whole
// argument, not attached after "=".
func tarCheckpoint(at *argTemplate, sep bool) bool {
	head := headLiteral(at)
	if !sep {
		name, value, eq := strings.Cut(head, "=")
		if !eq || len(name) <= len("--checkpoint") || !strings.HasPrefix("--checkpoint-action", name) {
			return true // another option
		}
		head = value
	}
	return head == "" || strings.HasPrefix(head, "exec")
}

// envCommandVars are environment variables whose values programs run as
// shell commands, load as code, or search for programs; envCommandPrefixes
// begin the names of families of them (GIT_CONFIG_VALUE_0, LD_AUDIT,
// npm_config_script_shell).
var (
	envCommandVars = []string{
		"GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
		"GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
		"GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4",
		"IFS", "PATH", "SHELL", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "NODE_OPTIONS", "NODE_PATH",
		"PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"JDK_JAVA_OPTIONS", "BROWSER", "LESSOPEN", "LESSCLOSE", "MAKEFLAGS", "MAKEFILES", "CC", "CXX", "CPP",
		"LD", "AR", "FC", "RUSTC", "RUSTC_WRAPPER", "RUSTDOCFLAGS", "RUSTFLAGS", "GOFLAGS", "CGO_CFLAGS",
		"CGO_LDFLAGS", "CFLAGS", "CXXFLAGS", "LDFLAGS",
		// Options or commands a program reads from its variable (tar's
		// --to-command in TAR_OPTIONS, rsync's remote shell), and the
		// directories whose configuration a program loads and may run
		// (a repository's core.fsmonitor, ~/.gitconfig).
		"TAR_OPTIONS", "GNUMAKEFLAGS", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "GIT_DIR", "GIT_COMMON_DIR", "HOME", "XDG_CONFIG_HOME",
		"ZDOTDIR", "SUDO_EDITOR", "SUDO_ASKPASS", "SYSTEMD_PAGER", "SYSTEMD_EDITOR", "FCEDIT", "GCONV_PATH", "PERL5DB",
		"PSQL_PAGER", "PSQL_EDITOR",
	}
	envCommandPrefixes = []string{"GIT_CONFIG", "LD_", "DYLD_", "NPM_CONFIG_", "npm_config_", "CARGO_"}
)

// envCode returns the arguments of env or sudo (prog, from start, after
// its name) that set a variable a placeholder may turn into code:
// NAME={v} where NAME is one of envCommandVars or envCommandPrefixes, and
// {n}=v where the model chooses the name, or NAME is one a git
// --config-env later in the argv reads a configuration value from
// (configEnv). Its options are read with the classifier's grammar for it
// (env -u NAME, --ch DIR, sudo -u USER). A whole "{assignment}" is the
// author handing it over; the assignments after it are read on.
func envCode(args []argTemplate, start int, prog string) []int {
	var code []int
	w, _ := classify.Default().Wrapper(prog)
	fromConfig := configEnv(args)
	for j := start; j < len(args); j++ {
		at := &args[j]
		s, lit := at.literal()
		takesNext := false
		if lit && w != nil && len(s) > 1 && s[0] == '-' {
			_, attached, takes, _ := wrapperOption(w, s, true)
			takesNext = takes && !attached
		}
		switch {
		case takesNext:
			j++ // an option and its value (getopt_long takes --ch for --chdir)
			continue
		case lit && strings.HasPrefix(s, "-"):
			continue
		case at.whole:
			continue // an assignment, or the command: the author's choice
		}
		head := headLiteral(at)
		if lit {
			head = s
		}
		eq := strings.IndexByte(head, '=')
		if !lit && eq < 0 && strings.HasPrefix(head, "-") {
			continue
		}
		if lit && eq < 0 {
			return code // the command
		}
		if lit {
			continue
		}
		if eq < 0 {
			code = append(code, j) // {n}=v: the model names the variable
			continue
		}
		name := head[:eq]
		if codeVariable(name) || slices.Contains(fromConfig, name) {
			code = append(code, j)
		}
	}
	return code
}

// codeVariable reports whether name is one of envCommandVars or begins
// with one of envCommandPrefixes.
func codeVariable(name string) bool {
	if slices.Contains(envCommandVars, name) {
		return true
	}
	for _, p := range envCommandPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// makeShellVars are make's variables that choose the shell its recipes
// run with, and its flags, and the make that recursive recipes run
// ($(MAKE) -C sub).
var makeShellVars = []string{".SHELLFLAGS", "MAKESHELL", "MAKE"}

// makeVariableCode returns the arguments of make (from start, after its
// name) that set on its command line (NAME=value, or --eval=NAME=value;
// any flavour: NAME:=, ::=, :::=, +=, ?=, with spaces around the name) a
// variable a placeholder may turn into the program make runs, as envCode
// does for env: SHELL, CC and the other codeVariable names, and
// .SHELLFLAGS, MAKESHELL, MAKE; NAME != value, whose value make runs with
// the shell when it reads it, whatever the name; and {n}=v, where the
// model names the variable. Other variables keep the charset
// checkMakeValue gives them.
func makeVariableCode(args []argTemplate, start int) []int {
	var code []int
	for j := start; j < len(args); j++ {
		at := &args[j]
		if at.whole || len(at.placeholders()) == 0 {
			continue
		}
		head := headLiteral(at)
		if head == "" {
			if s := at.parts[len(at.parts)-1].lit; len(at.parts) > 1 && strings.Contains(s, "=") {
				code = append(code, j) // {n}=v
			}
			continue
		}
		if name, value, eq := strings.Cut(head, "="); eq && len(name) > 3 && strings.HasPrefix("--eval", name) {
			head = value
		} else if makeEvalBundle(head) {
			head = head[strings.IndexByte(head, 'E')+1:] // -ESHELL={x}, -sESHELL={x}
		}
		name, _, eq := strings.Cut(head, "=")
		if !eq || strings.HasPrefix(name, "-") {
			continue
		}
		if strings.HasSuffix(name, "!") {
			code = append(code, j) // NAME != CMD runs CMD
			continue
		}
		// SHELL:=, SHELL +=, "override SHELL =": the name is the last
		// word before the operator.
		name = strings.TrimRight(name, ":+? \t")
		if f := strings.Fields(name); len(f) > 0 {
			name = f[len(f)-1]
		}
		if codeVariable(name) || slices.Contains(makeShellVars, name) {
			code = append(code, j)
		}
	}
	return code
}

// setenvLaunchers set a variable for their command with -E or --setenv,
// as systemd-run does; envOptionLaunchers with --env=NAME=VALUE.
var (
	setenvLaunchers    = []string{"systemd-run", "run0", "systemd-nspawn", "machinectl"}
	envOptionLaunchers = []string{"firejail", "flatpak-spawn", "flatpak"}
)

// setenvCode returns the arguments of a launcher that sets variables for
// its command with an option (from start, after its name) that set a
// variable a placeholder may turn into code, as envCode does for env:
// bwrap --setenv NAME VALUE, systemd-run --setenv=NAME=VALUE (-E, or
// --setenv NAME=VALUE; run0, systemd-nspawn and machinectl alike),
// firejail --env=NAME=VALUE (flatpak-spawn and flatpak alike). A whole
// placeholder is the author's choice.
func setenvCode(args []argTemplate, start int, prog string) []int {
	var code []int
	if slices.Contains(envOptionLaunchers, prog) {
		for j := start; j < len(args); j++ {
			s, lit := args[j].literal()
			switch head := headLiteral(&args[j]); {
			case lit && s == "--env" && j+1 < len(args):
				if at := &args[j+1]; !at.whole && len(at.placeholders()) > 0 {
					if name, _, eq := strings.Cut(headLiteral(at), "="); !eq || codeVariable(name) {
						code = append(code, j+1)
					}
				}
				j++
			case strings.HasPrefix(head, "--env=") && !lit:
				if name, _, eq := strings.Cut(strings.TrimPrefix(head, "--env="), "="); !eq || codeVariable(name) {
					code = append(code, j)
				}
			}
		}
		return code
	}
	if slices.Contains(setenvLaunchers, prog) {
		prog = "systemd-run"
	}
	judge := func(j int, prefix string) {
		at := &args[j]
		if at.whole || len(at.placeholders()) == 0 {
			return
		}
		head := strings.TrimPrefix(headLiteral(at), prefix)
		name, _, eq := strings.Cut(head, "=")
		if !eq || codeVariable(name) {
			code = append(code, j)
		}
	}
	for j := start; j < len(args); j++ {
		s, lit := args[j].literal()
		head := headLiteral(&args[j])
		switch {
		case prog == "bwrap" && lit && s == "--setenv" && j+2 < len(args):
			name, ok := args[j+1].literal()
			switch {
			case !ok:
				code = append(code, j+1) // the model names the variable
			case codeVariable(name) && !args[j+2].whole && len(args[j+2].placeholders()) > 0:
				code = append(code, j+2)
			}
			j += 2
		case prog == "systemd-run" && lit && (s == "-E" || s == "--setenv") && j+1 < len(args):
			judge(j+1, "")
			j++
		case prog == "systemd-run" && strings.HasPrefix(head, "--setenv="):
			judge(j, "--setenv=")
		case prog == "systemd-run" && strings.HasPrefix(head, "-E") && !lit:
			judge(j, "-E")
		}
	}
	return code
}

// sshCommandOptions are ssh_config keywords whose values ssh runs with a
// shell (ProxyCommand, LocalCommand, KnownHostsCommand, RemoteCommand on
// the server), loads as code (PKCS11Provider, SecurityKeyProvider), or
// that run a command to decide (Match exec), lower-cased.
var sshCommandOptions = []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand",
	"pkcs11provider", "securitykeyprovider", "match", "include"}

// sshOptionCode returns the arguments of ssh, scp or sftp (from start)
// that give an -o option a placeholder may turn into code: -o
// "ProxyCommand=nc {host} 22" (or -oKEY=VALUE, or "KEY VALUE"), and any
// -o whose keyword holds a placeholder.
func sshOptionCode(args []argTemplate, start int) []int {
	var code []int
	judge := func(j int, prefix string) {
		at := &args[j]
		if at.whole || len(at.placeholders()) == 0 {
			return
		}
		head := strings.TrimPrefix(headLiteral(at), prefix)
		key := head
		if k := strings.IndexAny(head, "= \t"); k >= 0 {
			key = head[:k]
		} else {
			code = append(code, j) // the keyword holds a placeholder
			return
		}
		if slices.Contains(sshCommandOptions, strings.ToLower(key)) {
			code = append(code, j)
		}
	}
	for j := start; j < len(args); j++ {
		s, lit := args[j].literal()
		head := headLiteral(&args[j])
		switch {
		case lit && s == "--":
			return code
		case lit && j+1 < len(args) && len(s) > 1 && s[0] == '-' && s[len(s)-1] == 'o' && !strings.ContainsAny(s[1:len(s)-1], "-bBcDeEFiIJlLmOopPQRSwW"):
			judge(j+1, "") // -o, or bundled after flags: -vo
			j++
		case strings.HasPrefix(head, "-o") && !lit:
			judge(j, "-o")
		}
	}
	return code
}

// configEnv returns the variables a git --config-env KEY=VAR (or
// --config-env=KEY=VAR) anywhere in args reads a configuration value
// from: git -c KEY=VALUE with VALUE taken from the environment.
func configEnv(args []argTemplate) []string {
	var names []string
	for j := range args {
		s, ok := args[j].literal()
		if !ok {
			continue
		}
		v, found := strings.CutPrefix(s, "--config-env=")
		if !found && j > 0 {
			if prev, ok := args[j-1].literal(); ok && prev == "--config-env" {
				v, found = s, true
			}
		}
		if _, name, eq := strings.Cut(v, "="); found && eq {
			names = append(names, name)
		}
	}
	return names
}

// prefixes returns the prefixes of the long option o of at least min
// bytes, o itself last: the abbreviations getopt_long takes for it.
func prefixes(o string, min int) []string {
	var out []string
	for n := min; n <= len(o); n++ {
		out = append(out, o[:n])
	}
	return out
}

// headLiteral returns the literal text an argument starts with, "" when it
// starts with a placeholder.
func headLiteral(at *argTemplate) string {
	if len(at.parts) == 0 || at.parts[0].name != "" {
		return ""
	}
	return at.parts[0].lit
}

// shellScript returns the index of the script a shell reads from its -c
// option (bash -c SCRIPT, sh -ec SCRIPT, bash -o pipefail -c -- SCRIPT),
// or -1 when it runs none.
func shellScript(args []argTemplate, start int, valueFlags []string) int {
	code := false
	for j := start; j < len(args); j++ {
		s, ok := args[j].literal()
		switch {
		case !ok || s == "" || s[0] != '-' && s[0] != '+':
			// The first operand: the script with -c, else a script file.
			if code {
				return j
			}
			return -1
		case s == "--" || s == "-":
			if !code {
				return -1
			}
			if j+1 < len(args) {
				return j + 1
			}
			return -1
		case slices.Contains(valueFlags, s) || s == "-o" || s == "+o" || s == "-O" || s == "+O" || s == "--rcfile" || s == "--init-file":
			j++
		case s[0] == '-' && s[1] != '-' && strings.IndexByte(s, 'c') > 0:
			code = true
		}
	}
	return -1
}

// inlineCode returns the index of the argument holding an interpreter's
// inline code: the one after a code flag (python3 -c CODE, deno eval
// CODE), or the flag's own argument when the code is attached to it
// (-cCODE, --eval=CODE); -1 when the interpreter runs a file.
func inlineCode(args []argTemplate, start int, ir *classify.InterpreterRule) int {
	for j := start; j < len(args); j++ {
		at := &args[j]
		s, ok := at.literal()
		if !ok {
			// A placeholder argument: its literal head may be a code flag
			// with the code attached.
			if len(at.parts) > 0 && at.parts[0].name == "" && attachedCode(at.parts[0].lit, ir) {
				return j
			}
			return -1
		}
		switch {
		case slices.Contains(ir.CodeFlags, s) || bundledCode(s, ir.CodeFlags):
			if j+1 < len(args) {
				return j + 1
			}
			return -1
		case s == "--" || s == "" || s[0] != '-':
			return -1
		case slices.Contains(ir.ValueFlags, s):
			j++
		}
	}
	return -1
}

// bundledCode reports whether s bundles one-letter flags ending with a code
// flag, whose code is the next argument: perl -ne CODE, python3 -Bc CODE.
func bundledCode(s string, flags []string) bool {
	if len(s) < 3 || s[0] != '-' || s[1] == '-' {
		return false
	}
	for _, f := range flags {
		if len(f) == 2 && f[0] == '-' && s[len(s)-1] == f[1] {
			return true
		}
	}
	return false
}

// attachedCode reports whether s starts with a code flag that holds its
// code in the same argument: "-c..." for a one-letter flag, "--eval=...".
//
// One-letter flags bundle: "-neprint ..." is -n -e with the code
// attached (perl, ruby), "-Bcprint(...)" -B -c (python); a flag that takes
// a value (-M, -I, -m, -W) or rewrites files in place (-i) takes the rest
// of the word, which is then not code.
func attachedCode(s string, ir *classify.InterpreterRule) bool {
	for _, f := range ir.CodeFlags {
		if strings.HasPrefix(f, "--") && strings.HasPrefix(s, f+"=") {
			return true
		}
	}
	if len(s) < 2 || s[0] != '-' || s[1] == '-' {
		return false
	}
	for k := 1; k < len(s); k++ {
		flag := "-" + s[k:k+1]
		if slices.Contains(ir.CodeFlags, flag) {
			return true
		}
		if slices.Contains(ir.ValueFlags, flag) || slices.Contains(ir.InPlaceFlags, flag) {
			return false
		}
	}
	return false
}
