package classify

import (
	"encoding/json"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// writtenMakefile judges the recipes of a makefile the line wrote with
// text it spells out (printf 'x:\n\trm -rf ~\n' > Makefile && make): make
// runs them with a shell, so they are judged as the shell code they are,
// as sh x.sh judges what the line wrote to x.sh. The makefile is -f's
// (--file, --makefile), else GNUmakefile, makefile or Makefile; with -C
// (another directory) none is known.
func (s *state) writtenMakefile(args []word, j *judgement) info {
	var files []string
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "-C" || a == "--directory" || strings.HasPrefix(a, "--directory=") || strings.HasPrefix(a, "-C"):
			return info{}
		case a == "-f" || a == "--file" || a == "--makefile":
			if k+1 < len(args) {
				k++
				files = append(files, args[k].s)
			}
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			files = append(files, a[strings.IndexByte(a, '=')+1:])
		case strings.HasPrefix(a, "-f"):
			files = append(files, a[2:])
		}
	}
	if len(files) == 0 {
		files = []string{"GNUmakefile", "makefile", "Makefile"}
	}
	if s.fetchedTaskFile("make", files, j) || s.scripts == nil {
		return info{}
	}
	var inf info
	for _, f := range files {
		text, ok := s.script(f)
		if !ok {
			continue
		}
		var recipes []string
		for _, l := range strings.Split(text, "\n") {
			if r, ok := strings.CutPrefix(l, "\t"); ok {
				// @ (silent), - (errors ignored) and + only change how
				// the line runs.
				recipes = append(recipes, strings.TrimLeft(r, "@+- \t"))
			}
		}
		if code := strings.Join(recipes, "\n"); code != "" {
			if _, err := s.c.parse(code); err == nil {
				inf = inf.or(s.reparse(code, "make "+f))
			}
		}
	}
	return inf
}

// runnerFiles reads a task runner's options that name its file (files:
// just's -f and --justfile, task's -t and --taskfile) and its directory
// (dirs: -d), in each spelling: -f FILE, -fFILE, -f=FILE, --justfile
// FILE, --justfile=FILE. A name known only when it runs is left out.
func runnerFiles(args []word, files, dirs []string) (named []string, dir *word) {
	for k := 0; k < len(args); k++ {
		a := args[k]
		var val *word
		var isDir bool
		for _, o := range slices.Concat(files, dirs) {
			switch {
			case a.s == o:
				if k+1 < len(args) {
					k++
					val = &args[k]
				}
			case strings.HasPrefix(a.s, o+"="):
				v := a.cut(len(o) + 1)
				val = &v
			case len(o) == 2 && strings.HasPrefix(a.s, o) && !strings.HasPrefix(a.s, "--"):
				v := a.cut(2) // -fFILE
				val = &v
			default:
				continue
			}
			isDir = slices.Contains(dirs, o)
			break
		}
		switch {
		case val == nil:
		case isDir:
			dir = val
		case !val.unknown():
			named = append(named, val.s)
		}
	}
	return named, dir
}

// fetchedTaskFile judges a task file (a makefile, justfile, Taskfile,
// deno.json, package.json: one of files) that a downloader on the line
// wrote (curl -o justfile URL, curl -O URL/package.json, scp
// host:Makefile .) and runner then runs: its commands are downloaded
// code, as sh x.sh of a downloaded x.sh is (Defaults.DownloadExec). It
// reports whether one was.
func (s *state) fetchedTaskFile(runner string, files []string, j *judgement) bool {
	for _, f := range files {
		if s.fetched[path.Clean(f)] {
			j.add(s.c.rules.Defaults.DownloadExec, runner+" runs the commands of "+f+", which a downloader wrote on this line: they are downloaded code, as a downloaded script run by sh is")
			return true
		}
	}
	return false
}

// writtenCode judges code, shell code a task runner runs from a file
// the line wrote, as the shell code it is (via names the file). A text
// that does not parse as a whole (a recipe run by another interpreter
// beside shell ones) is judged a line at a time, as just runs a recipe.
func (s *state) writtenCode(code, via string) info {
	if strings.TrimSpace(code) == "" {
		return info{}
	}
	if _, err := s.c.parse(code); err == nil {
		return s.reparse(code, via)
	}
	var inf info
	for _, l := range strings.Split(code, "\n") {
		if _, err := s.c.parse(l); err == nil && strings.TrimSpace(l) != "" {
			inf = inf.or(s.reparse(l, via))
		}
	}
	return inf
}

// writtenJustfile judges the recipes of a justfile the line wrote with
// text it spells out (printf 'x:\n\trm -rf ~\n' > justfile && just), as
// writtenMakefile does a makefile's: the recipe lines (indented) and the
// backticks of its assignments (x := `cmd`), which just runs with a
// shell. The justfile is -f's (--justfile), else justfile, Justfile or
// .justfile; with -d (another directory) none is known.
func (s *state) writtenJustfile(args []word, j *judgement) info {
	files, dir := runnerFiles(args, []string{"-f", "--justfile"}, []string{"-d", "--working-directory"})
	if dir != nil && len(files) == 0 {
		return info{} // just -d wants -f too
	}
	if len(files) == 0 {
		files = []string{"justfile", "Justfile", ".justfile", "JUSTFILE"}
	}
	if s.fetchedTaskFile("just", files, j) || s.scripts == nil {
		return info{}
	}
	if dir != nil {
		// The recipes run in -d's directory (-f's file is where it is).
		saved := s.cwd.save()
		defer s.cwd.restore(saved)
		s.chdir(*dir)
	}
	var inf info
	for _, f := range files {
		text, ok := s.script(f)
		if !ok {
			continue
		}
		var code []string
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				// @ (quiet) and - (errors ignored) only change how the
				// line runs.
				code = append(code, strings.TrimLeft(l, "@- \t"))
				continue
			}
			for parts := strings.Split(l, "`"); len(parts) > 2; parts = parts[2:] {
				code = append(code, parts[1])
			}
			// x := shell("cmd") runs cmd with a shell, as a backtick does.
			for _, m := range justShellRe.FindAllStringSubmatch(l, -1) {
				code = append(code, m[1]+m[2])
			}
		}
		// {{home_directory()}} and {{env_var("HOME")}} are the home.
		inf = inf.or(s.writtenCode(justHomeRe.ReplaceAllString(strings.Join(code, "\n"), "~"), "just "+f))
	}
	return inf
}

// justHomeRe matches just's expressions that are the home directory
// ({{home_directory()}}, {{env_var("HOME")}}, {{env('HOME')}}), and
// taskHomeRe Task's ({{.HOME}}): a command is judged with ~ for them.
// justShellRe matches just's shell("cmd") (either quote), cmd in the
// first or second group.
var (
	justHomeRe  = regexp.MustCompile(`\{\{\s*(home_directory\(\s*\)|env(_var)?(_or_default)?\(\s*["']HOME["'][^)]*\))\s*\}\}`)
	taskHomeRe  = regexp.MustCompile(`\{\{\s*\.HOME\s*\}\}`)
	justShellRe = regexp.MustCompile(`shell\(\s*(?:"([^"]*)"|'([^']*)')`)
)

// taskfileCode are the keys of a Taskfile whose strings task runs as
// shell code: a task's cmds (or cmd), a precondition's or a variable's
// sh, status checks and deferred commands.
var taskfileCode = map[string]bool{"cmds": true, "cmd": true, "sh": true, "status": true, "preconditions": true, "defer": true}

// writtenTaskfile judges the commands of a Taskfile the line wrote with
// text it spells out (printf 'version: 3\ntasks:\n  x:\n    cmds: [rm -rf
// ~]\n' > Taskfile.yml && task x): task runs them with a shell, so they
// are judged as that code, every task's (one may call another). The
// Taskfile is -t's (--taskfile), else Taskfile.yml and its other
// spellings; with -d (another directory) or -g (the home's) none is
// known.
func (s *state) writtenTaskfile(args []word, j *judgement) info {
	if slices.ContainsFunc(args, func(a word) bool { return a.s == "-g" || a.s == "--global" }) {
		return info{}
	}
	files, dir := runnerFiles(args, []string{"-t", "--taskfile"}, []string{"-d", "--dir"})
	if len(files) == 0 {
		for _, b := range []string{"Taskfile", "taskfile"} {
			for _, e := range []string{".yml", ".yaml", ".dist.yml", ".dist.yaml"} {
				files = append(files, b+e)
			}
		}
	}
	if dir != nil {
		if dir.unknown() {
			return info{}
		}
		// task -d DIR looks for its Taskfile in DIR (and -t's file there
		// too), and runs the commands there.
		for _, f := range files {
			if !strings.HasPrefix(f, "/") {
				files = append(files, path.Join(dir.s, f))
			}
		}
	}
	if s.fetchedTaskFile("task", files, j) || s.scripts == nil {
		return info{}
	}
	if dir != nil {
		saved := s.cwd.save()
		defer s.cwd.restore(saved)
		s.chdir(*dir)
	}
	var inf info
	for _, f := range files {
		text, ok := s.script(f)
		if !ok {
			continue
		}
		var doc struct {
			Tasks map[string]any `yaml:"tasks"`
			Vars  any            `yaml:"vars"`
			Env   any            `yaml:"env"`
		}
		if yaml.Unmarshal([]byte(text), &doc) != nil {
			continue
		}
		var code []string
		var walk func(v any, code bool)
		walk = func(v any, isCode bool) {
			switch v := v.(type) {
			case string:
				if isCode {
					code = append(code, v)
				}
			case []any:
				for _, e := range v {
					walk(e, isCode)
				}
			case map[string]any:
				for k, e := range v {
					walk(e, taskfileCode[k])
				}
			}
		}
		for _, t := range doc.Tasks {
			// A task given as a string or a list is its commands.
			walk(t, true)
		}
		walk(doc.Vars, false)
		// The top-level env's sh runs as a variable's does.
		walk(doc.Env, false)
		for _, c := range code {
			inf = inf.or(s.writtenCode(taskHomeRe.ReplaceAllString(c, "~"), "task "+f))
		}
	}
	return inf
}

// writtenDenoTasks judges what deno task runs (args are its own, after
// task) from a deno.json (deno.jsonc, -c's file) the line wrote with
// text it spells out: the task it names and the tasks it depends on, as
// shell code, and a script of package.json of that name, which deno task
// runs too; --eval runs the name itself as code. With --cwd or a
// recursive run none is known.
func (s *state) writtenDenoTasks(args []word, j *judgement) info {
	var files []string
	var ops []word
	var cwd *word
	eval := false
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "--cwd" && k+1 < len(args):
			k++
			cwd = &args[k]
		case strings.HasPrefix(a, "--cwd="):
			d := args[k].cut(len("--cwd="))
			cwd = &d
		case a == "-r" || a == "--recursive" ||
			a == "-f" || a == "--filter" || strings.HasPrefix(a, "--filter="):
			return info{}
		case a == "-c" || a == "--config":
			if k+1 < len(args) {
				k++
				files = append(files, args[k].s)
			}
		case strings.HasPrefix(a, "--config="):
			files = append(files, a[len("--config="):])
		case a == "--eval":
			eval = true
		case strings.HasPrefix(a, "-") && len(ops) == 0:
		default:
			ops = append(ops, args[k])
		}
	}
	if len(ops) == 0 {
		return info{} // deno task lists the tasks
	}
	if eval {
		return s.runString(ops[0], "deno task --eval", j)
	}
	if ops[0].unknown() || cwd != nil && cwd.unknown() {
		return info{}
	}
	if len(files) == 0 {
		files = []string{"deno.json", "deno.jsonc"}
		if cwd != nil {
			// deno task --cwd DIR reads DIR's deno.json and runs there.
			files = []string{path.Join(cwd.s, "deno.json"), path.Join(cwd.s, "deno.jsonc")}
		}
	}
	if s.fetchedTaskFile("deno task", files, j) || s.scripts == nil {
		return info{}
	}
	if cwd != nil {
		saved := s.cwd.save()
		defer s.cwd.restore(saved)
		s.chdir(*cwd)
	}
	var inf info
	for _, f := range files {
		text, ok := s.script(f)
		if !ok {
			continue
		}
		var cfg struct {
			Tasks map[string]json.RawMessage `json:"tasks"`
		}
		if json.Unmarshal([]byte(text), &cfg) != nil {
			continue
		}
		seen := map[string]bool{}
		var run func(name string)
		run = func(name string) {
			raw, ok := cfg.Tasks[name]
			if seen[name] || !ok {
				return
			}
			seen[name] = true
			var task struct {
				Command      string   `json:"command"`
				Dependencies []string `json:"dependencies"`
			}
			if json.Unmarshal(raw, &task.Command) != nil && json.Unmarshal(raw, &task) != nil {
				return
			}
			for _, d := range task.Dependencies {
				run(d)
			}
			inf = inf.or(s.writtenCode(task.Command, "deno task "+name))
		}
		if !strings.Contains(ops[0].s, "*") {
			run(ops[0].s)
			continue
		}
		// deno task "x*" runs every task the wildcard matches.
		for _, n := range slices.Sorted(maps.Keys(cfg.Tasks)) {
			if ok, _ := path.Match(ops[0].s, n); ok {
				run(n)
			}
		}
	}
	if cwd != nil {
		return inf
	}
	return inf.or(s.writtenPackageScripts("deno", []word{{s: "run", lit: true, prefix: 3}, ops[0]}, j))
}

// npmRunsScripts names the scripts of package.json that npm's subcommands
// run (besides pre- and post- of each): install with no package runs the
// project's lifecycle scripts.
var npmRunsScripts = map[string][]string{
	"test": {"test"}, "t": {"test"}, "tst": {"test"}, "start": {"start"}, "stop": {"stop"},
	"restart": {"restart", "stop", "start"},
	"install": {"preinstall", "install", "postinstall", "prepublish", "prepare"},
	"i":       {"preinstall", "install", "postinstall", "prepublish", "prepare"},
	"ci":      {"preinstall", "install", "postinstall", "prepublish", "prepare"},
	"it":      {"preinstall", "install", "postinstall", "prepublish", "prepare", "test"},
	"cit":     {"preinstall", "install", "postinstall", "prepublish", "prepare", "test"},
}

// writtenPackageScripts judges the scripts npm runs (npm test, npm run
// NAME, npm start, npm install's lifecycle scripts) of a package.json the
// line wrote with text it spells out (echo '{"scripts":{"test":"rm -rf
// ~"}}' > package.json && npm test): npm runs them with a shell, so they
// are judged as the shell code they are. With --prefix or a workspace
// (another package.json) none is known. yarn and pnpm (name) run them so
// too, and bare (yarn) installs, and yarn NAME runs the script NAME when
// NAME is none of their own commands.
func (s *state) writtenPackageScripts(name string, args []word, j *judgement) info {
	if s.scripts == nil && len(s.fetched) == 0 {
		return info{}
	}
	var ops []string
	for _, a := range args {
		switch {
		case a.unknown():
			return info{}
		case a.s == "--prefix" || a.s == "-C" || a.s == "-w" || a.s == "--workspace" || a.s == "--workspaces" ||
			strings.HasPrefix(a.s, "--prefix=") || strings.HasPrefix(a.s, "--workspace") ||
			a.s == "--cwd" || a.s == "--dir" || a.s == "--filter" || a.s == "-F" || a.s == "-r" || a.s == "--recursive" ||
			strings.HasPrefix(a.s, "--cwd=") || strings.HasPrefix(a.s, "--dir=") || strings.HasPrefix(a.s, "--filter="):
			return info{}
		case strings.HasPrefix(a.s, "-"):
		default:
			ops = append(ops, a.s)
		}
	}
	var names []string
	yarn := name != "npm"
	switch {
	case len(ops) == 0:
		if yarn {
			names = npmRunsScripts["install"] // yarn alone installs
		}
	case ops[0] == "run" || ops[0] == "run-script" || ops[0] == "rum" || ops[0] == "urn":
		if len(ops) > 1 {
			names = []string{ops[1]}
		}
	case len(ops) > 1 && (ops[0] == "install" || ops[0] == "i" || ops[0] == "ci"):
		// npm install PKG installs PKG; the project's own lifecycle
		// scripts are npm install's alone.
	case yarn && !slices.Contains(yarnCommands, ops[0]):
		names = []string{ops[0]}
	default:
		names = npmRunsScripts[ops[0]]
	}
	if len(names) == 0 || s.fetchedTaskFile(name, []string{"package.json"}, j) || s.scripts == nil {
		return info{}
	}
	text, ok := s.script("package.json")
	if !ok {
		return info{}
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil || len(pkg.Scripts) == 0 {
		return info{}
	}
	var inf info
	for _, n := range names {
		for _, m := range []string{"pre" + n, n, "post" + n} {
			code, ok := pkg.Scripts[m]
			if !ok {
				continue
			}
			if _, err := s.c.parse(code); err == nil {
				inf = inf.or(s.reparse(code, "npm run "+m))
			}
		}
	}
	return inf
}
