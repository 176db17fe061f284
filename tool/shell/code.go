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
// given -c (sh -c 'grep {pattern} notes.txt') or an interpreter's inline
// code (python3 -c "print('{x}')"), where a value such as "x; rm -rf ~"
// would run as code, whatever the argv does. The shells and interpreters
// are those of the command classifier's default rules, found anywhere in
// the argv (behind timeout, env, ...). A script that is a whole placeholder
// ("{script}") is the author handing the model a shell, and is allowed.
func checkCode(args []argTemplate) []error {
	rules := classify.Default().Rules()
	var errs []error
	for i := range args {
		lit, ok := args[i].literal()
		if !ok {
			continue
		}
		prog := path.Base(lit)
		var j int
		var fix string
		if sh, ok := rules.Shells[prog]; ok {
			j = shellScript(args, i+1, sh.ValueFlags)
			fix = fmt.Sprintf(`read the value in the script as the positional parameter "$1", and pass it after the script and a name: %s -c 'grep -- "$1" notes.txt' %s {pattern}`, lit, prog)
		} else if ir := interpreter(rules, prog); ir != nil {
			j = inlineCode(args, i+1, ir)
			fix = "pass the value as an argument of its own after the code, and read it from the program's arguments (sys.argv[1], process.argv[1], $ARGV[0])"
		} else {
			continue
		}
		if j < 0 || args[j].whole || len(args[j].placeholders()) == 0 {
			continue
		}
		errs = append(errs, &tool.ConfigError{Field: "argv." + strconv.Itoa(j), Message: fmt.Sprintf(
			"{%s} is spliced into the code %s runs, so a value such as \"x; rm -rf ~\" would run as code: %s",
			args[j].placeholders()[0], prog, fix)})
	}
	return errs
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

// interpreter returns the rule of an interpreter named prog (python3,
// python3.12, node, perl, ...), or nil.
func interpreter(rules classify.Rules, prog string) *classify.InterpreterRule {
	if ir, ok := rules.Interpreters[prog]; ok {
		return ir
	}
	for name, ir := range rules.Interpreters {
		if ok, _ := path.Match(name, prog); ok {
			return ir
		}
	}
	return nil
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
			if len(at.parts) > 0 && at.parts[0].name == "" && attachedCode(at.parts[0].lit, ir.CodeFlags) {
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
func attachedCode(s string, flags []string) bool {
	for _, f := range flags {
		if len(f) == 2 && f[0] == '-' && strings.HasPrefix(s, f) ||
			strings.HasPrefix(f, "--") && strings.HasPrefix(s, f+"=") {
			return true
		}
	}
	return false
}
