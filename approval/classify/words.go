package classify

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one resolved shell word (after brace expansion).
type word struct {
	s        string // the value; source text stands in for expansions
	lit      bool   // fully literal: s is exactly what the shell would pass
	glob     bool   // has unquoted glob characters
	brace    bool   // came out of a brace expansion
	subst    bool   // contains a command or process substitution
	download bool   // a substitution in it runs a downloader
	proc     bool   // the word is a process substitution <(...)
	split    bool   // has an unquoted expansion: it may become several words
	prefix   int    // bytes of s that are literal before the first expansion
	dyn      bool   // prefix is set: an expansion was seen
	input    bool   // filled in when it runs with a name find or xargs read ({})
	execs    bool   // a >(...) whose command runs what it reads as code (>(bash))
	// dynParts counts the expansions whose value is not known, up to 255.
	dynParts uint8
	// holes are the spans of s that stand for a parameter expansion or
	// command substitution whose value is not known: any text.
	holes [][2]int
	// defaults are the values the line spells out for some holes:
	// ${x:-.env} is .env when x is unset (see holesAsDefaults).
	defaults []holeDefault
}

// holeDefault is the value a hole of a word (span, in s) has when its
// variable is unset: the WORD of ${x:-WORD}.
type holeDefault struct {
	span [2]int
	text string
}

// holesAsDefaults returns s with each hole that has a default as that
// default and any other as a '*' (a glob), and whether there was one: the
// word as it is when the variables the line did not set are unset, as in
// the scrubbed environment a command runs in. A word whose holes were
// dropped (its text replaced) has none.
func (r *word) holesAsDefaults() (string, bool) {
	if len(r.defaults) == 0 {
		return "", false
	}
	var b strings.Builder
	at, used := 0, false
	for _, h := range r.holes {
		if h[0] < at || h[1] > len(r.s) {
			return "", false // s was changed since
		}
		b.WriteString(r.s[at:h[0]])
		if k := slices.IndexFunc(r.defaults, func(d holeDefault) bool { return d.span == h }); k >= 0 {
			b.WriteString(r.defaults[k].text)
			used = true
		} else {
			b.WriteByte('*')
		}
		at = h[1]
	}
	b.WriteString(r.s[at:])
	return b.String(), used
}

// holesAsGlob returns s with each of its holes as a '*', and whether it
// had any.
func (r *word) holesAsGlob() (string, bool) {
	if len(r.holes) == 0 {
		return "", false
	}
	var b strings.Builder
	at := 0
	for _, h := range r.holes {
		if h[0] < at || h[1] > len(r.s) {
			return "", false // s was changed since
		}
		b.WriteString(r.s[at:h[0]])
		if t := r.s[h[0]:h[1]]; h[0] == 0 && (t == "$HOME" || t == "${HOME}") {
			b.WriteString(t) // a home path, as secretName reads it
		} else {
			b.WriteByte('*')
		}
		at = h[1]
	}
	b.WriteString(r.s[at:])
	return b.String(), true
}

// cut drops the first n bytes of s (--file=NAME is NAME), and the holes
// in them.
func (r word) cut(n int) word {
	r.s = r.s[n:]
	r.prefix = max(r.prefix-n, 0)
	var hs [][2]int
	for _, h := range r.holes {
		if h[0] >= n {
			hs = append(hs, [2]int{h[0] - n, h[1] - n})
		} else if h[1] > n {
			hs = append(hs, [2]int{0, h[1] - n})
		}
	}
	r.holes = hs
	var ds []holeDefault
	for _, d := range r.defaults {
		if d.span[0] >= n {
			ds = append(ds, holeDefault{[2]int{d.span[0] - n, d.span[1] - n}, d.text})
		}
	}
	r.defaults = ds
	return r
}

// dynamic marks the word as holding an expansion whose value is not known,
// remembering how much literal text came before it.
func (r *word) dynamic(at int, quoted bool) {
	if r.dynParts < 255 {
		r.dynParts++
	}
	if !r.dyn {
		r.dyn, r.prefix = true, at
	}
	r.lit = false
	if !quoted {
		r.split = true
	}
}

// text returns the source text of a node, or "" when positions are unusable.
func (s *state) text(n syntax.Node) string {
	if n == nil {
		return ""
	}
	p, e := n.Pos(), n.End()
	if !p.IsValid() || !e.IsValid() {
		return ""
	}
	a, b := int(p.Offset()), int(e.Offset())
	if a < 0 || b > len(s.src) || a > b {
		return ""
	}
	return s.src[a:b]
}

// words resolves a word into the fields it produces. Substitutions inside
// are walked and judged as commands.
func (s *state) words(w *syntax.Word) []word {
	if w == nil || len(w.Parts) == 0 {
		return []word{{lit: true}}
	}
	if escapedBrace(w) {
		// \{a,b\} is not expanded by bash; the parser would expand it.
		// Keep the word whole, and never treat it as a known literal.
		r := s.word(w)
		r.dynamic(0, true)
		return []word{r}
	}
	tooLarge := func() []word {
		s.note(s.c.rules.Defaults.DynamicCommand, "brace expansion too large to judge")
		r := s.word(w)
		r.lit = false
		r.brace = true
		return []word{r}
	}
	if braceOpens(w) > maxBraceOpens {
		return tooLarge()
	}
	if syntax.SplitBraces(w) && !s.stopped {
		if braceCount(w, s.c.rules.Limits.MaxBraceExpansion+1) > s.c.rules.Limits.MaxBraceExpansion {
			return tooLarge()
		}
		exp := expand.Braces(w)
		out := make([]word, 0, len(exp))
		for _, e := range exp {
			r := s.word(e)
			r.brace = true
			out = append(out, r)
			if !s.expand(len(r.s) + 1) {
				break
			}
		}
		return out
	}
	// "${a[@]}" of an array (or "$@" of positional parameters) the line
	// set to known values is one word for each.
	if vals, quoted, ok := s.arrayWords(w); ok {
		n := 0
		for _, v := range vals {
			n += len(v) + 1
		}
		if !s.expand(n) {
			return []word{s.word(w)}
		}
		out := make([]word, 0, len(vals))
		for _, v := range vals {
			if v == anyElems {
				// Values not known: the expansion as it is.
				out = append(out, s.word(w))
				continue
			}
			if quoted {
				out = append(out, word{s: v})
				continue
			}
			for _, x := range strings.Fields(v) {
				out = append(out, word{s: x, glob: strings.ContainsAny(x, "*?") || strings.Contains(x, "[") && strings.Contains(x, "]")})
			}
		}
		if len(out) == 0 {
			// No word at all: judged as an empty one, never less careful.
			out = append(out, word{})
		}
		return out
	}
	// An unquoted lone $X with a known literal value splits into fields.
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && simpleParam(pe) {
			if v, ok := s.known(pe.Param.Value); ok {
				f := strings.Fields(v)
				out := make([]word, 0, len(f))
				for _, x := range f {
					// Each field is a glob too: x='.gi?/config'; echo >
					// $x writes .git/config.
					out = append(out, word{s: x, glob: strings.ContainsAny(x, "*?") || strings.Contains(x, "[") && strings.Contains(x, "]")})
				}
				if len(out) == 0 {
					out = append(out, word{})
				}
				return out
			}
		}
	}
	return []word{s.word(w)}
}

// maxExpandedText bounds the text the expansions of a line's words make
// (the values of variables and arrays the line set, the words of brace
// expansions), in multiples of Limits.MaxLength: each use makes its
// value again, so a long value used many times, or doubled (a=$a$a),
// would cost far more than the line's length.
const maxExpandedText = 4

// expand counts n bytes of text made by an expansion, and reports
// whether they are within maxExpandedText; past it the line is over a
// limit, and the expansion is left as it is written.
func (s *state) expand(n int) bool {
	if s.stopped {
		return false
	}
	s.expanded += n
	if limit := maxExpandedText * s.c.rules.Limits.MaxLength; s.expanded > limit {
		s.overLimit(fmt.Sprintf("text made by expansions longer than %d bytes in all (each use of a variable's value counts again)", limit))
		s.stopped = true
		return false
	}
	return true
}

// known returns the value the line set the variable name to, when it is
// known, counting it as expanded text (see expand).
func (s *state) known(name string) (string, bool) {
	v, ok := s.vars[name]
	if !ok || !s.expand(len(v)) {
		return "", false
	}
	return v, true
}

// arrayWords returns the known values of a word that is only "${a[@]}",
// ${a[@]}, ${a[*]}, "$@", $@ or $*, the one value of "${a[*]}" or "$*"
// (the values joined by a space, IFS's first character: a line that
// sets IFS forgets its arrays), or the one of "${a[N]}" (and "$a", N
// being 0) when all of a's are known, and whether it was quoted. anyElems among them stands for
// values not known.
func (s *state) arrayWords(w *syntax.Word) ([]string, bool, bool) {
	if len(s.arrays) == 0 || len(w.Parts) != 1 {
		return nil, false, false
	}
	p, quoted := w.Parts[0], false
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p, quoted = dq.Parts[0], true
	}
	pe, ok := p.(*syntax.ParamExp)
	if !ok || pe.Param == nil || s.fetchedVars[pe.Param.Value] {
		return nil, false, false
	}
	if pe.Index == nil && (pe.Param.Value == "@" || pe.Param.Value == "*") {
		vals, ok := s.arrays["@"]
		vals, sliced := sliceOf(pe.Slice, vals, true)
		x := *pe
		x.Slice = nil
		return joinedIf(quoted && pe.Param.Value == "*", vals), quoted, ok && sliced && simpleParam(&x)
	}
	if vals, ok := s.arrays[pe.Param.Value]; pe.Index == nil && ok && len(vals) > 0 && !slices.Contains(vals, anyElems) && simpleParam(pe) {
		return vals[:1], quoted, true // "$a" is "${a[0]}"
	}
	iw, ok := pe.Index.(*syntax.Word)
	if !ok {
		return nil, false, false
	}
	x := *pe
	x.Index = nil
	vals, ok := s.arrays[pe.Param.Value]
	if pe.Slice != nil {
		if iw.Lit() != "@" && iw.Lit() != "*" {
			return nil, false, false
		}
		var sliced bool
		vals, sliced = sliceOf(pe.Slice, vals, false)
		ok = ok && sliced
		x.Slice = nil
	}
	if i := iw.Lit(); isDigits(i) && len(i) < 6 && ok && !slices.Contains(vals, anyElems) {
		// "${a[1]}" of an array whose values are all known, in order
		// from index 0.
		if n, _ := strconv.Atoi(i); n < len(vals) && simpleParam(&x) {
			return vals[n : n+1], quoted, true
		}
		return nil, false, false
	}
	if iw.Lit() != "@" && iw.Lit() != "*" {
		return nil, false, false
	}
	return joinedIf(quoted && iw.Lit() == "*", vals), quoted, ok && simpleParam(&x)
}

// sliceOf returns the values ${a[@]:OFF:LEN} (or ${@:OFF:LEN}, whose
// offset 1 is $1) keeps of vals, for a literal offset and length that are
// not negative and values all known, and whether it could tell: the
// slice's positions are not known when a value stands for any number of
// them, and ${@:0} starts with $0. No slice keeps them all.
func sliceOf(sl *syntax.Slice, vals []string, positional bool) ([]string, bool) {
	if sl == nil {
		return vals, true
	}
	num := func(x syntax.ArithmExpr) (int, bool) {
		w, ok := x.(*syntax.Word)
		if !ok || !isDigits(w.Lit()) || len(w.Lit()) > 5 {
			return 0, false
		}
		n, err := strconv.Atoi(w.Lit())
		return n, err == nil
	}
	off, ok := num(sl.Offset)
	if !ok || slices.Contains(vals, anyElems) || positional && off == 0 {
		return nil, false
	}
	if positional {
		off--
	}
	off = min(off, len(vals))
	end := len(vals)
	if sl.Length != nil {
		n, ok := num(sl.Length)
		if !ok {
			return nil, false
		}
		end = min(off+n, end)
	}
	return vals[off:end], true
}

// joinedIf returns, when join is set, the one word "${a[*]}" makes of
// an array's values: them joined by a space, or anyElems when one is not
// known; else the values.
func joinedIf(join bool, vals []string) []string {
	switch {
	case !join:
		return vals
	case slices.Contains(vals, anyElems):
		return []string{anyElems}
	}
	return []string{strings.Join(vals, " ")}
}

// defaultText is the value ${x:-WORD} (or -, :=, =, :+, +) has when x is
// unset (set, for :+ and +): WORD, with $HOME at its start as ~, a
// variable the line set to a known value as that value, and any other
// expansion as '*'. It is false for other expansions.
func (s *state) defaultText(p *syntax.ParamExp) (string, bool) {
	if p.Exp == nil || p.Exp.Word == nil {
		return "", false
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
	default:
		return "", false
	}
	return wordText(p.Exp.Word, func(q syntax.WordPart, atStart bool) (string, bool) {
		if pe, ok := q.(*syntax.ParamExp); ok && simpleParam(pe) {
			if atStart && pe.Param.Value == "HOME" {
				return "~", true
			}
			if v, ok := s.known(pe.Param.Value); ok {
				return v, true
			}
		}
		// A default inside a default: ${x:-${y:-.env}} is .env when
		// both are unset.
		if pe, ok := q.(*syntax.ParamExp); ok {
			if d, ok := s.defaultText(pe); ok {
				return d, true
			}
		}
		return "*", true
	})
}

// setValue returns the value of $x or ${x}, and of ${x:-WORD} (-, :=,
// =, :?, ?), when the line set x to a known value that is not empty:
// WORD is then never used, and the expansion is x's value (u=URL; curl
// "${u:-z}" fetches URL).
func (s *state) setValue(p *syntax.ParamExp) (string, bool) {
	if simpleParam(p) {
		return s.known(p.Param.Value)
	}
	if p.Exp == nil {
		return "", false
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
	default:
		return "", false
	}
	x := *p
	x.Exp = nil
	if !simpleParam(&x) || s.vars[p.Param.Value] == "" {
		return "", false
	}
	return s.known(p.Param.Value)
}

func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet && pe.Flags == nil &&
		pe.NestedParam == nil && pe.Index == nil && len(pe.Modifiers) == 0 && pe.Slice == nil &&
		pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}

// word resolves one word without brace expansion or field splitting.
func (s *state) word(w *syntax.Word) word {
	r := word{lit: true}
	if w == nil {
		return r
	}
	var b strings.Builder
	for _, p := range w.Parts {
		s.part(p, &b, &r, false)
	}
	r.s = b.String()
	if !r.dyn {
		r.prefix = len(r.s)
	}
	if len(w.Parts) == 1 {
		if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op != syntax.CmdOut {
			r.proc = true
		}
	}
	return r
}

func (s *state) part(p syntax.WordPart, b *strings.Builder, r *word, quoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		if quoted {
			b.WriteString(unescapeDouble(p.Value))
		} else {
			v, g := unescapeBare(p.Value)
			b.WriteString(v)
			r.glob = r.glob || g
		}
	case *syntax.SglQuoted:
		if p.Dollar {
			b.WriteString(ansiC(p.Value))
		} else {
			b.WriteString(p.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			s.part(q, b, r, true)
		}
	case *syntax.ParamExp:
		s.nested(p, r)
		s.paramExp(p)
		if p.Param != nil && s.fetchedVars[p.Param.Value] {
			r.download = true
		}
		if quoted {
			s.quotedDefault(p, r)
		}
		if v, ok := s.setValue(p); ok {
			// A known value: literal text, but not a literal word.
			r.lit = false
			if !r.dyn && !quoted && strings.ContainsAny(v, " \t\n*?[") {
				r.split = true
			}
			b.WriteString(v)
			return
		}
		r.dynamic(b.Len(), quoted)
		at := b.Len()
		b.WriteString(s.text(p))
		r.holes = append(r.holes, [2]int{at, b.Len()})
		if d, ok := s.defaultText(p); ok {
			r.defaults = append(r.defaults, holeDefault{[2]int{at, b.Len()}, d})
		}
	case *syntax.CmdSubst:
		inf := s.walkStmts(p.Stmts)
		s.substListed(inf)
		if len(p.Stmts) == 1 {
			if t, exact, _ := s.echoText(p.Stmts[0]); exact {
				// $(echo ~) is the text echo writes, without its
				// trailing newlines: known, as a variable's value is.
				t = strings.TrimRight(t, "\n")
				r.lit, r.subst = false, true
				if !r.dyn && !quoted && strings.ContainsAny(t, " \t\n*?[") {
					r.split = true
				}
				b.WriteString(t)
				return
			}
		}
		r.dynamic(b.Len(), quoted)
		r.subst = true
		// In a stage after a downloader, the substitution reads the
		// stage's input, the download ("$(cat)").
		r.download = r.download || inf.download || s.pipedDownload && s.pipeIn != pipeNone
		at := b.Len()
		t := s.text(p)
		b.WriteString(t)
		r.holes = append(r.holes, [2]int{at, b.Len()})
		if t != "" && !s.listedNames[t] && listsWorkdir(p.Stmts) {
			if s.listedNames == nil {
				s.listedNames = map[string]bool{}
			}
			s.listedNames[t] = true
		}
	case *syntax.ProcSubst:
		inf := s.walkStmts(p.Stmts)
		s.substListed(inf)
		r.dynamic(b.Len(), true)
		r.subst = true
		r.download = r.download || inf.download
		r.execs = r.execs || p.Op == syntax.CmdOut && inf.execStdin
		b.WriteString(s.text(p))
	case *syntax.ArithmExp:
		s.nested(p, r)
		s.arith(p.X, "$(( ))")
		r.dynamic(b.Len(), true)
		b.WriteString(s.text(p))
	case *syntax.ExtGlob:
		r.glob = true
		if s.extglob(p) {
			r.dynamic(b.Len(), quoted)
		}
		b.WriteString(s.text(p))
	case *syntax.BraceExp:
		// Only left unexpanded when too large: walk it for substitutions.
		r.dynamic(b.Len(), quoted)
		var discard strings.Builder
		for _, e := range p.Elems {
			for _, q := range e.Parts {
				s.part(q, &discard, r, quoted)
			}
		}
		b.WriteString(s.text(p))
	default:
		// Anything a future parser adds: not understood, never Safe.
		s.nested(p, r)
		s.note(Warning, fmt.Sprintf("unsupported word part %T", p))
		r.dynamic(b.Len(), quoted)
		b.WriteString(s.text(p))
	}
}

// substListed notes the secret files a substitution's command lists
// (find ~/.config): its output becomes words (cat $(find ~/.config)) or
// input (xargs cat < <(find ~/.config)) of the line, which reads them.
func (s *state) substListed(inf info) {
	if inf.listsSecret.level > Safe {
		s.note(inf.listsSecret.level, inf.listsSecret.reason+", whose names a substitution gives the line to read")
	}
}

// nested walks substitutions hidden inside expansions (${x:-$(cmd)},
// $(( $(cmd) ))).
func (s *state) nested(n syntax.Node, r *word) {
	root := n
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			// What an expansion inside another, or in [[ ]], evaluates:
			// ${x#$((y))}, [[ ${a[y]} ]] (the caller judges the root).
			if n != root {
				s.paramExp(n)
			}
		case *syntax.ArithmExp:
			if n != root {
				s.arith(n.X, "$(( ))")
			}
		case *syntax.DblQuoted:
			for _, q := range n.Parts {
				if pe, ok := q.(*syntax.ParamExp); ok {
					s.quotedDefault(pe, r)
				}
			}
		case *syntax.ExtGlob:
			s.extglob(n)
		case *syntax.CmdSubst:
			inf := s.walkStmts(n.Stmts)
			s.substListed(inf)
			r.subst = true
			r.download = r.download || inf.download
			return false
		case *syntax.ProcSubst:
			inf := s.walkStmts(n.Stmts)
			s.substListed(inf)
			r.subst = true
			r.download = r.download || inf.download
			return false
		}
		return true
	})
}

// unescapeBare removes the backslashes of an unquoted literal and reports
// whether it holds unescaped glob characters.
func unescapeBare(v string) (string, bool) {
	if !strings.ContainsAny(v, `\*?[`) {
		return v, false
	}
	var b strings.Builder
	glob := false
	// bracketTo is the index in v of the ']' that ends the bracket
	// expression being copied, where bash ends it: a quoted ']' does not
	// (.e[[:alpha:]\]]v is .env).
	bracketTo := -1
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			switch {
			case v[i] == '\n':
			case v[i] == ']' && i < bracketTo:
				// Kept inside the bracket, which would end at a bare
				// ']': as the collating symbol for it.
				b.WriteString("[.].]")
			default:
				b.WriteByte(v[i])
			}
		case c == '*' || c == '?' || (c == '[' && strings.IndexByte(v[i+1:], ']') >= 0):
			glob = true
			if c == '[' && i > bracketTo {
				bracketTo = bracketEnd(v, i, "!^", '/', true)
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), glob
}

// unescapeDouble removes the backslashes that are special inside double
// quotes (\$ \` \" \\ and line continuations).
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ansiC decodes the body of a $'...' string the way bash does.
func ansiC(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := v[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(v) {
				i++
				if v[i] == '?' {
					b.WriteByte(0x7f)
				} else {
					b.WriteByte(v[i] & 0x1f)
				}
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			width := 2
			if e == 'u' {
				width = 4
			} else if e == 'U' {
				width = 8
			}
			j := i + 1
			for j < len(v) && j-i-1 < width && isHex(v[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(v[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j-i < 3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// braceCount counts the words a brace expansion produces, stopping at limit.
// maxBraceOpens bounds the unquoted '{' in one word: the parser's brace
// splitting takes time that grows faster than their number (4,000 nested
// took over 100 ms; the fuzz target found it), and no word a person writes
// has this many. A word with more is a brace expansion too large to judge.
const maxBraceOpens = 128

// braceOpens counts the unquoted '{' in w, which brace expansion reads.
func braceOpens(w *syntax.Word) int {
	n := 0
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			n += strings.Count(l.Value, "{")
		}
	}
	return n
}

func braceCount(w *syntax.Word, limit int) int {
	n := 1
	for _, p := range w.Parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		var k int
		if br.Sequence {
			k = seqCount(br)
		} else {
			for _, e := range br.Elems {
				k += braceCount(e, limit)
				if k > limit {
					break
				}
			}
		}
		if k <= 0 {
			k = 1
		}
		if n > limit/k {
			return limit
		}
		n *= k
	}
	if n > limit {
		return limit
	}
	return n
}

// seqCount mirrors expand.Braces for {from..to..step}.
func seqCount(br *syntax.BraceExp) int {
	if len(br.Elems) < 2 {
		return 1
	}
	fl, tl := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.Atoi(fl)
	to, err2 := strconv.Atoi(tl)
	if err1 != nil || err2 != nil {
		if fl == "" || tl == "" {
			return 1 << 30
		}
		from, to = int(fl[0]), int(tl[0])
	}
	up := from <= to
	incr := 1
	if len(br.Elems) > 2 {
		n, _ := strconv.Atoi(br.Elems[2].Lit())
		if n != 0 && n > 0 == up {
			incr = n
		}
	}
	if incr < 0 {
		incr = -incr
	}
	span := to - from
	if span < 0 {
		span = -span
	}
	if span < 0 { // overflow
		return 1 << 30
	}
	return span/incr + 1
}

// cleanPath normalises a path-like operand for matching: "//", "/./" and
// trailing slashes collapse, "~/" becomes "~".
func cleanPath(p string) string {
	if p == "" || !strings.Contains(p, "/") {
		return p
	}
	if p[0] == '~' || p[0] == '$' {
		// ~/.. is not the working directory: the first component is a
		// directory known only when the command runs, and ".." may climb
		// out of it (~/../x is /x).
		head, rest, _ := strings.Cut(p, "/")
		// ~//x is ~/x, and ~//.. is ~/.., not ~/.
		if r := path.Clean(strings.TrimLeft(rest, "/")); r != "." {
			return head + "/" + r
		}
		return head
	}
	return path.Clean(p)
}

// wildcard reports whether s matches pattern, where '*' matches any run of
// characters (slashes included), '?' any one byte, and a backslash makes the
// next character literal (`/\*` is the two characters "/*").
func wildcard(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "*?\\") {
		return pattern == s
	}
	return wildMatch(pattern, s, 0)
}

func wildMatch(p, s string, depth int) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			if depth > 8 {
				return false
			}
			for i := 0; i <= len(s); i++ {
				if wildMatch(p, s[i:], depth+1) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			p, s = p[1:], s[1:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return len(s) == 0
}

func anyWildcard(patterns []string, s string) bool {
	for _, p := range patterns {
		if wildcard(p, s) {
			return true
		}
	}
	return false
}

// escapedBrace reports whether an unquoted part of w escapes a brace or a
// comma, which decides whether and how bash expands the braces.
func escapedBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && (strings.Contains(l.Value, `\{`) || strings.Contains(l.Value, `\}`) || strings.Contains(l.Value, `\,`)) {
			return true
		}
	}
	return false
}

// patternSet is a list of wildcard patterns made quick to test: patterns
// without wildcards are looked up in a map.
type patternSet struct {
	exact map[string]bool
	globs []string
	needs []string      // globs[i]'s longest literal run: a name without it cannot match
	toks  [][]globToken // every pattern, for overlaps
	lits  []string      // toks[i]'s longest literal run in lower case, for namedBy
	dirs  []string      // the first directory in lits[i] (".aws/" of .aws/credentials), or ""
	bytes [][]byteCount // the bytes of lits[i], each with how often it occurs
}

// byteCount is how often a byte occurs in a string.
type byteCount struct {
	b byte
	n int32
}

func newPatternSet(patterns []string) patternSet {
	ps := patternSet{exact: map[string]bool{}}
	for _, p := range patterns {
		lit := p
		if strings.ContainsAny(p, "*?\\") {
			ps.globs = append(ps.globs, p)
			lit = longestLiteral(p)
			ps.needs = append(ps.needs, lit)
		} else {
			ps.exact[p] = true
		}
		ps.toks = append(ps.toks, wildcardTokens(p))
		lit = strings.ToLower(lit)
		dir := ""
		// A directory named by at least two bytes: not the root of
		// /etc/shadow or the parent of */Cookies.
		if i := strings.IndexByte(lit, '/'); i >= 2 {
			dir = lit[:i+1]
		}
		var bc []byteCount
		for k := 0; k < len(lit); k++ {
			if strings.IndexByte(lit[:k], lit[k]) < 0 {
				bc = append(bc, byteCount{lit[k], int32(strings.Count(lit, lit[k:k+1]))})
			}
		}
		ps.lits = append(ps.lits, lit)
		ps.dirs = append(ps.dirs, dir)
		ps.bytes = append(ps.bytes, bc)
	}
	return ps
}

// overlaps reports whether some path matches both a pattern of the set
// and the bash glob g. sc is scratch space, reused between calls.
func (ps *patternSet) overlaps(g []globToken, sc *overlapScratch) bool {
	for i := range ps.toks {
		if ps.overlapsOne(i, g, sc) {
			return true
		}
	}
	return false
}

// overlapsOne reports whether some path matches both the set's pattern i
// and the bash glob g. A relative glob never expands to a path that
// starts with '/' or '~'.
func (ps *patternSet) overlapsOne(i int, g []globToken, sc *overlapScratch) bool {
	t := ps.toks[i]
	rel := len(g) == 0 || g[0].kind != 'c' || (g[0].c != '/' && g[0].c != '~')
	if rel && len(t) > 0 && t[0].kind == 'c' && (t[0].c == '/' || t[0].c == '~') {
		return false
	}
	return globsOverlap(t, g, sc)
}

// namedBy reports whether the bash glob g (lower is its text in lower
// case) may expand to a file of one of the set's patterns and names it
// closely enough to be judged by that, rather than be a glob that merely
// could (cat * expands to .env under dotglob): it holds the pattern's
// literal part (cat .env*, *.pem) or a directory in it (~/.aws/*),
// spells at least half of it (see spellsLiteral: .e?v, .e*,
// ~/.a*/credentials), or picks every hidden file of a directory (.*,
// ~/.*/*). Its work, in steps of the walks that grow with the product of
// g's length and a pattern's, is added to work.
func (ps *patternSet) namedBy(lower string, g []globToken, sc *overlapScratch, work *int) bool {
	// A literal whose bytes g does not hold half of cannot be spelled:
	// g's are counted once, then compared in steps of each literal's.
	literals := 0
	for _, t := range g {
		if t.kind == 'c' {
			literals++
		}
	}
	hidden := hiddenAll(g)
	var count *[256]int32 // g's literal bytes, counted when first needed
	for i, lit := range ps.lits {
		named := hidden || lit != "" && len(lit) <= len(lower) && strings.Contains(lower, lit) ||
			ps.dirs[i] != "" && len(ps.dirs[i]) <= len(lower) && strings.Contains(lower, ps.dirs[i])
		if !named && lit != "" && 2*literals >= len(lit) {
			if count == nil {
				if sc.count == nil {
					sc.count = new([256]int32)
				}
				count = sc.count
				clear(count[:])
				for _, t := range g {
					if t.kind == 'c' {
						count[lowerASCII(t.c)]++
					}
				}
			}
			if holdsHalf(len(lit), ps.bytes[i], count) {
				named, sc.best = spellsLiteral(g, lit, sc.best, work)
			}
		}
		if named {
			*work += (len(g) + 1) * (len(ps.toks[i]) + 1)
			if ps.overlapsOne(i, g, sc) {
				return true
			}
		}
	}
	return false
}

// overlapScratch is the memory globsOverlap works in.
type overlapScratch struct {
	seen  []bool
	stack []int
	count *[256]int32 // for patternSet.namedBy
	best  []int       // for spellsLiteral
}

// maxGlobMatch is the longest glob compared with path patterns; a longer
// one may name anything.
const maxGlobMatch = 1024

// globToken is one symbol of a pattern: a literal byte, any one byte ('?'),
// or any run of bytes ('*'), with or without '/'.
type globToken struct {
	kind    byte // 'c' literal, '?' or '*'
	c       byte
	noSlash bool // '?' or '*' that does not match '/'
}

// accepts reports whether some one byte matches both t and u. Letters
// match either case (shopt -s nocaseglob).
func (t globToken) accepts(u globToken) bool {
	switch {
	case t.kind == 'c' && u.kind == 'c':
		return lowerASCII(t.c) == lowerASCII(u.c)
	case t.kind == 'c':
		return !(u.noSlash && t.c == '/')
	case u.kind == 'c':
		return !(t.noSlash && u.c == '/')
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// wildcardTokens reads a path rule's pattern (see wildcard).
func wildcardTokens(p string) []globToken {
	var out []globToken
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' || c == '?':
			out = append(out, globToken{kind: c})
		case c == '\\' && i+1 < len(p):
			i++
			out = append(out, globToken{kind: 'c', c: p[i]})
		default:
			out = append(out, globToken{kind: 'c', c: c})
		}
	}
	return out
}

// bashGlobTokens reads a word bash expands as a glob, widening what bash
// does so that the tokens match at least what it can: a bracket
// expression is any byte but '/', an extended glob (@(...), !(...), ...)
// and "**" (globstar) any run, '*' and '?' any run or byte but '/', a
// leading dot included (dotglob). The word's quoting is gone by now, so a
// quoted '*' counts as a wildcard too.
func bashGlobTokens(g string) []globToken {
	var out []globToken
	for i := 0; i < len(g); i++ {
		c := g[i]
		if c == '*' && i+1 < len(g) && g[i+1] == '*' {
			for i+1 < len(g) && g[i+1] == '*' {
				i++
			}
			out = append(out, globToken{kind: '*'})
			continue
		}
		if strings.IndexByte("*?@!+", c) >= 0 && i+1 < len(g) && g[i+1] == '(' {
			// An extended glob: skip to its closing parenthesis.
			depth := 0
			k := i + 1
			for ; k < len(g); k++ {
				if g[k] == '(' {
					depth++
				} else if g[k] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			out = append(out, globToken{kind: '*'})
			i = k
			continue
		}
		switch c {
		case '*', '?':
			out = append(out, globToken{kind: c, noSlash: true})
			continue
		case '[':
			// bash matches each part between slashes alone, so a
			// bracket ends before the next '/' or is a literal '['.
			if e := bracketEnd(g, i, "!^", '/', false); e >= 0 {
				out = append(out, globToken{kind: '?', noSlash: true})
				i = e
				continue
			}
		}
		out = append(out, globToken{kind: 'c', c: c})
	}
	return out
}

// extglobChoices returns the globs g stands for, one for each choice of
// the alternatives of its extended globs, read as bash reads them (with
// extglob on): @(a|b) is a or b, ?(a|b) also nothing, +(a|b) one of them
// followed by any text, *(a|b) that or nothing, !(...) any text; an
// extended glob inside an alternative is read the same way. It returns
// false when there would be more than limit, and g alone when it holds
// none.
func extglobChoices(g string, limit int) ([]string, bool) {
	out := []string{""}
	lit := 0 // start of the text not yet added to out
	flush := func(end int) {
		for k := range out {
			out[k] += g[lit:end]
		}
	}
	for i := 0; i+1 < len(g); i++ {
		op := g[i]
		if strings.IndexByte("*?@!+", op) < 0 || g[i+1] != '(' {
			continue
		}
		var alts []string
		depth, start, end := 0, i+2, -1
		for k := i + 1; k < len(g) && end < 0; k++ {
			switch g[k] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = k
				}
			case '|':
				if depth == 1 {
					alts = append(alts, g[start:k])
					start = k + 1
				}
			}
		}
		if end < 0 {
			break // not closed: the rest is literal text
		}
		alts = append(alts, g[start:end])
		var choices []string
		switch op {
		case '@':
			choices = alts
		case '?':
			choices = append([]string{""}, alts...)
		case '+', '*':
			if op == '*' {
				choices = append(choices, "")
			}
			for _, a := range alts {
				choices = append(choices, a+"*")
			}
		case '!':
			choices = []string{"*"}
		}
		var each []string
		for _, c := range choices {
			sub, ok := extglobChoices(c, limit)
			if !ok || len(each)+len(sub) > limit {
				return nil, false
			}
			each = append(each, sub...)
		}
		if len(out)*len(each) > limit {
			return nil, false
		}
		flush(i)
		next := make([]string, 0, len(out)*len(each))
		for _, o := range out {
			for _, e := range each {
				next = append(next, o+e)
			}
		}
		out, lit, i = next, end+1, end
	}
	flush(len(g))
	return out, true
}

// bracketEnd returns the index of the ']' that ends the bracket
// expression s[p:] begins ('['), or -1 when none ends before the next
// stop byte: the one reading of POSIX brackets for bash's globs ('!' or
// '^' negates, '/' stops) and awk's and sed's regexes ('^' negates, a
// newline stops; awk's backslash escapes, given escapes). A ']' first in
// the bracket (after a negation) is a member, and a character class
// ([:alpha:]), equivalence class ([=e=]) or collating symbol ([.-.]) is
// one member whose ']' does not end the bracket: .gi[[:alpha:]]/config is
// .git/config.
func bracketEnd(s string, p int, negate string, stop byte, escapes bool) int {
	if e := strings.IndexByte(s[p:], stop); e >= 0 {
		s = s[:p+e]
	}
	n := len(s)
	q := p + 1
	if q < n && strings.IndexByte(negate, s[q]) >= 0 {
		q++
	}
	if q < n && s[q] == ']' {
		q++
	}
	for ; q < n; q++ {
		switch {
		case s[q] == ']':
			return q
		case s[q] == '\\' && escapes:
			q++
		case s[q] == '[' && q+1 < n && strings.IndexByte(":=.", s[q+1]) >= 0:
			if e := strings.Index(s[q+2:], string(s[q+1])+"]"); e >= 0 {
				q += 2 + e + 1
			}
		}
	}
	return -1
}

// globsOverlap reports whether some string matches both a and b: a walk
// over the pairs of positions, each step reading one byte both accept or
// skipping a '*' that matches nothing.
func globsOverlap(a, b []globToken, sc *overlapScratch) bool {
	m, n := len(a), len(b)
	size := (m + 1) * (n + 1)
	if cap(sc.seen) < size {
		sc.seen = make([]bool, size)
	}
	seen := sc.seen[:size]
	clear(seen)
	stack := append(sc.stack[:0], 0)
	defer func() { sc.stack = stack }()
	seen[0] = true
	push := func(i, j int) {
		if k := i*(n+1) + j; !seen[k] {
			seen[k] = true
			stack = append(stack, k)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j := k/(n+1), k%(n+1)
		if i == m && j == n {
			return true
		}
		if i < m && a[i].kind == '*' {
			push(i+1, j)
		}
		if j < n && b[j].kind == '*' {
			push(i, j+1)
		}
		if i < m && j < n {
			x, y := a[i], b[j]
			if !x.accepts(y) {
				continue
			}
			ni, nj := i+1, j+1
			if x.kind == '*' {
				ni = i
			}
			if y.kind == '*' {
				nj = j
			}
			if ni != i || nj != j {
				push(ni, nj)
			}
		}
	}
	return false
}

func (ps *patternSet) match(s string) bool {
	if ps.exact[s] {
		return true
	}
	for i, g := range ps.globs {
		if strings.Contains(s, ps.needs[i]) && wildMatch(g, s, 0) {
			return true
		}
	}
	return false
}

// hiddenAll reports whether a segment of the glob g is a dot followed by
// wildcards only (.*, .??*, .[!.]*): every hidden file of a directory.
func hiddenAll(g []globToken) bool {
	for k := 0; k+1 < len(g); k++ {
		if g[k].kind != 'c' || g[k].c != '.' || k > 0 && (g[k-1].kind != 'c' || g[k-1].c != '/') {
			continue
		}
		e := k + 1
		for e < len(g) && g[e].kind != 'c' {
			e++
		}
		if e > k+1 && (e == len(g) || g[e].c == '/') {
			return true
		}
	}
	return false
}

// holdsHalf reports whether the bytes counted hold at least half of
// those of a string of length n whose bytes are bc.
func holdsHalf(n int, bc []byteCount, count *[256]int32) bool {
	held := int32(0)
	for _, c := range bc {
		held += min(c.n, count[c.b])
	}
	return 2*int(held) >= n
}

// spellsLiteral reports whether the glob g spells lit, a pattern's
// literal part in lower case: a run of g's tokens matches lit whole, each
// literal token one byte of it (in either case), each '?' one byte and
// each '*' any run of bytes (without '/' for bash's *), and the literal
// tokens are at least half of lit's bytes: .e?v, .en[v], .e* and *env
// spell .env, ~/.aws/cred* and ~/.a*/credentials spell .aws/credentials,
// id_* spells id_rsa; .???, .g* and *.go spell nothing. The walk over g
// keeps, for each length p of lit's prefix, the most literal tokens of a
// run that ends at the token and matches lit[:p] (-1: none) in best,
// scratch space it returns for the next call.
func spellsLiteral(g []globToken, lit string, best []int, work *int) (bool, []int) {
	n := len(lit)
	best = best[:0]
	for range n + 1 {
		best = append(best, -1)
	}
	steps := 0
	defer func() { *work += steps }()
	top := 0 // best[p] is -1 for every p above top
	for _, t := range g {
		best[0] = max(best[0], 0) // a run may start at any token
		if t.kind == '*' {
			steps += n + 1
			m := -1
			for p := 0; p <= n; p++ {
				if p > 0 && t.noSlash && lit[p-1] == '/' {
					m = -1
				}
				m = max(m, best[p])
				best[p] = m
				if m >= 0 {
					top = p
				}
			}
		} else {
			steps += top + 1
			c, inc := lowerASCII(t.c), 0
			if t.kind == 'c' {
				inc = 1
			}
			hi := 0
			for p := min(top+1, n); p >= 1; p-- {
				l := lit[p-1]
				if best[p-1] >= 0 && (inc == 1 && c == l || inc == 0 && !(t.noSlash && l == '/')) {
					best[p] = best[p-1] + inc
					hi = max(hi, p)
				} else {
					best[p] = -1
				}
			}
			best[0] = -1
			top = hi
		}
		if best[n] >= 0 && 2*best[n] >= n {
			return true, best
		}
	}
	return false, best
}

// longestLiteral is the longest run of p without a wildcard or a
// backslash: every name p matches holds it.
func longestLiteral(p string) string {
	best := ""
	for _, run := range strings.FieldsFunc(p, func(r rune) bool { return r == '*' || r == '?' || r == '\\' }) {
		if len(run) > len(best) {
			best = run
		}
	}
	return best
}

// quotedDefault judges the single-quoted text in the word of a
// double-quoted ${x:-word} (and -, =, :=, +, :+, ?, :?): there bash does
// not take single quotes as quoting, so "${x:-'$(cmd)'}" runs cmd.
func (s *state) quotedDefault(p *syntax.ParamExp, r *word) {
	if p.Exp == nil || p.Exp.Word == nil {
		return
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
	default:
		return
	}
	for _, q := range p.Exp.Word.Parts {
		switch q := q.(type) {
		case *syntax.ParamExp:
			s.quotedDefault(q, r)
		case *syntax.SglQuoted:
			if q.Dollar || !strings.ContainsAny(q.Value, "$`") {
				continue
			}
			r.dynamic(0, true)
			if strings.ContainsAny(q.Value, "\"\\") {
				s.note(Dangerous, "in double quotes, the single quotes of ${"+p.Param.Value+p.Exp.Op.String()+"'...'} do not quote: bash expands "+q.Value)
				continue
			}
			r.subst = r.subst || strings.Contains(q.Value, "$(") || strings.Contains(q.Value, "`")
			s.reparse(`: "`+q.Value+`"`, "${"+p.Param.Value+p.Exp.Op.String()+"'...'} in double quotes")
		}
	}
}
