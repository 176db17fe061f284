package shell

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/internal/placeholder"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// part is a literal or a placeholder of one argument template.
type part struct {
	lit  string
	name string // placeholder name; "" for a literal
}

// argTemplate is one element of an argv template.
type argTemplate struct {
	parts []part
	// whole: the argument is exactly one placeholder.
	whole bool
	// leading: the argument starts with a placeholder, so a value can make
	// it begin with "-".
	leading bool
	// variables: the argument starts with a placeholder and follows a
	// make, which reads an argument holding "=" as a variable definition
	// (CC=..., before "--" or after it) that overrides the Makefile's.
	variables bool
	// findExpr: the argument starts with a placeholder and follows a find,
	// which reads "!", "(", ")" and "," among its starting points as its
	// expression (find ! -name '*.tmp' -delete deletes all but *.tmp).
	findExpr bool
	// makeVar: the argument follows a make and sets a variable, NAME={x}
	// (or --eval=NAME={x}), whose value make expands and splices into its
	// recipes' shell lines: the value is code.
	makeVar bool
	// optValue: the argument follows a make option that takes the next
	// argument as its value (-C DIR, -f FILE), which make does not read as
	// a variable definition.
	optValue bool
	// primaryValue: the argument follows a find primary that takes the
	// next argument as its value (-name PATTERN, -newer FILE), which find
	// does not read as an operator.
	primaryValue bool
	// pipeOut: the argument's first placeholder is the output file of a
	// program that reads a name starting with "|" or "!" as a command to
	// pipe into (strace -o {log}), which it runs with a shell.
	pipeOut bool
	// assignment: the argument is a whole placeholder that env reads as a
	// NAME=value assignment before a command word (env {assign} npm
	// test); a value without "=" would be the program env runs.
	assignment bool
	// reader is the program that reads the argument: argv[0], or the
	// command a wrapper at argv[0] runs (timeout 30 grep ...: grep).
	reader string
}

// makePrograms read NAME=value arguments as variables; findPrograms read
// operator words as their expression.
var (
	makePrograms = []string{"make", "gmake", "bmake", "pmake"}
	findPrograms = []string{"find", "gfind", "bfs"}
	// makeValueOptions take the next argument as their value, a directory
	// or a file name (GNU make's options with a required argument; -j and
	// -l take theirs only when it is a number, and -E/--eval's is make
	// code: they are not here).
	makeValueOptions = []string{"-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile",
		"--include-dir", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new"}
	// findValuePrimaries take the next argument as their value, whatever
	// it is (GNU find, BSD find).
	findValuePrimaries = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
		"-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-samefile", "-user", "-group", "-uid", "-gid", "-type",
		"-xtype", "-size", "-perm", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-maxdepth", "-mindepth",
		"-links", "-inum", "-fstype", "-used", "-printf", "-fprint", "-fls", "-context"}
)

// literal returns the text of an argument without placeholders.
func (a *argTemplate) literal() (string, bool) {
	if len(a.parts) == 1 && a.parts[0].name == "" {
		return a.parts[0].lit, true
	}
	return "", false
}

// takesValue reports whether the argument is an option that may take the
// next argument as its value: "-n", "-xf", "--author", but not "--",
// "--max-count=20" nor "-".
func (a *argTemplate) takesValue() bool {
	s, ok := a.literal()
	return ok && len(s) > 1 && s[0] == '-' && s != "--" && !(strings.HasPrefix(s, "--") && strings.Contains(s, "="))
}

func (a *argTemplate) placeholders() []string {
	var out []string
	for _, p := range a.parts {
		if p.name != "" {
			out = append(out, p.name)
		}
	}
	return out
}

// parseArg parses one argument: {name} is a placeholder, {{ and }} are
// literal braces.
func parseArg(s string) (argTemplate, error) {
	ps, err := placeholder.Parse(s, true)
	if err != nil {
		return argTemplate{}, err
	}
	var t argTemplate
	for _, p := range ps {
		t.parts = append(t.parts, part{lit: p.Lit, name: p.Name})
	}
	t.whole = len(t.parts) == 1 && t.parts[0].name != ""
	t.leading = len(t.parts) > 0 && t.parts[0].name != ""
	return t, nil
}

// property is what the template needs to know of one schema property.
type property struct {
	types []string // JSON types the schema allows; empty when unknown
}

func (p property) allows(t string) bool { return len(p.types) == 0 || slices.Contains(p.types, t) }
func (p property) only(t ...string) bool {
	if len(p.types) == 0 {
		return false
	}
	for _, x := range p.types {
		if x != "null" && !slices.Contains(t, x) {
			return false
		}
	}
	return true
}

// schemaInfo reads the root properties of an object schema. ok is false
// when the schema lists no properties.
func schemaInfo(raw json.RawMessage) (props map[string]property, ok bool, err error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	var s struct {
		Properties map[string]struct {
			Type  json.RawMessage `json:"type"`
			Items *struct {
				Type json.RawMessage `json:"type"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, fmt.Errorf("input schema is not a JSON object: %v", err)
	}
	if len(s.Properties) == 0 {
		return nil, false, nil
	}
	props = make(map[string]property, len(s.Properties))
	for name, p := range s.Properties {
		props[name] = property{types: jsonTypes(p.Type)}
	}
	return props, true, nil
}

func jsonTypes(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return many
	}
	return nil
}

// template is a parsed argv template.
type template struct {
	args  []argTemplate
	names []string // placeholders in order of first appearance
	// own holds the "--" arguments that end only the options of a program
	// that runs another (a runner's or a wrapper's own), each naming that
	// program: the program it runs reads options again after it.
	own map[int]string
}

// runners run another program with the arguments after their "--" (npm
// run lint -- FILE, uv run -- pytest FILE, cargo test -- FILTER), as the
// classifier's wrappers do (timeout 5 -- grep ..., env -- ...).
var runners = []string{"npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx", "uv", "uvx", "poetry", "pipenv", "pdm",
	"hatch", "rye", "cargo", "go", "deno", "docker", "podman", "kubectl", "oc", "nix", "nix-shell"}

// forwarders follows the programs that run other programs from argv[0]:
// a classifier wrapper (timeout 30 CMD, env A=b CMD, sudo -u u CMD), read
// with its grammar, runs the command after its options and positionals,
// and a "--" among those, or right before the command, is its own; a
// runner (npm run lint -- ..., whose grammar is not known) has its first
// "--" as its own. It marks each argument with the program that reads it
// and returns the "--" arguments that end only a forwarder's options. A
// "--" after the command a wrapper runs is that command's (timeout 30
// grep -- {pattern}: grep's), unless the command is itself a forwarder. A
// wrapper given an option its grammar does not know is read as a runner.
func forwarders(args []argTemplate) map[int]string {
	c := classify.Default()
	own := map[int]string{}
	firstDashes := func(from int, prog string) {
		for k := from; k < len(args); k++ {
			if s, ok := args[k].literal(); ok && s == "--" {
				own[k] = prog
				return
			}
		}
	}
	wrapper := "" // the wrapper that runs args[i]
	for i := 0; i < len(args); {
		lit, ok := args[i].literal()
		if !ok {
			// The command is not spelt out (timeout 5 {cmd}, env
			// FOO={v} npm ...): read the wrapper as a runner.
			firstDashes(i, wrapper)
			break
		}
		for k := i; k < len(args); k++ {
			args[k].reader = lit
		}
		name := path.Base(lit)
		if w, ok := c.Wrapper(name); ok {
			ww := readWrapper(args, i+1, w)
			if !ww.known {
				firstDashes(i+1, lit)
				break
			}
			if ww.dash >= 0 {
				own[ww.dash] = lit
			}
			if ww.cmd < len(args) {
				if s, ok := args[ww.cmd].literal(); ok && s == "--" {
					own[ww.cmd] = lit
					ww.cmd++
				}
			}
			i, wrapper = ww.cmd, lit
			continue
		}
		if slices.Contains(runners, name) {
			firstDashes(i+1, lit)
			break
		}
		// A "--" followed by a program the classifier knows ends the
		// options of a program that runs it (setpriv --nnp -- sort,
		// prlimit ... --, perf stat --, bwrap ... --, ip netns exec NS
		// --), which reads options again: read that program as a
		// wrapper's command.
		if slices.Contains(findPrograms, name) {
			break // find -- test -name ...: starting points, never a program
		}
		if c.Knows(name) && !slices.Contains(launchers, name) {
			// A program the classifier knows, and not as one that runs
			// another (ls, cat, grep): its "--" ends its options, and a
			// word after it is an operand (cat -- env {file}).
			break
		}
		// A launcher's "--" comes before the program it runs, whatever
		// its name (ip's may end the options of ip link show too).
		if k := dashesBeforeProgram(args, i+1, c, name != "ip" && slices.Contains(launchers, name)); k >= 0 {
			own[k] = lit
			i, wrapper = k+1, lit
			continue
		}
		break
	}
	return own
}

// launchers are programs the classifier knows, though not as wrappers,
// that run the command after their "--" (systemd-run -- CMD, ip netns
// exec NS -- CMD). Programs it does not know are read as launchers when a
// program follows their "--"; those it knows otherwise are not.
var launchers = []string{"systemd-run", "systemd-nspawn", "ip", "machinectl", "flatpak", "toolbox", "distrobox", "schroot",
	"lxc-attach", "lxc-execute", "ssh-agent", "dbus-launch", "dbus-run-session", "tini", "dumb-init", "unbuffer", "pkexec",
	"sg", "chpst", "capsh", "perf", "bwrap", "setpriv", "prlimit", "fakeroot", "numactl", "cgexec", "xvfb-run", "proot"}

// dashesBeforeProgram returns the index of the first literal "--" from
// start when the argument after it is a literal naming a program the
// classifier knows, or (launcher) any word or placeholder, else -1. A "--" followed by anything else ends the
// options of the program before it, as usual.
func dashesBeforeProgram(args []argTemplate, start int, c *classify.Classifier, launcher bool) int {
	for k := start; k < len(args); k++ {
		if s, ok := args[k].literal(); ok && s == "--" {
			if k+1 < len(args) {
				// "." is the shell's source builtin to the classifier, and a
				// directory here. After a listed launcher any word is the
				// program it runs (prlimit -- ./mysort {file}).
				next, ok := args[k+1].literal()
				if ok && next != "." && next != ".." && !strings.HasPrefix(next, "-") && (launcher || c.Knows(path.Base(next))) {
					return k
				}
				if !ok && launcher {
					return k
				}
			}
			return -1
		}
	}
	return -1
}

// compileTemplate parses argv and checks it against the input schema. When
// the schema lists no properties, it returns a generated schema (every
// placeholder a required string); otherwise gen is nil.
func compileTemplate(argv []string, inputSchema json.RawMessage) (t *template, gen json.RawMessage, errs []error) {
	t = &template{}
	if len(argv) == 0 {
		return nil, nil, []error{&tool.ConfigError{Field: "argv", Message: `is empty: name the program and its arguments, e.g. ["git", "log", "--", "{path}"]`}}
	}
	seen := map[string]bool{}
	afterMake, afterFind := false, false // a make, a find came earlier in the argv
	var last [2]string                   // the two arguments before, if literal
	for i, a := range argv {
		at, err := parseArg(a)
		if err != nil {
			errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(i), Message: err.Error()})
			continue
		}
		at.variables, at.findExpr = afterMake && at.leading, afterFind && at.leading
		if afterMake && !at.leading && len(at.parts) > 1 {
			p := at.parts[0].lit
			at.makeVar = strings.Contains(p, "=") && (!strings.HasPrefix(p, "-") || strings.HasPrefix(p, "--eval="))
		}
		// make -C {dir}: the option's value, unless that option is itself
		// the value of another (make -f -C {dir}).
		at.optValue = afterMake && slices.Contains(makeValueOptions, last[1]) && !slices.Contains(makeValueOptions, last[0])
		at.primaryValue = afterFind && slices.Contains(findValuePrimaries, last[1]) && !slices.Contains(findValuePrimaries, last[0])
		lit, ok := at.literal()
		if ok {
			afterMake = afterMake || slices.Contains(makePrograms, path.Base(lit))
			afterFind = afterFind || slices.Contains(findPrograms, path.Base(lit))
		}
		last = [2]string{last[1], lit}
		if i == 0 && len(at.placeholders()) > 0 {
			errs = append(errs, &tool.ConfigError{Field: "argv.0", Message: fmt.Sprintf("%q: the program name must be fixed, not a placeholder", a)})
			continue
		}
		if i == 0 && a == "" {
			errs = append(errs, &tool.ConfigError{Field: "argv.0", Message: "the program name is empty"})
			continue
		}
		for _, n := range at.placeholders() {
			if !seen[n] {
				seen[n] = true
				t.names = append(t.names, n)
			}
		}
		t.args = append(t.args, at)
	}
	markMakeCode(t.args)
	errs = append(errs, checkCode(t.args)...)
	if len(errs) > 0 {
		return nil, nil, errs
	}
	t.own = forwarders(t.args)
	markPipeOut(t.args)
	plainReaders(t.args)
	props, ok, err := schemaInfo(inputSchema)
	if err != nil {
		return nil, nil, []error{&tool.ConfigError{Field: "input_schema", Message: err.Error()}}
	}
	if !ok {
		if len(t.names) > 0 {
			gen = generateSchema(t.names)
		}
		return t, gen, nil
	}
	for i, at := range t.args {
		for _, n := range at.placeholders() {
			p, found := props[n]
			field := "argv." + strconv.Itoa(i)
			switch {
			case !found:
				errs = append(errs, &tool.ConfigError{Field: field, Message: fmt.Sprintf("{%s} names no property of the input schema: add %q to input_schema.properties or fix the name", n, n)})
			case p.only("object"):
				errs = append(errs, &tool.ConfigError{Field: field, Message: fmt.Sprintf("{%s} is an object property: only strings, numbers, booleans and (as a whole argument) arrays of them can fill an argument", n)})
			case p.allows("array") && !at.whole:
				errs = append(errs, &tool.ConfigError{Field: field, Message: fmt.Sprintf("{%s} may be an array, which can only fill a whole argument (\"{%s}\"), one argument per element", n, n)})
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return t, declareChdirPaths(inputSchema, t.args), nil
}

// plainReaders lifts make's and find's rules from the arguments that
// another program reads, one the classifier knows to run nothing (grep
// -rn -- find {file}, cat -- make {file}): compileTemplate marks every
// argument after a literal make or find, wherever the word stands. A
// program it does not know, a wrapper or a launcher may run the make or
// find, and keeps the rules.
func plainReaders(args []argTemplate) {
	c := classify.Default()
	for i := range args {
		at := &args[i]
		r := path.Base(at.reader)
		if at.reader == "" || !c.Knows(r) || slices.Contains(findPrograms, r) || slices.Contains(makePrograms, r) ||
			slices.Contains(launchers, r) || r == "busybox" || r == "toybox" {
			continue
		}
		if _, w := c.Wrapper(r); w {
			continue
		}
		at.findExpr, at.primaryValue, at.variables, at.optValue, at.makeVar = false, false, false, false, false
	}
}

// markPipeOut marks the output file of strace (-o FILE, -oFILE,
// --output=FILE, bundled -fo FILE): strace pipes its output into the
// command a name starting with "|" or "!" gives, with a shell, so
// strace -f -o {log} true given "|touch pwned" runs touch.
func markPipeOut(args []argTemplate) {
	for i := 1; i < len(args); i++ {
		at := &args[i]
		if path.Base(at.reader) != "strace" || len(at.placeholders()) == 0 {
			continue
		}
		prev, _ := args[i-1].literal()
		if at.leading && (prev == "--output" || straceOutputBundle(prev)) {
			at.pipeOut = true
		}
		// -o{log}, -fo{log}, --output={log}
		if head := headLiteral(at); len(at.parts) > 1 && (straceOutputBundle(head) || head == "--output=") {
			at.pipeOut = true
		}
	}
}

// straceOutputBundle reports whether s is strace's -o, or a bundle of
// flags ending with it (-fo, -qqfo), whose value is the next argument or
// the rest of this one.
func straceOutputBundle(s string) bool {
	return len(s) > 1 && s[0] == '-' && s[1] != '-' && s[len(s)-1] == 'o' &&
		!strings.ContainsAny(s[1:len(s)-1], "oepusabEIOPSX")
}

// checkPipeOut refuses a value for a pipeOut argument that the program
// would run as a command.
func checkPipeOut(name, s string) *tool.Error {
	if strings.HasPrefix(s, "|") || strings.HasPrefix(s, "!") {
		return tool.Errorf(tool.CodeInvalidArguments,
			"argument %s = %q starts with %q, so strace would run the rest as a shell command and pipe its output into it: pass a file name (./%s)",
			name, s, s[:1], s)
	}
	return nil
}

// markMakeCode marks the arguments whose values make reads as its own
// code beyond a NAME={x} on its command line (compileTemplate marks
// those): the makefile text of --eval/-E given as the next argument
// (make --eval 'x: ; @echo {msg}'), and a variable env sets for a make
// (env VERSION={v} make release), which make imports as a variable and
// splices into the recipes that use it. A whole placeholder is the author
// handing the code over, and is left as it is.
func markMakeCode(args []argTemplate) {
	made := -1 // the last make in the argv
	for i := range args {
		if s, ok := args[i].literal(); ok && slices.Contains(makePrograms, path.Base(s)) {
			made = i
		}
	}
	if made < 0 {
		return
	}
	for i := 1; i < len(args); i++ {
		at := &args[i]
		if at.whole || len(at.placeholders()) == 0 {
			continue
		}
		prev, _ := args[i-1].literal()
		if i > made && (makeEvalBundle(prev) || len(prev) > 3 && strings.HasPrefix("--eval", prev)) {
			at.makeVar = true
			continue
		}
		head := headLiteral(at)
		if i > made && makeEvalBundle(head) {
			at.makeVar = true // -E{text}, -sE{text}
			continue
		}
		if name, _, eq := strings.Cut(head, "="); i > made && eq && len(name) > 3 && strings.HasPrefix("--eval", name) {
			at.makeVar = true // --ev=..., an abbreviation of --eval=
			continue
		}
		if i < made && strings.Contains(head, "=") && !strings.HasPrefix(head, "-") {
			for k := i - 1; k >= 0; k-- {
				if s, ok := args[k].literal(); ok && path.Base(s) == "env" {
					at.makeVar = true
					break
				}
			}
		}
	}
}

// makeEvalBundle reports whether s is make's -E, or a bundle of flags
// ending with it (-sE), whose makefile text is the rest of the word or
// the next argument: the first letter of s that takes a value is E.
func makeEvalBundle(s string) bool {
	if len(s) < 2 || s[0] != '-' || s[1] == '-' {
		return false
	}
	k := strings.IndexAny(s[1:], "CfIoWEjlO")
	return k >= 0 && s[1+k] == 'E'
}

// chdirOptions are the options that take the directory the program
// changes to before it reads any path (all spelt "--opt DIR" or
// "--opt=DIR"), and chdirShort the programs whose -C DIR (or -CDIR) is
// one.
var (
	chdirOptions = []string{"--directory", "--chdir", "--git-dir", "--work-tree", "--cwd", "--wd", "--working-directory",
		"--workdir", "-chdir"}
	// chdirShort gives, by program, the letter of its one-letter option
	// that takes such a directory, and the other letters that take a
	// value (a bundle's rest is their value: tar -fC names the archive C).
	chdirShort = map[string][2]string{
		"git": {"C", ""}, "make": {"C", "fIoWEjl"}, "gmake": {"C", "fIoWEjl"}, "bmake": {"C", "fIoWEjl"},
		"pmake": {"C", "fIoWEjl"}, "tar": {"C", tarTakes}, "gtar": {"C", tarTakes}, "bsdtar": {"C", tarTakes},
		"env": {"C", "uS"}, "ninja": {"C", "fjklt"}, "pnpm": {"C", ""}, "go": {"C", ""}, "sudo": {"D", "ughpCrtUTR"},
		"nsenter": {"w", "tSGr"}, "patch": {"d", "iopBDFrVYzg"}, "cpio": {"D", "EFHIMOR"},
	}
)

// tarTakes are GNU tar's one-letter options that take a value, -C aside.
const tarTakes = "bfFgHIKLNTVX"

// chdirLong reports whether name (before any "=") is one of chdirOptions
// or an abbreviation of one that getopt_long would take for it.
func chdirLong(name string) bool {
	if slices.Contains(chdirOptions, name) {
		return true
	}
	return len(name) > 3 && strings.HasPrefix(name, "--") &&
		slices.ContainsFunc(chdirOptions, func(o string) bool { return strings.HasPrefix(o, name) })
}

// chdirBundle reports whether the literal s is a bundle of one-letter
// options ending with the program's directory letter (-C, -sC, -xC),
// which then takes the next argument, or the rest of the argument when
// attached is set (-C{dir}, -sC{dir}).
func chdirBundle(s string, short [2]string) bool {
	if short[0] == "" || len(s) < 2 || s[0] != '-' || s[1] == '-' || s[len(s)-1] != short[0][0] {
		return false
	}
	return !strings.ContainsAny(s[1:len(s)-1], short[1]+short[0])
}

// chdirPlaceholder returns the placeholder that names the directory the
// program changes to in args[i] (tar -C {dir}, git -C {dir}, make
// --directory={dir} or --dir={dir}, make -sC {dir}, env --chdir {dir},
// unshare --wd {dir}, sudo -D {dir}, tar cCf {dir} ARCHIVE, chroot
// {dir}), or "".
func chdirPlaceholder(args []argTemplate, i int) string {
	at := &args[i]
	prog := path.Base(at.reader)
	short := chdirShort[prog]
	if at.whole && i > 0 {
		prev, ok := args[i-1].literal()
		name, _, eq := strings.Cut(prev, "=")
		if ok && (!eq && chdirLong(name) || chdirBundle(prev, short)) {
			return at.parts[0].name
		}
		if prog == "chroot" && ok && path.Base(prev) == "chroot" {
			return at.parts[0].name // its new root, where the command starts
		}
		if (prog == "tar" || prog == "gtar") && tarOldStyleDir(args, i) {
			return at.parts[0].name
		}
	}
	if len(at.parts) == 2 && at.parts[0].name == "" && at.parts[1].name != "" {
		lit := at.parts[0].lit
		name, _, eq := strings.Cut(lit, "=")
		if chdirBundle(lit, short) || eq && strings.HasSuffix(lit, "=") && chdirLong(name) {
			return at.parts[1].name
		}
	}
	return ""
}

// tarOldStyleDir reports whether args[i] is the directory of an old-style
// tar bundle (tar cCf DIR ARCHIVE FILE...: the letters that take a value
// take the arguments after the bundle in turn).
func tarOldStyleDir(args []argTemplate, i int) bool {
	for k := 0; k < i; k++ {
		s, ok := args[k].literal()
		if !ok || (path.Base(s) != "tar" && path.Base(s) != "gtar") || k+1 >= len(args) {
			continue
		}
		b, ok := args[k+1].literal()
		if !ok || b == "" || b[0] == '-' {
			continue
		}
		n := 0
		for _, c := range []byte(b) {
			if c == 'C' || strings.IndexByte(tarTakes, c) >= 0 {
				n++
				if c == 'C' && k+1+n == i {
					return true
				}
			}
		}
	}
	return false
}

// findFilePrimaries are find's primaries that write to the file named by
// the next argument (-fprintf FILE FORMAT).
var findFilePrimaries = []string{"-fprint", "-fprint0", "-fprintf", "-fls"}

// outputOptions gives, by program, its options whose value is a file it
// writes (or the directory it writes into: curl --output-dir, wget -P):
// "-o FILE" (or -oFILE for a one-letter one), "--output FILE" or
// "--output=FILE".
var outputOptions = map[string][]string{
	"sort": {"-o", "--output", "-T", "--temporary-directory"}, "strace": {"-o", "--output"}, "time": {"-o", "--output"},
	"curl": {"-o", "--output", "--output-dir", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
		"--stderr", "--libcurl", "--etag-save"},
	"wget": {"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix",
		"--save-cookies"},
	"cc": {"-o"}, "gcc": {"-o"}, "g++": {"-o"}, "c++": {"-o"}, "clang": {"-o"}, "clang++": {"-o"},
	"openssl": {"-out", "-keyout"},
	"cp":      {"-t", "--target-directory"}, "mv": {"-t", "--target-directory"}, "ln": {"-t", "--target-directory"},
	"install": {"-t", "--target-directory"}, "csplit": {"-f", "--prefix"},
	"tar": {"-f", "--file", "-g", "--listed-incremental"}, "gtar": {"-f", "--file", "-g", "--listed-incremental"},
	"bsdtar": {"-f", "--file"}, "zip": {"-O", "--output-file", "-b", "--temp-path", "-lf", "--logfile-path"},
	"unzip": {"-d"}, "patch": {"-o", "--output", "-r", "--reject-file", "-B", "--prefix"},
	"rsync": {"--log-file", "--write-batch", "--only-write-batch", "-T", "--temp-dir", "--partial-dir", "--backup-dir"},
	"shuf":  {"-o", "--output"}, "iconv": {"-o", "--output"}, "mktemp": {"-p", "--tmpdir"},
}

// outputBundles gives, by program whose one-letter options bundle
// (sort -uo FILE, curl -sSLo FILE, wget -qO FILE), its one-letter options
// that take a value: one of them before the output letter takes the rest
// of the bundle as its value (sort -To names the directory o).
var outputBundles = map[string]string{
	"sort": "kotST", "strace": "oepusabEIOPSX", "time": "fo", "curl": "AbcCdDeEFHKmoPQrtTuUwxXyYz",
	"wget": "eoaiBtOTwQPlARDIXUn",
	"cp":   "St", "mv": "St", "ln": "St", "install": "gmoSt", "csplit": "bfn", "tar": "C" + tarTakes,
	"gtar": "C" + tarTakes, "bsdtar": "C" + tarTakes, "unzip": "dP", "patch": "diopBDFrVYzg", "rsync": "eBfTM@",
	"touch": "drt", "mkdir": "m", "mkfifo": "m", "truncate": "rs", "shred": "ns", "split": "abClnt",
	"sed": "efl", "gzip": "S", "gunzip": "S", "xz": "SFCTM", "unxz": "SFCTM",
	"shuf": "ino", "iconv": "fto", "uniq": "fsw", "scp": "cDFiJloPSX", "mktemp": "p",
}

// operandWriter is what findFilePlaceholder needs to know of a program
// that writes, deletes or changes the files its operands name (cp SRC
// DST, rm FILE, tar -cf ARCHIVE FILE...) to tell its operands from the
// values of its options: the one-letter options that take a value are in
// outputBundles, those whose value is a file in outputOptions.
type operandWriter struct {
	// values are its other options that take the next argument as their
	// value (cp --suffix SUFFIX), and the ones of more than one letter.
	values []string
	// lists are options after which the placeholders up to the next
	// option are patterns (zip -x PATTERN...).
	lists []string
	// skip is how many of its first operands name no file (chmod MODE
	// FILE), unless an option of unskip is given (chmod --reference).
	skip   int
	unskip []string
	// first: only the first operand names a file (csplit FILE PATTERN...).
	first bool
}

// operandWriters gives, by program, an operandWriter: each of its
// operands, but the ones skip, first and lists leave out, names a file
// it writes, deletes or changes, or reads to write another (cp's source,
// tar -c's members), and is a path argument. sed's are with -i only.
var operandWriters = map[string]operandWriter{
	"cp":       {values: []string{"--suffix", "--sparse", "--no-preserve"}},
	"mv":       {values: []string{"--suffix"}},
	"ln":       {values: []string{"--suffix"}},
	"install":  {values: []string{"--suffix", "--group", "--mode", "--owner", "--strip-program"}},
	"link":     {},
	"unlink":   {},
	"rm":       {},
	"rmdir":    {},
	"shred":    {values: []string{"--iterations", "--size", "--random-source"}},
	"touch":    {values: []string{"--date", "--reference", "--time"}},
	"mkdir":    {values: []string{"--mode"}},
	"mkfifo":   {values: []string{"--mode"}},
	"chmod":    {values: []string{"--reference"}, skip: 1, unskip: []string{"--reference"}},
	"chown":    {values: []string{"--reference", "--from"}, skip: 1, unskip: []string{"--reference"}},
	"chgrp":    {values: []string{"--reference"}, skip: 1, unskip: []string{"--reference"}},
	"truncate": {values: []string{"--size", "--reference"}},
	"split": {values: []string{"--suffix-length", "--additional-suffix", "--bytes", "--line-bytes", "--lines",
		"--number", "--separator", "--filter"}},
	"csplit": {values: []string{"--suffix-format", "--digits"}, first: true},
	"tar":    {values: tarValues}, "gtar": {values: tarValues}, "bsdtar": {values: tarValues},
	"zip": {values: []string{"-n", "-t", "-tt", "-P", "-Z", "-s", "-ds", "--suffixes", "--from-date", "--before-date",
		"--password", "--compression-method", "--split-size", "--dot-size"}, lists: []string{"-x", "-i", "--exclude", "--include"}},
	"unzip": {lists: []string{"-x"}},
	"sed":   {values: []string{"--expression", "--file", "--line-length"}, skip: 1, unskip: []string{"-e", "-f", "--expression", "--file"}},
	"patch": {values: []string{"--input", "--strip", "--fuzz", "--ifdef", "--version-control", "--basename-prefix", "--suffix",
		"--quoting-style", "--reject-format", "--get", "--directory"}},
	"rsync": {values: []string{"--rsh", "--rsync-path", "--filter", "--exclude", "--include", "--exclude-from", "--include-from",
		"--files-from", "--suffix", "--chmod", "--chown", "--usermap", "--groupmap", "--block-size", "--max-size", "--min-size",
		"--max-alloc", "--timeout", "--contimeout", "--port", "--address", "--password-file", "--bwlimit", "--remote-option",
		"--out-format", "--log-file-format", "--modify-window", "--max-delete", "--read-batch", "--info", "--debug", "--iconv",
		"--sockopts", "--outbuf", "--checksum-choice", "--compress-choice", "--compress-level", "--skip-compress",
		"--protocol", "--stop-after", "--stop-at", "--compare-dest", "--copy-dest", "--link-dest", "--checksum-seed"}},
	"gzip": {values: []string{"--suffix"}}, "gunzip": {values: []string{"--suffix"}}, "bzip2": {}, "bunzip2": {},
	"xz": {values: xzValues}, "unxz": {values: xzValues},
	// uniq INPUT OUTPUT, xxd INFILE OUTFILE, scp's local operands,
	// mktemp's template.
	"uniq": {values: []string{"--skip-fields", "--skip-chars", "--check-chars"}},
	"xxd": {values: []string{"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-s", "-seek", "-o", "-offset", "-n",
		"-name", "-R"}},
	"scp":    {},
	"mktemp": {values: []string{"--suffix"}},
}

var (
	// tarValues are GNU tar's long options that take the next argument
	// as their value.
	tarValues = []string{"--directory", "--exclude", "--exclude-from", "--files-from", "--strip-components", "--transform",
		"--xform", "--owner", "--group", "--mode", "--mtime", "--newer", "--after-date", "--newer-mtime", "--format",
		"--blocking-factor", "--record-size", "--label", "--tape-length", "--starting-file", "--sort", "--warning",
		"--exclude-tag", "--exclude-tag-all", "--exclude-tag-under", "--level", "--index-file", "--volno-file",
		"--pax-option", "--quoting-style", "--quote-chars", "--no-quote-chars", "--hole-detection", "--owner-map",
		"--group-map", "--xattrs-include", "--xattrs-exclude", "--add-file", "--suffix", "--use-compress-program",
		"--rsh-command", "--info-script", "--new-volume-script", "--to-command", "--checkpoint-action", "--file",
		"--listed-incremental"}
	xzValues = []string{"--suffix", "--format", "--check", "--threads", "--memlimit", "--memory", "--files", "--files0",
		"--block-size", "--block-list", "--memlimit-compress", "--memlimit-decompress"}
)

// longIn reports whether the long option word s (no "=") is one of opts
// or an abbreviation getopt_long would take for one.
func longIn(opts []string, s string) bool {
	return slices.Contains(opts, s) || strings.HasPrefix(s, "--") && len(s) > 3 &&
		slices.ContainsFunc(opts, func(o string) bool { return strings.HasPrefix(o, "--") && strings.HasPrefix(o, s) })
}

// takesNext reports whether the literal option word s of an
// operandWriters program takes the next argument as its value (cp -S,
// cp --suffix, cp -aS, tar -cf, zip -tt), reading its one-letter
// options in outputBundles.
func takesNext(prog string, s string, w operandWriter) bool {
	if slices.Contains(w.values, s) || slices.Contains(outputOptions[prog], s) {
		return true
	}
	if strings.HasPrefix(s, "--") {
		return !strings.Contains(s, "=") && (longIn(w.values, s) || longIn(outputOptions[prog], s))
	}
	takes := outputBundles[prog]
	for j := 1; j < len(s); j++ {
		if strings.IndexByte(takes, s[j]) >= 0 {
			return j == len(s)-1
		}
	}
	return false
}

// chmodMode reports whether the option word s is a mode chmod reads as
// its first operand (chmod -w FILE, -rwx, -x,g+w).
func chmodMode(s string) bool {
	return len(s) > 1 && strings.Trim(s[1:], "rwxXstugoa+-=,01234567") == ""
}

// sedInPlace reports whether the literal option word s gives sed -i
// (-i, -i.bak, -ni, --in-place, --in-place=.bak, --in-p).
func sedInPlace(s string) bool {
	if strings.HasPrefix(s, "--") {
		name, _, _ := strings.Cut(s, "=")
		return len(name) > 3 && strings.HasPrefix("--in-place", name)
	}
	for j := 1; j < len(s); j++ {
		switch {
		case s[j] == 'i':
			return true
		case strings.IndexByte("efl", s[j]) >= 0:
			return false // the rest is its value
		}
	}
	return false
}

// givenOption reports whether the literal option word s is one of opts,
// spelt in full or abbreviated, with its value attached or not, or a
// bundle whose letter before any value is a one-letter one of opts (sed
// -ne SCRIPT for -e).
func givenOption(prog, s string, opts []string) bool {
	if strings.HasPrefix(s, "--") {
		name, _, _ := strings.Cut(s, "=")
		return longIn(opts, name)
	}
	takes := outputBundles[prog]
	for j := 1; j < len(s); j++ {
		if slices.Contains(opts, "-"+s[j:j+1]) {
			return true
		}
		if strings.IndexByte(takes, s[j]) >= 0 {
			return false
		}
	}
	return false
}

// writerOperand reports whether args[i], a whole placeholder, names a
// file of the operandWriters program that reads it: an operand (cp --
// {src} {dst}, rm {file}, chmod MODE {file}, sed -i SCRIPT {file}), not
// the value of one of its options (cp -S {suffix}, split -l {n}), nor a
// pattern of a list (zip -x {pattern}); or the archive of an old-style
// tar bundle (tar cf {archive} ...).
func writerOperand(args []argTemplate, i int) bool {
	at := &args[i]
	prog := path.Base(at.reader)
	if !at.whole {
		return false
	}
	start := slices.IndexFunc(args, func(a argTemplate) bool { return a.reader == at.reader })
	if start < 0 || start >= i {
		return false
	}
	if slices.Contains(findPrograms, prog) {
		// find ... -exec cp {} {out} ';': the command of the -exec
		// (-execdir, -ok, -okdir) that holds args[i] reads it, up to
		// its ";" or "+".
		e := -1
		for k := i - 1; k > start && e < 0; k-- {
			s, ok := args[k].literal()
			if ok && (s == ";" || s == "+") {
				return false
			}
			if ok && slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir"}, s) {
				e = k
			}
		}
		if e < 0 || e+1 >= i {
			return false
		}
		cmd, ok := args[e+1].literal()
		if !ok {
			return false
		}
		end := i + 1
		for end < len(args) {
			if s, ok := args[end].literal(); ok && (s == ";" || s == "+") {
				break
			}
			end++
		}
		prog, start, args = path.Base(cmd), e+1, args[:end]
	}
	w, ok := operandWriters[prog]
	if !ok {
		return false
	}
	// What the whole command gives: sed -i, sed -e SCRIPT, chmod
	// --reference.
	inPlace, unskip := false, false
	for k := start + 1; k < len(args); k++ {
		s, ok := args[k].literal()
		if !ok && len(args[k].parts) > 0 && args[k].parts[0].name == "" {
			s = args[k].parts[0].lit // -i{suffix}, --reference={f}
		}
		if s == "--" {
			break
		}
		if len(s) > 1 && s[0] == '-' {
			inPlace = inPlace || sedInPlace(s)
			unskip = unskip || givenOption(prog, s, w.unskip)
		}
	}
	if prog == "sed" && !inPlace {
		return false // sed only reads them
	}
	skip := w.skip
	if unskip {
		skip = 0
	}
	dashes, inList, values, n := false, false, 0, 0
	for k := start + 1; k <= i; k++ {
		a := &args[k]
		s, lit := a.literal()
		if values > 0 {
			values--
			if k == i {
				return false
			}
			continue
		}
		if !dashes && lit && s == "--" {
			dashes = true
			continue
		}
		option := !dashes && len(a.parts) > 0 && a.parts[0].name == "" && len(a.parts[0].lit) > 1 && a.parts[0].lit[0] == '-'
		if option && !(skip > 0 && prog == "chmod" && lit && chmodMode(s) && n == 0) {
			if lit {
				inList = slices.Contains(w.lists, s)
				if takesNext(prog, s, w) {
					values = 1
				}
			}
			continue
		}
		if k == start+1 && lit && s != "" && (prog == "tar" || prog == "gtar" || prog == "bsdtar") {
			// tar cf ARCHIVE FILE...: the bundle's letters that take a
			// value take the arguments after it in turn.
			// The archive, the snapshot, the lists and the directory
			// name files; the others (b, L, N, ...) do not.
			for _, c := range []byte(s) {
				if strings.IndexByte("C"+tarTakes, c) < 0 {
					continue
				}
				values++
				if k+values == i {
					return strings.IndexByte("fgTXC", c) >= 0
				}
			}
			continue
		}
		if k == i {
			return !(inList && !dashes) && n >= skip && (!w.first || n == 0)
		}
		if !(inList && !dashes) {
			n++
		}
	}
	return false
}

// outputOption reports whether the literal option word s (its value not
// attached) is one of the program's outputOptions: spelt in full, a long
// one abbreviated as getopt_long (and curl) take it (--out for
// --output), or a bundle of one-letter options ending with an output one
// (-uo).
func outputOption(prog, s string) bool {
	opts := outputOptions[prog]
	if slices.Contains(opts, s) {
		return true
	}
	if strings.HasPrefix(s, "--") {
		return len(s) > 3 && slices.ContainsFunc(opts, func(o string) bool { return strings.HasPrefix(o, "--") && strings.HasPrefix(o, s) })
	}
	takes, bundles := outputBundles[prog]
	if !bundles || len(s) < 3 || s[0] != '-' || !slices.Contains(opts, "-"+s[len(s)-1:]) {
		return false
	}
	return !strings.ContainsAny(s[1:len(s)-1], takes)
}

// findFilePlaceholder returns the placeholder that names, whole, the file
// the program that reads args[i] writes its output to: find's -fprint
// {out} (and -fprint0, -fprintf, -fls), an option of outputOptions (sort
// -o {out}, --output={out}, -o{out}, --out={out}, -uo {out}, -uo{out}),
// dd's of={out}, or an operand of tee; or "".
func findFilePlaceholder(args []argTemplate, i int) string {
	at := &args[i]
	prog := path.Base(at.reader)
	if i == 0 || len(at.placeholders()) == 0 {
		return ""
	}
	if !at.whole {
		// --output={out}, -o{out}, of={out}
		if len(at.parts) != 2 || at.parts[0].name != "" {
			return ""
		}
		lit := at.parts[0].lit
		name, eq := strings.CutSuffix(lit, "=")
		switch {
		case prog == "dd" && lit == "of=":
			return at.parts[1].name
		case prog == "sed" && sedInPlace(lit) && (eq || !strings.HasPrefix(lit, "--")):
			// sed -i{suffix}, --in-place={suffix}: a suffix holding "*"
			// or "/" names where the backup goes (secrets/*)
			return at.parts[1].name
		case eq && strings.HasPrefix(name, "--") && outputOption(prog, name):
			return at.parts[1].name
		case !eq && len(lit) >= 2 && lit[0] == '-' && lit[1] != '-' && (len(lit) == 2 || outputBundles[prog] != "") && outputOption(prog, lit):
			// -o{out}, -uo{out}; not openssl's -out{x}, which it does
			// not read
			return at.parts[1].name
		}
		return ""
	}
	if prog == "tee" || writerOperand(args, i) {
		return at.parts[0].name // tee's options take no value
	}
	prev, ok := args[i-1].literal()
	if ok && (slices.Contains(findPrograms, prog) && slices.Contains(findFilePrimaries, prev) || outputOption(prog, prev)) {
		return at.parts[0].name
	}
	return ""
}

// declareChdirPaths returns the input schema with each placeholder that
// names the directory the program changes to, or the file it writes its
// output to (findFilePlaceholder: find -fprint, sort -o, tee, ...),
// declared a path argument
// (sandbox.PathKeyword), when the schema declares path arguments and not
// that one: a governance policy judges only the declared ones, every
// relative path of the call is read from that directory (tar -C secrets
// -cf - -- key reads secrets/key), and find writes where the file names
// (find {dir} -fprint secrets/list). It returns nil when nothing changes.
// A schema that declares no path argument is left to the policy's
// guesses from argument names, which a declared one would turn off.
func declareChdirPaths(raw json.RawMessage, args []argTemplate) json.RawMessage {
	declared := sandbox.PathArguments(raw)
	if len(declared) == 0 {
		return nil
	}
	var add []string
	for i := range args {
		n := chdirPlaceholder(args, i)
		if n == "" {
			n = findFilePlaceholder(args, i)
		}
		if n != "" && !slices.Contains(declared, n) && !slices.Contains(add, n) {
			add = append(add, n)
		}
	}
	if len(add) == 0 {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var s map[string]any
	if d.Decode(&s) != nil {
		return nil
	}
	props, _ := s["properties"].(map[string]any)
	changed := false
	for _, n := range add {
		if p, ok := props[n].(map[string]any); ok {
			p[sandbox.PathKeyword] = true
			changed = true
		}
	}
	if !changed {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	return b
}

func generateSchema(names []string) json.RawMessage {
	props := make(map[string]any, len(names))
	for _, n := range names {
		props[n] = map[string]any{"type": "string"}
	}
	b, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             names,
		"additionalProperties": false,
	})
	return b
}

// expand fills the template with args. An argument whose placeholder is
// absent (or null) is dropped; a whole-argument array expands to one
// argument per element.
//
// A value may start with "-" only where the program reads operands: after
// a literal "--" that ends its options. A "--" that follows an option
// whose value was dropped ("--author", "{who}", "--" with who absent) does
// not count: the option takes it as its value, and the program reads
// options again after it.
func (t *template) expand(args map[string]any, allowOptions bool) ([]string, *tool.Error) {
	out := make([]string, 0, len(t.args))
	e := expansion{allow: allowOptions}
	for i := range t.args {
		at := &t.args[i]
		n := len(out)
		if lit, ok := at.literal(); ok {
			if lit == "--" && !e.dangling {
				if prog, own := t.own[i]; own {
					// A forwarder's own "--" ends its options only.
					e.runner = prog
				} else {
					e.operands = true
				}
			}
			if lit == "--" && e.dangling && i >= 2 && !e.operands {
				// Said in a refusal: the option took this "--".
				opt, isOpt := t.args[i-2].literal()
				if ps := t.args[i-1].placeholders(); isOpt && len(ps) > 0 {
					e.swallowed = fmt.Sprintf(` (the template's "--" may not end the options here: %s may take the "--" as its value, since {%s} was left out; give %s a value)`,
						opt, ps[0], ps[0])
				}
			}
			e.eaten = e.dangling
			out = append(out, lit)
		} else {
			var err *tool.Error
			if out, err = e.fill(out, at, args); err != nil {
				return nil, err
			}
			e.eaten = false
		}
		switch {
		case len(out) > n:
			e.dangling = false
		case i > 0 && t.args[i-1].takesValue():
			e.dangling = true
		}
	}
	return out, nil
}

// expansion is the state of one expand.
type expansion struct {
	allow bool // AllowOptionValues
	// operands: a literal "--" has ended the program's options.
	operands bool
	// dangling: the last argument is an option whose value was dropped,
	// so it takes the next argument as its value.
	dangling bool
	// eaten: the last argument is a literal that a dropped option took as
	// its value (make -f {mk} -C with mk absent: -f takes -C).
	eaten bool
	// runner: the last forwarder whose own "--" has been passed (template.own):
	// the values after it reach the program it runs, which reads options.
	runner string
	// swallowed explains, in a refusal, a "--" that a dangling option
	// took as its value.
	swallowed string
}

// fill appends the arguments at expands to: none when a placeholder is
// absent or null (or an array is empty), one per element of an array.
func (e *expansion) fill(out []string, at *argTemplate, args map[string]any) ([]string, *tool.Error) {
	if at.whole {
		name := at.parts[0].name
		v, ok := args[name]
		if !ok || v == nil {
			return out, nil
		}
		if arr, isArr := v.([]any); isArr {
			for j, el := range arr {
				s, err := scalar(name+"["+strconv.Itoa(j)+"]", el)
				if err != nil {
					return nil, err
				}
				if err := e.checkOption(at, name, s, out[0]); err != nil {
					return nil, err
				}
				if err := checkAssignment(at, name, s); err != nil {
					return nil, err
				}
				out = append(out, s)
			}
			return out, nil
		}
		s, err := scalar(name, v)
		if err != nil {
			return nil, err
		}
		if err := e.checkOption(at, name, s, out[0]); err != nil {
			return nil, err
		}
		if err := checkAssignment(at, name, s); err != nil {
			return nil, err
		}
		if at.pipeOut {
			if err := checkPipeOut(name, s); err != nil {
				return nil, err
			}
		}
		return append(out, s), nil
	}
	var b strings.Builder
	first := ""
	for k, p := range at.parts {
		if p.name == "" {
			b.WriteString(p.lit)
			continue
		}
		v, ok := args[p.name]
		if !ok || v == nil {
			return out, nil
		}
		s, err := scalar(p.name, v)
		if err != nil {
			return nil, err
		}
		if k == 0 {
			first = p.name
		}
		if at.makeVar {
			if err := checkMakeValue(p.name, s); err != nil {
				return nil, err
			}
		}
		if at.pipeOut && b.Len() == len(headLiteral(at)) {
			// The first placeholder: the start of strace's file name.
			if err := checkPipeOut(p.name, s); err != nil {
				return nil, err
			}
		}
		b.WriteString(s)
	}
	s := b.String()
	if first != "" {
		if err := e.checkOption(at, first, s, out[0]); err != nil {
			return nil, err
		}
	}
	return append(out, s), nil
}

// checkAssignment refuses a value for an assignment argument (env
// {assign} npm test) that is not NAME=value: env would run it as the
// program, with the template's command words as its arguments (rm npm
// test).
func checkAssignment(at *argTemplate, name, s string) *tool.Error {
	if !at.assignment {
		return nil
	}
	n, _, eq := strings.Cut(s, "=")
	ok := eq && n != "" && !(n[0] >= '0' && n[0] <= '9')
	for i := 0; ok && i < len(n); i++ {
		c := n[i]
		ok = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	if ok {
		return nil
	}
	return tool.Errorf(tool.CodeInvalidArguments,
		"argument %s = %q is not an assignment NAME=value (letters, digits and _ in the name): env reads it before the command, and a word without \"=\" there would be the program it runs; pass a variable assignment such as NODE_ENV=production",
		name, s)
}

// checkMakeValue refuses a value of a make variable (make release
// VERSION={v}) that make or the shell running a recipe would read as
// more than text: make expands $(...) in it, and the recipes that use the
// variable splice it into shell lines (echo $(VERSION) given "1.0; rm
// -rf ~"). Only letters, digits, bytes past ASCII and - _ . , : / + @ % =
// pass; AllowOptionValues does not lift it.
func checkMakeValue(name, s string) *tool.Error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.,:/+@%=", c) >= 0 {
			continue
		}
		return tool.Errorf(tool.CodeInvalidArguments,
			"argument %s = %q holds %q, which make would read as code: a variable set on make's command line is expanded by make and spliced into its recipes' shell lines; pass a value of letters, digits and - _ . , : / + @ %% = only",
			name, s, string(c))
	}
	return nil
}

// checkOption refuses a value that would make an argument start with "-"
// where the program would read it as an option.
func (e *expansion) checkOption(at *argTemplate, name, s string, prog string) *tool.Error {
	if at.reader != "" {
		prog = at.reader
	}
	if !e.allow && at.variables && !(at.optValue && !e.eaten) && strings.Contains(s, "=") {
		return tool.Errorf(tool.CodeInvalidArguments,
			"argument %s = %q holds '=', so make would read it as a variable definition overriding the Makefile's: pass a target or file name without '='",
			name, s)
	}
	if !e.allow && at.findExpr && !(at.primaryValue && !e.eaten) && (s == "!" || s == "(" || s == ")" || s == ",") {
		return tool.Errorf(tool.CodeInvalidArguments,
			"argument %s = %q is an operator that find reads as part of its expression, not as a starting point: pass a directory (a file of that name can be written ./%s)",
			name, s, s)
	}
	// find reads an argument starting with "-" as the start of its
	// expression even after "--", which ends only its own options (-H,
	// -L, -P): find -- {dir} -type f given "-delete" deletes.
	if !e.allow && at.findExpr && !(at.primaryValue && !e.eaten) && strings.HasPrefix(s, "-") {
		return tool.Errorf(tool.CodeInvalidArguments,
			"argument %s = %q starts with '-', so find would read it as part of its expression (a \"--\" before it does not end find's expression): pass a directory that does not start with '-' (a file name can be written ./%s)",
			name, s, s)
	}
	if e.allow || e.operands || !at.leading || !strings.HasPrefix(s, "-") {
		return nil
	}
	if e.runner != "" {
		return tool.Errorf(tool.CodeInvalidArguments,
			"argument %s = %q starts with '-', so the program %s runs after its \"--\" would read it as an option: pass a value that does not start with '-' (a file name can be written ./%s)",
			name, s, e.runner, s)
	}
	return tool.Errorf(tool.CodeInvalidArguments,
		"argument %s = %q starts with '-', so %s would read it as an option: pass a value that does not start with '-' (a file name can be written ./%s)%s",
		name, s, prog, s, e.swallowed)
}

// scalar formats one JSON value as an argument: strings as they are,
// numbers as written in plain decimal, booleans as true/false.
func scalar(name string, v any) (string, *tool.Error) {
	switch x := v.(type) {
	case string:
		if strings.IndexByte(x, 0) >= 0 {
			return "", tool.Errorf(tool.CodeInvalidArguments, "argument %s contains a NUL byte, which no command argument can hold", name)
		}
		return x, nil
	case json.Number:
		return plainNumber(string(x)), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", nil
	}
	return "", tool.Errorf(tool.CodeInvalidArguments, "argument %s is a JSON %s: only strings, numbers and booleans can fill a command argument", name, kind(v))
}

// plainNumber writes a JSON number without an exponent.
func plainNumber(s string) string {
	if !strings.ContainsAny(s, "eE") {
		return s
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}
