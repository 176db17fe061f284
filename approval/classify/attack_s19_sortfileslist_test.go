package classify

import "testing"

// TestAttackS19SortReadsTheFilesAListNames: GNU sort --files0-from=F
// sorts the contents of the files whose names F holds, NUL-separated, and
// F may be - (standard input), so sort prints whatever files a pipe names,
// as xargs -0 cat does: printf '.env\0' | sort --files0-from=- printed the
// .env, find ~/.ssh -print0 | sort --files0-from=- the private keys, and
// printf '/proc/self/environ\0' | ... the environment. find ~/.ssh
// -print0 | xargs -0 cat is Warning; these were Safe. A list is names
// known only when sort runs, so the option is judged as such a read.
func TestAttackS19SortReadsTheFilesAListNames(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`printf '.env\0' | sort --files0-from=-`,
		`printf '/proc/self/environ\0' | sort --files0-from=-`,
		`find ~/.ssh -type f -print0 | sort --files0-from=-`,
		`find ~/.aws -print0 | sort -u --files0-from=-`,
		`sort --files0-from=list`,
		`sort --files0-from list`,
		`sort --files0=list`,
		`sort -m --files0-from=- < list`,
	})
	attackSafe(t, []string{
		`sort f`,
		`sort -u a b`,
		`find . -name '*.go' -print0 | wc -l --files0-from=-`,
		`find . -type f -print0 | du -c --files0-from=-`,
		`sort -k2,2n f | uniq -c`,
	})
}
