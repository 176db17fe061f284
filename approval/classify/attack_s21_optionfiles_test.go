package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS21ComputedOptionFiles: a file name computed when the command
// runs was judged only as an operand (cat $(echo a2V5 | base64 -d) is
// Warning), not as the value of an option that reads a file, so grep -f
// $(echo fi5zc2gvaWRfcnNh | base64 -d) . read ~/.ssh/id_rsa Safe, and so
// did grep -f "$x", git blame --contents "$f", rg -f "$f", date -f "$f"
// (which prints each line it cannot read as a date), file -f "$f", tar
// -T "$f". Such a value may be any file, as such an operand may.
func TestAttackS21ComputedOptionFiles(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`grep -f "$x" src`,
		`grep -f $(echo fi5zc2gvaWRfcnNh | base64 -d) .`,
		`grep -f"$x" src`,
		`grep -rf "$x" src`,
		`grep -if"$x" src`,
		`grep --file "$x" src`,
		`grep --file="$x" src`,
		`grep --fil="$x" src`,
		`grep -e "$pat" -f "$x" src`,
		`grep --exclude-from="$f" -r foo .`,
		`grep --exclude-from "$f" -r foo .`,
		`egrep -f "$x" src`,
		`fgrep -f "$x" src`,
		`zgrep -f "$x" a.gz`,
		`grep -f "$(rev <<< asr_di/hss./~)" .`,
		`x=$(echo a2V5 | base64 -d); grep -f "$x" .`,
		`timeout 5 grep -f "$x" src`,
		`rg -f "$f" src`,
		`rg --file "$f" src`,
		`diff -X "$f" a b`,
		`diff --from-file "$f" a`,
		`diff --to-file "$f" a`,
		`du -X "$f" .`,
		`date -f "$f"`,
		`date --file="$f"`,
		`file -f "$f"`,
		`file -m "$f" a.go`,
		`hexdump -f "$f" a.bin`,
		`git blame --contents "$f" a.go`,
		`git blame --ignore-revs-file "$f" a.go`,
		`git grep -f "$f"`,
		`git config -f "$f" -l`,
		`git config --file="$f" --list`,
		`git ls-files -X "$f"`,
		`git ls-files --exclude-from "$f"`,
		`tar -tf a.tar -T "$f"`,
		`tar -tf a.tar -X "$f"`,
		`tree --gitfile "$f"`,
		`ss -F "$f"`,
		`wc --files0-from "$f"`,
		`du --files0-from "$f"`,
		`cd "$d" && grep -f patterns src`,
		`cd $(echo fi8uc3No | base64 -d) && grep -f id_rsa /dev/null`,
	})
	// Judged above Safe before, by their own rules: kept so.
	attackAtLeast(t, Warning, []string{
		`jq --rawfile k $(echo a2V5 | base64 -d) -n '$k'`,
		`jq --slurpfile k "$f" -n '$k'`,
		`diff --from-file=$(echo a2V5 | base64 -d) a`,
		`awk -f "$p" data.txt`,
		`sed -f $(echo a2V5 | base64 -d) data.txt`,
		`sort --files0-from=$(echo a2V5 | base64 -d)`,
		`git -C "$d" show HEAD:config`,
		`tar -T $(echo a2V5 | base64 -d) -cf -`,
		`echo a2V5 | base64 -d | xargs grep -f`,
	})
	v := Classify(`grep -f $(echo fi5zc2gvaWRfcnNh | base64 -d) .`)
	assert.Contains(t, v.Reasons, "grep -f: a file name computed when the command runs ($(echo fi5zc2gvaWRfcnNh | base64 -d)); the classifier cannot tell which file, and it may be a secret one")
	v = Classify(`grep -f"$x" src`)
	assert.Contains(t, v.Reasons, "grep -f: a file name computed when the command runs ($x); the classifier cannot tell which file, and it may be a secret one")
}

// TestAttackS21OptionFilesKeepPrecise: a literal value, or one the line
// gives, is judged as the file it names: a pattern file is Safe, a secret
// one Warning, attached to its option too (grep -f.env, which secretArgs
// read as an option and skipped). Options whose value is not a file
// (grep -e, -m, head -n) stay as they were.
func TestAttackS21OptionFilesKeepPrecise(t *testing.T) {
	attackSafe(t, []string{
		`grep -f patterns.txt src`,
		`grep -fpatterns.txt src`,
		`grep --file=patterns.txt src`,
		`grep -rf patterns.txt .`,
		`grep -f "$PWD/patterns.txt" src`,
		`grep -f "$(pwd)/patterns.txt" src`,
		`p=patterns.txt; grep -f "$p" src`,
		`for p in a.txt b.txt; do grep -f "$p" src; done`,
		`grep -f $(ls | head -1) src`,
		`grep -e "$pat" src`,
		`grep -e"$pat" src`,
		`grep -m "$n" foo src`,
		`grep --exclude-from=.gitignore -r foo .`,
		`rg -f patterns.txt src`,
		`diff --from-file=a.txt b.txt`,
		`date -f dates.txt`,
		`date -d "$when"`,
		`git blame --contents a.go a.go`,
		`tar -tf a.tar -T list.txt`,
		`git config -f .gitmodules --get-regexp path`,
		`wc -l --files0-from=list0`,
		`head -n "$n" go.mod`,
		`go vet ./...`,
	})
	attackAtLeast(t, Warning, []string{
		`grep -f ~/.ssh/id_rsa .`,
		`grep -f/etc/shadow .`,
		`grep -f.env .`,
		`grep -rf.env .`,
		`grep -f"$HOME/.ssh/id_rsa" .`,
		`grep --file=/etc/shadow .`,
		`cd ~/.ssh && grep -f id_rsa .`,
		`rg -f.env src`,
		`date -f.env`,
		`git blame --contents .env a.go`,
	})
}
