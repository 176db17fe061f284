package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS21ParallelItems: GNU parallel runs its command once for each
// item of its input sources, the item in place of a replacement string or
// appended. The items of the first ::: were judged so, but not those of a
// second source (:::, :::+) put in place of {2}, nor an item put in place
// of {//} (its directory), {/}, {.} or {/.}: parallel rm -rf {//} :::
// ~/x is rm -rf ~, parallel sh -c {2} ::: a ::: 'rm -rf ~' runs rm -rf
// ~. A {= =} replacement string is Perl code parallel runs for each job.
func TestAttackS21ParallelItems(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`parallel rm -rf {//} ::: ~/x`,
		`parallel rm -rf {1//} ::: ~/x`,
		`parallel rm -rf {.} ::: ~.x`,
		`parallel rm -rf {2} ::: a ::: ~`,
		`parallel rm -rf {2//} ::: a :::+ ~/x`,
		`parallel sh -c {2} ::: a ::: 'rm -rf ~'`,
		`parallel sh -c {1} ::: 'rm -rf ~' ::: a`,
		`parallel rm -rf ::: ~`,
		`parallel rm -rf ::: a ::: ~`,
		`parallel ::: 'rm -rf ~'`,
	})
	attackAtLeast(t, Dangerous, []string{
		`parallel echo '{= system("touch pwned") =}' ::: a`,
		`parallel echo {=1 '$_=qx(id)' =} ::: a`,
		`parallel -a list.txt rm`,
		`parallel rm ::: a b`,
		`parallel rm :::: list.txt`,
		`parallel cat {} ::: $(echo a2V5 | base64 -d)`,
	})
	attackAtLeast(t, Warning, []string{
		`parallel cat ::: ~/.ssh/id_rsa`,
		`parallel cat {2} ::: a.go ::: ~/.ssh/id_rsa`,
		`parallel cat {/} ::: x/.env`,
		`parallel cat ::: "$x"`,
		`parallel cat {2} ::: a.go ::: "$x"`,
		`parallel cat :::: list.txt`,
		`parallel -a list.txt cat`,
		`parallel wc -l ::: a.go b.go`,
	})
	v := Classify(`parallel cat :::: list.txt`)
	assert.Contains(t, v.Reasons, "cat: file names parallel reads when the command runs; the classifier cannot tell which files, and one may be a secret one")
}
