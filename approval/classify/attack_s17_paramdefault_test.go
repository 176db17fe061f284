package classify

import "testing"

// TestAttackParameterDefaultNamesASecret: ${x:-WORD} (and ${x-WORD},
// ${x:=WORD}, ${x:+WORD}) is WORD when x is unset, as any variable the
// line does not set is in the scrubbed environment a command runs in. The
// secret check took such an expansion as any text, a '*', which names no
// secret file, so cat ${x:-.env} printed .env and was Safe, and cd
// ${x:-~/.aws} && cat credentials, whose directory is all expansion, read
// ~/.aws/credentials Safe too. The value the line spells out is now judged
// as well, in the name and in the directory cd enters. A default that
// names no secret file stays Safe.
func TestAttackParameterDefaultNamesASecret(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat ${x:-.env}`,
		`cat "${x:-.env}"`,
		`cat ${x-.env}`,
		`cat ${x:=.env}`,
		`cat ${x:+.env}`,
		`cat ${x:-~/.aws/credentials}`,
		`cat "${x:-$HOME/.ssh/id_rsa}"`,
		`cat ${a:-.e}${b:-nv}`,
		`cat .e${x:-nv}`,
		`cat ~/.ssh/${k:-id_ed25519}`,
		`head -c 200 ${TOKEN_FILE:-/proc/self/environ}`,
		`cd ${x:-~/.aws} && cat credentials`,
		`cd "${x:-$HOME/.aws}" && cat credentials`,
		`cd ${x:-~/.config/gh} && cat hosts.yml`,
		`cd ${x:-/proc/self} && cat environ`,
	})
	attackSafe(t, []string{
		`echo "${x:-hello}"`,
	})
	// x may be set where the command runs (the environment an operator
	// passes on), so the name is computed when it runs: Warning since
	// session 20 (TestAttackS20ComputedFileNames), whatever the default;
	// so is a relative name in a directory so computed
	// (TestAttackS20RelativeNameInAComputedDirectory).
	attackAtLeast(t, Warning, []string{
		`cd ${d:-src} && cat main.go`,
		`cat ${x:-README.md}`,
		`cat "${f:-go.mod}"`,
		`ls ${x:-.}`,
	})
}
