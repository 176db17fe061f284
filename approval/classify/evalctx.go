package classify

import (
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates some strings later as code: the operands of arithmetic
// (a variable holding "a[$(cmd)]" runs cmd when it is used in $(( ))),
// indirect expansion (${!x}), prompt expansion (${x@P}), the subscripts of
// names given to -v, read, printf -v and declare. The functions here let
// such a construct be Safe only when every value it evaluates is known to be
// harmless: a number, or a variable this command line set to a number.

const evalLater = "bash evaluates the value as code (a value like a[$(cmd)] runs cmd)"

var numberRe = regexp.MustCompile(`^([0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+)$`)

var nameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// plainName reports whether s is a variable name, optionally with a literal
// numeric or @/* subscript: what -v, read and printf -v may name safely.
var plainNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[([0-9]+|@|\*)\])?$`)

// numeric reports whether the variable name is known to hold a number.
func (s *state) numeric(name string) bool {
	switch name {
	case "#", "?", "$", "!", "RANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "SRANDOM", "EPOCHSECONDS":
		return true
	}
	// Each use reads the value again: it counts as expanded text.
	v, ok := s.known(name)
	return ok && numberRe.MatchString(strings.TrimSpace(v))
}

// arith judges an arithmetic expression: each variable it reads must be
// known to hold a number. Variables it assigns become numbers.
func (s *state) arith(x syntax.ArithmExpr, where string) {
	if x == nil {
		return
	}
	s.arithDepth++
	defer func() { s.arithDepth-- }()
	if s.arithDepth > s.c.rules.Limits.MaxNesting {
		if !s.stopped {
			s.overLimit(fmt.Sprintf("arithmetic nested more than %d levels deep", s.c.rules.Limits.MaxNesting))
		}
		s.stopped = true
		return
	}
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		assign := x.Op == syntax.Assgn || (x.Op >= syntax.AddAssgn && x.Op <= syntax.PowAssgn)
		if assign {
			if n, ok := arithName(x.X); ok {
				if x.Op != syntax.Assgn && !s.numeric(n) {
					s.note(Dangerous, fmt.Sprintf("%s reads %s, whose value is not known: %s", where, n, evalLater))
				}
				s.arith(x.Y, where)
				s.arithAssigned(n)
				return
			}
		}
		s.arith(x.X, where)
		s.arith(x.Y, where)
	case *syntax.UnaryArithm:
		s.arith(x.X, where)
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			if n, ok := arithName(x.X); ok {
				s.arithAssigned(n)
			}
		}
	case *syntax.ParenArithm:
		s.arith(x.X, where)
	case *syntax.Word:
		s.arithWord(x, where)
	default:
		s.note(Warning, fmt.Sprintf("%s: unsupported arithmetic %T", where, x))
	}
}

// arithAssigned judges an arithmetic assignment to the variable n, which
// then holds a number: (( PATH = 1 )) makes ls run ./1/ls.
func (s *state) arithAssigned(n string) {
	s.judgeVar(n, nil, false, nil)
	if n == "IFS" {
		s.ifsChanged()
	}
	s.setVar(n, "0", true)
}

// arithName returns the variable an arithmetic operand names (x, not $x).
func arithName(x syntax.ArithmExpr) (string, bool) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !nameRe.MatchString(l.Value) {
		return "", false
	}
	return l.Value, true
}

// arithWord judges one operand of an arithmetic expression.
func (s *state) arithWord(w *syntax.Word, where string) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if numberRe.MatchString(v) {
				continue
			}
			if nameRe.MatchString(v) {
				if !s.numeric(v) {
					s.note(Dangerous, fmt.Sprintf("%s reads %s, whose value is not known: %s", where, v, evalLater))
				}
				continue
			}
			s.note(Dangerous, fmt.Sprintf("%s evaluates %q: %s", where, v, evalLater))
		case *syntax.ParamExp:
			switch {
			case p.Length || p.Param == nil:
				// ${#x} is a number.
			case p.Index != nil:
				s.arith(p.Index, where)
				s.note(Dangerous, fmt.Sprintf("%s reads the array element %s, whose value is not known: %s", where, s.text(p), evalLater))
			case simpleParam(p) && s.numeric(p.Param.Value):
			default:
				s.note(Dangerous, fmt.Sprintf("%s reads %s, whose value is not known: %s", where, s.text(p), evalLater))
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			// Walked as commands by the caller; their output is evaluated.
			s.note(Dangerous, fmt.Sprintf("%s evaluates the output of %s: %s", where, s.text(p), evalLater))
		case *syntax.ArithmExp:
			s.arith(p.X, where)
		case *syntax.SglQuoted, *syntax.DblQuoted:
			// let "x=y+1" and (( "x" )) quote whole expressions; judge the
			// text as an expression.
			s.arithText(s.text(p), where)
		default:
			s.note(Dangerous, fmt.Sprintf("%s evaluates %s: %s", where, s.text(p), evalLater))
		}
	}
}

// arithText judges a quoted arithmetic expression by parsing it.
func (s *state) arithText(src, where string) {
	src = strings.Trim(src, `"'`)
	if strings.ContainsAny(src, "$`") || strings.Contains(src, "[") {
		s.note(Dangerous, fmt.Sprintf("%s evaluates %q: %s", where, src, evalLater))
		return
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader("(( "+src+" ))"), "")
	if err != nil || len(f.Stmts) != 1 {
		s.note(Dangerous, fmt.Sprintf("%s evaluates %q, which does not parse: %s", where, src, evalLater))
		return
	}
	ac, ok := f.Stmts[0].Cmd.(*syntax.ArithmCmd)
	if !ok {
		s.note(Dangerous, fmt.Sprintf("%s evaluates %q: %s", where, src, evalLater))
		return
	}
	old := s.src
	s.src = "(( " + src + " ))"
	s.arith(ac.X, where)
	s.src = old
}

// paramExp judges what a parameter expansion evaluates: array subscripts
// and slices (arithmetic), indirect expansion, prompt expansion.
func (s *state) paramExp(p *syntax.ParamExp) {
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); !ok || (w.Lit() != "@" && w.Lit() != "*") {
			s.arith(p.Index, "the subscript of "+s.text(p))
		}
	}
	if p.Slice != nil {
		s.arith(p.Slice.Offset, "the offset of "+s.text(p))
		s.arith(p.Slice.Length, "the length of "+s.text(p))
	}
	if p.Excl && p.Names == 0 && p.Param != nil && !(p.Index != nil) {
		// ${!x}: the value of the variable named by x's value.
		v, ok := s.known(p.Param.Value)
		if !ok || !nameRe.MatchString(v) {
			s.note(Dangerous, fmt.Sprintf("%s expands the variable named by %s: %s", s.text(p), p.Param.Value, evalLater))
		}
	}
	if p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil {
		// ${CDPATH:=/etc} assigns the variable.
		s.judgeVar(p.Param.Value, nil, false, nil)
		if p.Param.Value == "IFS" {
			s.ifsChanged()
		}
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.ContainsAny(p.Exp.Word.Lit(), "P") {
		s.note(Dangerous, s.text(p)+" expands the value as a prompt, which runs the $(...) in it")
	}
	s.readsVar(p)
}

// readsVar judges the value a parameter expansion gives of a variable the
// line did not set, by the variable rules with Reads ($GITHUB_TOKEN: the
// token goes where the command puts it, back to the model). Its length,
// whether it is set (${X:+x}) and names (${!X*}) give none of it.
func (s *state) readsVar(p *syntax.ParamExp) {
	if p.Param == nil || p.Length || p.Width || p.Excl || p.Exp != nil &&
		(p.Exp.Op == syntax.AlternateUnset || p.Exp.Op == syntax.AlternateUnsetOrNull) {
		return
	}
	name := p.Param.Value
	if _, set := s.vars[name]; set {
		return
	}
	if _, set := s.arrays[name]; set {
		return
	}
	for i, r := range s.c.rules.Variables {
		if r.Reads && s.c.vars[i].match(name) {
			s.note(r.Level, reasonOr(r.Reason, "expands "+name)+": "+s.text(p))
			return
		}
	}
}

// checkName judges a word that names a variable bash will assign or test
// (read NAME, printf -v NAME, test -v NAME, mapfile NAME). A subscript in
// it is evaluated as arithmetic.
func (s *state) checkName(cmd string, w word, assigns bool, j *judgement) {
	if w.unknown() || !plainNameRe.MatchString(w.s) {
		j.add(Dangerous, fmt.Sprintf("%s is given the name %s: %s", cmd, w.s, evalLater))
		return
	}
	if !assigns {
		return
	}
	n, _, _ := strings.Cut(w.s, "[")
	s.judgeVarAssign(n, j)
	if n == "IFS" {
		s.ifsChanged()
	}
	s.setVar(n, "", false)
}

// extglob judges an extended glob: bash expands the substitutions in its
// pattern, which the parser leaves as text.
func (s *state) extglob(p *syntax.ExtGlob) bool {
	if p.Pattern != nil && strings.ContainsAny(p.Pattern.Value, "$`") {
		s.note(Dangerous, "an extended glob pattern holds an expansion the shell runs: "+s.text(p))
		return true
	}
	return false
}
