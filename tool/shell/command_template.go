package shell

import (
	"fmt"
	"github.com/toolbelt-go/toolbelt/internal/placeholder"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ParseCommandTemplate turns a shell-style command template such as
//
//	rm -- {path}
//	git log --oneline -n {count} "{ref}"
//
// into an argv list (["rm", "--", "{path}"]) using a real shell parser
// (mvdan.cc/sh/v3/syntax). Quotes group words and are removed; {name}
// placeholders stay in place for the shell backend to fill, each as part of
// one argument, so a value can never become a second argument or a second
// command.
//
// Anything but plain words and placeholders is refused, with the reason:
// pipes, &&/||, ;, &, redirections, command and process substitution,
// variables, arithmetic, globs, ~, brace expansion, variable assignments,
// compound commands and comments. A command that needs those is a script:
// give it as an argv list running a script file, not as a template.
func ParseCommandTemplate(s string) ([]string, error) {
	fail := func(what string) ([]string, error) {
		return nil, fmt.Errorf("command template %q %s: write the command as plain words and {placeholders}, or give it as a list of arguments", s, what)
	}
	if strings.TrimSpace(s) == "" {
		return fail("is empty")
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return fail("does not parse as a command (" + err.Error() + ")")
	}
	switch {
	case len(f.Stmts) == 0:
		return fail("holds no command")
	case len(f.Stmts) > 1:
		return fail("holds more than one command (; or a line break)")
	case len(f.Last) > 0 || len(f.Stmts[0].Comments) > 0:
		return fail("contains a comment (#): quote the # if it belongs to an argument")
	}
	st := f.Stmts[0]
	switch {
	case st.Background || st.Coprocess || st.Disown:
		return fail("runs in the background (&)")
	case st.Negated:
		return fail("negates its status (!)")
	case len(st.Redirs) > 0:
		return fail("contains a redirection (<, >, >>, 2>&1, <<)")
	}
	var call *syntax.CallExpr
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		call = c
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return fail("contains a pipe (|)")
		}
		return fail("chains commands with " + c.Op.String())
	case nil:
		return fail("holds no command")
	default:
		return fail("is a compound command (subshell, block, if, for, while, case, function...)")
	}
	if len(call.Assigns) > 0 {
		return fail("assigns a variable (NAME=value)")
	}
	if len(call.Args) == 0 {
		return fail("holds no command")
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		arg, what := wordText(w)
		if what != "" {
			return fail(what)
		}
		if err := checkPlaceholders(arg); err != nil {
			return fail(err.Error())
		}
		argv = append(argv, arg)
	}
	return argv, nil
}

// wordText returns the literal text of a word, or what makes it not literal.
func wordText(w *syntax.Word) (string, string) {
	var b strings.Builder
	for i, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			if strings.ContainsAny(v, "*?[") {
				return "", "contains a glob (*, ? or [)"
			}
			if i == 0 && strings.HasPrefix(v, "~") {
				return "", "starts a word with ~ (home directory expansion)"
			}
			b.WriteString(unescape(v, false))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", "uses $'...' quoting"
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", "uses $\"...\" quoting"
			}
			for _, q := range x.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", nonLiteral(q)
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", nonLiteral(p)
		}
	}
	return b.String(), ""
}

func nonLiteral(p syntax.WordPart) string {
	switch p.(type) {
	case *syntax.ParamExp:
		return "expands a variable ($NAME)"
	case *syntax.CmdSubst:
		return "contains a command substitution ($(...) or `...`)"
	case *syntax.ArithmExp:
		return "contains arithmetic expansion ($((...)))"
	case *syntax.ProcSubst:
		return "contains a process substitution (<(...) or >(...))"
	case *syntax.ExtGlob:
		return "contains an extended glob"
	case *syntax.BraceExp:
		return "contains a brace expansion"
	}
	return fmt.Sprintf("contains a %T", p)
}

// unescape removes shell backslash escapes: outside quotes a backslash
// keeps the next character; inside double quotes only before $ ` " \ and
// a line break.
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !dquoted || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// checkPlaceholders checks that every brace in arg belongs to a {name}
// placeholder (no escapes: a shell command line has no use for {{ }}, and
// brace expansion is not supported).
func checkPlaceholders(arg string) error {
	_, err := placeholder.Parse(arg, false)
	return err
}
