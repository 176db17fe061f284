package classify

import "testing"

// TestAttackS17RParameterDefaultVariants: 89aeb67 judges ${x:-WORD} as
// WORD, but only where the expansion is the argument itself and WORD is
// plain text. A default inside a default (${x:-${y:-.env}}) is .env too
// when both are unset, and a variable set from a default (f=${x:-.env},
// or by ${f:=.env} itself) holds .env for the commands after it.
func TestAttackS17RParameterDefaultVariants(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat ${x:-${y:-.env}}`,
		`cat "${x:-"${y:-.env}"}"`,
		`cat ${x:-${y:-~/.aws/credentials}}`,
		`cd ${x:-${y:-~/.aws}} && cat credentials`,
		`cat < ${x:-.env}`,
		`echo "$(< ${x:-.env})"`,
	})
}

// TestAttackS17RVariableSetFromADefault: a variable assigned from a
// default holds that default.
func TestAttackS17RVariableSetFromADefault(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`f=${x:-.env}; cat $f`,
		`f=${x:-.env} && cat "$f"`,
		`: ${f:=.env}; cat $f`,
		`: "${f:=~/.aws/credentials}"; cat "$f"`,
		`echo ${f:=.env} >/dev/null; cat $f`,
		`echo "${f:=$HOME/.ssh/id_rsa}" >/dev/null && cat "$f"`,
		`export f=${x:-~/.aws/credentials}; cat "$f"`,
	})
	// x (or f) may be set where the command runs, so the name is
	// computed when it runs: Warning since session 20
	// (TestAttackS20ComputedFileNames), whatever the default.
	attackAtLeast(t, Warning, []string{
		`f=${x:-README.md}; cat $f`,
		`echo ${f:=go.mod} >/dev/null; cat $f`,
		`d=${x:-src}; cat "$d/main.go"`,
	})
}
