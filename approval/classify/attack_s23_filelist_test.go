package classify

import "testing"

// TestAttackS23FileLooksAtTheFilesAListNames: file -f LIST (--files-from)
// looks at each file whose name a list or standard input (-) holds, and a
// magic file given with -m prints what its rules say, the file's own
// bytes among it (0 regex .* %s prints the first line): find ~ | file -m
// m -f - printed the first line of every file in the home, the private
// keys and .env files too, and was Safe, where find ~ | xargs file is
// Warning. A list is names known only when file runs, so -f is judged as
// sort --files0-from is.
func TestAttackS23FileLooksAtTheFilesAListNames(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`find ~ | file -m m -f -`,
		`printf '.env\n' | file -m m -f -`,
		`file -m m -f list`,
		`file -m m --files-from list`,
		`file -m m --files-from=-`,
		`file -f list`,
	})
	attackSafe(t, []string{
		`file README.md`,
		`file -m m README.md`,
		`file -b --mime-type main.go`,
	})
}
