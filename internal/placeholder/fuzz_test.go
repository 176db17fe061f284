package placeholder

import (
	"strings"
	"testing"
)

// render writes parts back as a template.
func render(parts []Part, escapes bool) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Name != "" {
			b.WriteString("{" + p.Name + "}")
			continue
		}
		lit := p.Lit
		if escapes {
			lit = strings.NewReplacer("{", "{{", "}", "}}").Replace(lit)
		}
		b.WriteString(lit)
	}
	return b.String()
}

// FuzzParse feeds Parse hostile templates (a tool spec file). What it
// accepts is literals and valid names, never two literals in a row nor an
// empty one, without escapes no brace in a literal, and it writes back to
// the very template it was parsed from.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"https://x/{owner}/{repo}", "--out={path}", "{{literal}}", "{a}{b}", "{a}}}", "{{{a}}}",
		"{", "}", "{}", "{a", "a}", "{a b}", "{1a}", "{a-b_c9}", "{{", "}}", "{{}}", "{a}}", "{{a}",
		"{\x00}", "{é}", "\xff{a}\xfe", strings.Repeat("{", 1000), strings.Repeat("{a}", 1000),
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, escapes bool) {
		parts, err := Parse(s, escapes)
		if err != nil {
			if parts != nil {
				t.Fatalf("Parse(%q, %v) failed but returned parts %v", s, escapes, parts)
			}
			return
		}
		for i, p := range parts {
			switch {
			case p.Name != "" && p.Lit != "":
				t.Fatalf("Parse(%q, %v): part %d is both a name and a literal: %+v", s, escapes, i, p)
			case p.Name != "" && !ValidName(p.Name):
				t.Fatalf("Parse(%q, %v): part %d names %q, not a valid name", s, escapes, i, p.Name)
			case p.Name == "" && p.Lit == "":
				t.Fatalf("Parse(%q, %v): part %d is empty", s, escapes, i)
			case p.Name == "" && i > 0 && parts[i-1].Name == "":
				t.Fatalf("Parse(%q, %v): parts %d and %d are both literals", s, escapes, i-1, i)
			case p.Name == "" && !escapes && strings.ContainsAny(p.Lit, "{}"):
				t.Fatalf("Parse(%q, false): literal %q has a brace", s, p.Lit)
			}
		}
		if back := render(parts, escapes); back != s {
			t.Fatalf("Parse(%q, %v) = %+v, which writes back as %q", s, escapes, parts, back)
		}
		if len(Names(parts)) > len(s)/3 {
			t.Fatalf("Parse(%q, %v): %d names from %d bytes", s, escapes, len(Names(parts)), len(s))
		}
	})
}
