package classify

import (
	"encoding/json"
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
func (s *state) writtenMakefile(args []word) info {
	if s.scripts == nil {
		return info{}
	}
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
func (s *state) writtenJustfile(args []word) info {
	if s.scripts == nil {
		return info{}
	}
	var files []string
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "-d" || a == "--working-directory" || strings.HasPrefix(a, "--working-directory="):
			return info{}
		case a == "-f" || a == "--justfile":
			if k+1 < len(args) {
				k++
				files = append(files, args[k].s)
			}
		case strings.HasPrefix(a, "--justfile="):
			files = append(files, a[len("--justfile="):])
		}
	}
	if len(files) == 0 {
		files = []string{"justfile", "Justfile", ".justfile", "JUSTFILE"}
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
		}
		inf = inf.or(s.writtenCode(strings.Join(code, "\n"), "just "+f))
	}
	return inf
}

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
func (s *state) writtenTaskfile(args []word) info {
	if s.scripts == nil {
		return info{}
	}
	var files []string
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "-d" || a == "--dir" || strings.HasPrefix(a, "--dir=") || a == "-g" || a == "--global":
			return info{}
		case a == "-t" || a == "--taskfile":
			if k+1 < len(args) {
				k++
				files = append(files, args[k].s)
			}
		case strings.HasPrefix(a, "--taskfile="):
			files = append(files, a[len("--taskfile="):])
		}
	}
	if len(files) == 0 {
		for _, b := range []string{"Taskfile", "taskfile"} {
			for _, e := range []string{".yml", ".yaml", ".dist.yml", ".dist.yaml"} {
				files = append(files, b+e)
			}
		}
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
		for _, c := range code {
			inf = inf.or(s.writtenCode(c, "task "+f))
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
	eval := false
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "--cwd" || strings.HasPrefix(a, "--cwd=") || a == "-r" || a == "--recursive" ||
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
	if s.scripts == nil || ops[0].unknown() {
		return info{}
	}
	if len(files) == 0 {
		files = []string{"deno.json", "deno.jsonc"}
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
		run(ops[0].s)
	}
	return inf.or(s.writtenPackageScripts("deno", []word{{s: "run", lit: true, prefix: 3}, ops[0]}))
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
func (s *state) writtenPackageScripts(name string, args []word) info {
	if s.scripts == nil {
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
