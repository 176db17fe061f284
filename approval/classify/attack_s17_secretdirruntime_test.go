package classify

import "testing"

// TestAttackRunTimeNameInASecretDirectory: after cd into a directory of
// secret files (~/.aws, ~/.ssh, /proc/self), a relative name known only
// at run time is a file there: cd ~/.aws && cat $(ls) prints the AWS
// keys, as cd ~/.aws && cat * does (Warning). The check of the
// directories the line changed into skipped a word with an expansion, so
// cat $(ls), cat "$x", head `ls`, a loop over $(ls) and x=$(ls); cat $x
// there were Safe, and so was ls | xargs cat, which reads the names xargs
// adds. Such a word, and the items xargs adds, are now judged in each of
// them as the glob they are with the expansions as '*'. The same in a
// directory of no secret files stays Safe.
func TestAttackRunTimeNameInASecretDirectory(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cd ~/.aws && cat $(ls)`,
		`cd ~/.aws && head $(ls -1)`,
		"cd ~/.aws && cat `ls`",
		`cd ~/.aws && grep . $(ls)`,
		`cd ~/.aws && x=$(ls) && cat $x`,
		`cd ~/.aws && for f in $(ls); do cat $f; done`,
		`cd ~/.ssh && cat $(ls -A)`,
		`cd ~/.ssh && cat "$x"`,
		`cd ~/.config/gh && cat $(ls)`,
		`cd /proc/self && cat $(ls | grep env)`,
		`pushd ~/.aws >/dev/null; cat $(ls)`,
		`cd ~/.aws && ls | xargs cat`,
		`cd ~/.aws && ls | xargs -n1 head`,
	})
	attackSafe(t, []string{
		`cd src && cat $(ls)`,
		`cd docs && wc -l $(find . -name '*.md')`,
		`cat $(ls)`,
		`cd ~/.aws && ls`,
		`cd src && ls | xargs cat`,
		`find . -name '*.go' | xargs wc -l`,
	})
	// f is not set on the line: a name computed when the command runs,
	// Warning since session 20 (TestAttackS20ComputedFileNames).
	attackAtLeast(t, Warning, []string{`cd /tmp && cat "$f"`})
}
