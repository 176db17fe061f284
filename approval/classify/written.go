package classify

import (
	"encoding/json"
	"slices"
	"strings"
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
