package classify

import "testing"

// TestAttackFindListsSecretsForXargs: find ~/.config -exec cat {} + reads
// the secret files under its starting points and is Warning, but find
// ~/.config -type f | xargs cat, which reads the same files by the names
// find lists, was Safe, and so were find /proc -maxdepth 2 -name environ |
// xargs cat (each process's environment), find ~ -maxdepth 2 -type f |
// xargs grep KEY (~/.ssh/id_rsa), the same through a filter (| head |),
// and the names given by a substitution (cat $(find ~/.config -type f),
// xargs cat < <(find ...)) or to a while read loop. find with no starting
// point searches the working directory: cd ~ && find -type f -exec cat {}
// + was Safe too. A listing that goes to the terminal, and find of the
// workspace, stay Safe; a count of the names in a substitution (n=$(find
// ~/.config | wc -l)) is Warning too, as a substitution's words are not
// followed to the command that reads them.
func TestAttackFindListsSecretsForXargs(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`find ~/.config -type f | xargs cat`,
		`find ~/.config -print0 | xargs -0 cat`,
		`find ~ -maxdepth 2 -type f | xargs grep -h KEY`,
		`find /proc -maxdepth 2 -name environ | xargs cat`,
		`find ~ -newer x -type f | head | xargs cat`,
		`find ~/.local -type f | sort | xargs -n1 cat`,
		`cd ~ && find . -type f | xargs cat`,
		`cd ~ && find -type f -exec cat {} +`,
		`find . -name .env | xargs cat`,
		`find . -name '*.pem' | xargs -I{} cat {}`,
		// The names reach a reader by a substitution or a read loop too.
		`cat $(find ~/.config -type f)`,
		`for f in $(find ~/.config -type f); do cat "$f"; done`,
		`xargs cat < <(find ~/.config -type f)`,
		`find ~/.config -type f | while read f; do cat "$f"; done`,
	})
	attackSafe(t, []string{
		`find . -type f | xargs cat`,
		`find . -name "*.go" | xargs grep x`,
		`find src -type f | xargs wc -l`,
		`find ~/.config -type f`,
		`find ~/.config | wc -l`,
		`find ~ -name x`,
		`find / -name x`,
		`find ../x -name "*.go" | xargs grep -l x`,
		`find /usr/share -name "*.txt" | xargs head`,
		`find -name "*.go" -exec grep x {} +`,
		`cat $(find . -name "*.go")`,
		`find . -type f | while read f; do wc -l "$f"; done`,
	})
}
