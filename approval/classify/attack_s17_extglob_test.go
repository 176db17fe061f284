package classify

import "testing"

// TestAttackExtglobAlternativesSpellASecret: with extglob on (shopt -s
// extglob on an earlier line), an extended glob's alternatives are
// literal text: bash 5.2 expands @(.e|zz)@(n|q)v and @(.e)@(n)@(v) to
// .env. The glob reader takes an extended glob as any text, which names
// no secret file unless the word spells one out around it, so cat of
// those, which prints .env, was Safe. Each choice of the alternatives is
// now judged as the glob it makes; an extended glob of more choices than
// are compared is taken to name a secret. A glob whose choices name none
// stays Safe.
func TestAttackExtglobAlternativesSpellASecret(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		"shopt -s extglob\ncat @(.e|zz)@(n|q)v",
		"shopt -s extglob\ncat @(.e)@(n)@(v)",
		"shopt -s extglob\ncat @(.|x)@(e|x)@(n|x)@(v|x)",
		"shopt -s extglob\ncat ?(.)@(e|x)nv",
		"shopt -s extglob\ncat @(@(.e|y)|z)nv",
		"shopt -s extglob\ncat ~/@(.a|x)@(w|y)s/@(cred|q)entials",
		"shopt -s extglob\nhead @(.|_)@(e|_)@(n|_)@(v|_)@(.|_)@(l|_)@(o|_)@(c|_)@(a|_)@(l|_)",
	})
	attackSafe(t, []string{
		"shopt -s extglob\ncat !(*.go)",
		"shopt -s extglob\nls @(src|docs)/*.md",
		"shopt -s extglob\ncat +([a-z]).txt",
		"shopt -s extglob\nwc -l ?(a|b).go",
	})
}
