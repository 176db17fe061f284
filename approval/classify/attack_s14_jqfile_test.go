package classify

import "testing"

// TestAttackJqProgramFromAFile: jq's import and include, and yq's load
// functions, read the file they name, and are Warning when the program on
// the line names them; a program read from a file (jq -f prog, yq
// --from-file=prog) is not seen, so it may hold them (import
// "../.docker/config" as $c, load_str(".env")) as awk -f's may hold
// system().
func TestAttackJqProgramFromAFile(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`jq -f prog f`,
		`jq -fprog f`,
		`jq --from-file=prog f`,
		`jq --from-file prog f`,
		`jq -nf prog`,
		`yq -f prog f`,
		`yq --from-file=prog f`,
	})
	attackSafe(t, []string{
		`jq -r .a f`,
		`jq -n '{a: 1}'`,
		`yq . f`,
		`yq -r .a f`,
	})
}
