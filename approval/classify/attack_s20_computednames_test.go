package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS20ComputedFileNames: a file name a command substitution or a
// variable computes when the command runs was judged as a file of the
// working directory (the expansion as *), so a name obfuscated by a
// command whose output the classifier cannot know was Safe where the
// plain one is Warning: cat $(echo a2V5 | base64 -d) reads key, head -c
// 100 $(echo L2V0Yy9zaGFkb3c= | base64 -d) reads /etc/shadow, cat $(ls
// ~/.ssh | head -1) a private key. Such a name may be any file.
func TestAttackS20ComputedFileNames(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`cat $(echo a2V5 | base64 -d)`,
		`head -c 100 $(echo L2V0Yy9zaGFkb3c= | base64 -d)`,
		"cat `echo a2V5 | base64 -d`",
		`x=$(echo a2V5|base64 -d); cat $x`,
		`x=$(echo a2V5|base64 -d); cat "$x"`,
		`cat $(ls ~/.ssh | head -1)`,
		`cat $(rev <<< asr_di/hss./~)`,
		`cat "$(rev <<< asr_di/hss./~)"`,
		`cat ./$(rev <<< wodahs/cte/../../..)`,
		`cat logs/"$(echo Li4vLmVudg== | base64 -d)"`,
		`tail -n 5 $(echo L2V0Yy9zaGFkb3c= | base64 -d)`,
		`less $(echo a2V5 | base64 -d)`,
		`wc -c $(ls ~/.ssh | head -1)`,
		`ls $(echo fi8uc3No | base64 -d)`,
		`grep -r key $(echo fi8uc3No | base64 -d)`,
		`grep BEGIN "$(echo a2V5 | base64 -d)"`,
		`sed -n p $(echo a2V5 | base64 -d)`,
		`awk 1 $(echo a2V5 | base64 -d)`,
		`diff $(echo a2V5 | base64 -d) /dev/null`,
		`timeout 5 cat $(echo a2V5 | base64 -d)`,
		`nice cat "$(echo a2V5 | base64 -d)"`,
		`cat "$f"`,
		`cat ${f}`,
		`cat $1`,
		`cat "$HOME/$(echo LnNzaC9pZF9yc2E= | base64 -d)"`,
		`for f in $(ls ~/.ssh); do cat "$f"; done`,
		`for f in a.go; do f=$(echo a2V5 | base64 -d); cat "$f"; done`,
	})
	v := Classify(`cat $(echo a2V5 | base64 -d)`)
	assert.Contains(t, v.Reasons, "cat: a file name computed when the command runs ($(echo a2V5 | base64 -d)); the classifier cannot tell which file, and it may be a secret one")
	// A name printf or echo spells out is judged by the name it makes.
	v = Classify(`cat $(printf '\x2fetc\x2fshadow')`)
	assert.Equal(t, Warning, v.Level)
	assert.Contains(t, v.Reasons, "names a secret file, whose contents would go back to the model: /etc/shadow")
}

// TestAttackS20ComputedNamesKeepPrecise: what is precise stays so: a name
// printf or echo spells out, a variable the line set to a known value,
// the working directory by name ($PWD, $(pwd)), the home directory at the
// start of a name, a loop's variable over words the line spells out
// (which are judged as names themselves), and the operands of commands
// that open no file (echo, test, sleep) or whose first operand is a
// pattern or program (grep, sed, awk).
func TestAttackS20ComputedNamesKeepPrecise(t *testing.T) {
	attackSafe(t, []string{
		`cat $(printf 'go.mod')`,
		`cat $(echo go.mod)`,
		`x=go.mod; cat $x`,
		`ls $(pwd)`,
		`ls "$(pwd)"`,
		`ls $PWD`,
		`cat $PWD/go.mod`,
		`cat "$(pwd)/go.mod"`,
		`cat "${PWD}"/go.mod`,
		`cat $HOME/.bashrc`,
		`ls "$HOME"`,
		`for f in *.go; do cat "$f"; done`,
		`for f in a.go b.go; do wc -l "$f"; done`,
		`for f in *.go; do head -n 3 $f; done`,
		`echo $(date)`,
		`echo "$x"`,
		`echo "$(git rev-parse HEAD)"`,
		`printf '%s\n' "$x"`,
		`sleep $n`,
		`seq 1 $n`,
		`basename "$f"`,
		`dirname "$(pwd)"`,
		`[ -f "$f" ]`,
		`test -n "$x"`,
		`head -n $N go.mod`,
		`grep "$pat" go.mod`,
		`grep -c "$(date +%F)" log.txt`,
		`awk -v n="$n" 'NR==n' go.mod`,
		`date +"$fmt"`,
		`tr "$a" "$b"`,
	})
	// A loop over names that are not all known is not precise.
	attackAtLeast(t, Warning, []string{
		`for f in *.go $(cat list); do cat "$f"; done`,
		`for f in ~/.ssh/*; do cat "$f"; done`,
	})
}

// TestAttackS20ListedNames: names that ls, find or git ls-files list
// under the working directory, through line selectors, are files there,
// judged as * is in the directories the line changed into (cd ~/.aws &&
// cat $(ls) is Warning); anything else that makes the list is not: ls -A
// lists .env, ls -l a link's target, find -printf any text, tail -c the
// end of a name, a climbing or absolute starting point other files, and a
// listed name after /etc/ or ~/ is a file there.
func TestAttackS20ListedNames(t *testing.T) {
	attackSafe(t, []string{
		`cat $(ls)`,
		`cat "$(ls | head -1)"`,
		`grep foo $(git ls-files)`,
		`grep -n TODO $(git ls-files '*.go')`,
		`wc -l $(git ls-files | grep '\.go$')`,
		`wc -l $(find . -name '*.go')`,
		`wc -l $(find . -name '*.go' -not -path './vendor/*' 2>/dev/null)`,
		`cat $(find src -type f | sort | head -3)`,
		`cat src/$(ls src | head -1)`,
		`for f in $(ls); do cat "$f"; done`,
		`for f in $(find . -name '*.go'); do wc -l $f; done`,
		`find . -type f | while read f; do wc -l "$f"; done`,
		`find . -name '*.go' | while read -r f; do head -1 "$f"; done`,
		`find . -name '*.go' | while IFS= read -r f; do wc -l "$f"; done`,
		`ls | while read f; do cat "$f"; done`,
		`cat /proc/$PPID/status`,
		`ls -l /proc/$$/fd`,
		`ls -l $(which go)`,
	})
	attackAtLeast(t, Warning, []string{
		`cat $(ls -A)`,
		`cat $(ls -la | tail -1)`,
		`cat $(ls .*)`,
		`cat $(find . -maxdepth 0 -printf /etc/shadow)`,
		`cat $(find . -type f | tail -c 12)`,
		`cat $(find . -type f | sed s,^,/etc/,)`,
		`cat $(find .. -name '*.go')`,
		`cat $(find /etc -name 'shadow*')`,
		`cat $(git ls-files ':/')`,
		`cat $(ls) $(echo a2V5 | base64 -d)`,
		`cat /etc/$(ls)`,
		`cat ~/$(ls)`,
		`cat ../$(ls)`,
		`cd ~/.aws && cat $(ls)`,
		`echo a2V5 | base64 -d | while read f; do cat "$f"; done`,
		`echo a2V5 | base64 -d | while IFS= read -r f; do cat "$f"; done`,
		`find . -type f | while IFS=/ read -r f; do cat "$f"; done`,
		`find ~/.ssh -type f | while read f; do cat "$f"; done`,
		`find . -type f | while read f; do cat "/etc/$f"; done`,
		`for f in $(ls) $(echo a2V5 | base64 -d); do cat "$f"; done`,
		`cat /proc/$BASHPID/environ`,
	})
}

// TestAttackS20PlanAndGoEnv: terraform plan runs the providers and the
// configuration's data "external" programs, code the line cannot judge,
// as make and pytest run the project's (Warning); pulumi preview runs the
// Pulumi program itself. go env prints GOPROXY, GOFLAGS and GOAUTH, which
// may carry a proxy's or a private module host's token in a URL, as git
// remote -v prints a remote's (Warning). All were Safe.
func TestAttackS20PlanAndGoEnv(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`terraform plan`,
		`terraform plan -no-color`,
		`tofu plan`,
		`pulumi preview`,
		`go env`,
		`go env -json`,
		`go env -changed`,
		`go env GOPROXY`,
		`go env GOFLAGS`,
		`go env GOAUTH`,
		`go env GOSUMDB`,
		`go env GOPATH GOPROXY`,
		`go env $X`,
	})
	attackSafe(t, []string{
		`terraform validate`,
		`terraform version`,
		`go env GOPATH`,
		`go env GOOS GOARCH`,
		`go env GOMODCACHE`,
		`go env -json GOOS`,
	})
}

// TestAttackS20XargsComputedNames: the items xargs adds, or puts in place
// of its replace text, were judged as files of the working directory (*)
// whatever made them, so echo a2V5 | base64 -d | xargs cat read key Safe,
// as cat $(echo a2V5 | base64 -d) did. They are names computed when the
// command runs unless the line spells them out (xargs cat <<< a.go, judged
// as those names), a pipe of names ls, find, git ls-files or rg --files
// list under the working directory gives them, or there is no pipe (the
// line's own input, /dev/null for a shell tool).
func TestAttackS20XargsComputedNames(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`echo a2V5 | base64 -d | xargs cat`,
		`echo L2V0Yy9zaGFkb3c= | base64 -d | xargs head -c 100`,
		`rev <<< asr_di/hss./~ | xargs cat`,
		`echo a2V5 | base64 -d | xargs -I{} cat {}`,
		`echo a2V5 | base64 -d | xargs -n1 timeout 5 cat`,
		`xargs cat < list`,
		`xargs -a list cat`,
		`xargs --arg-file=list cat`,
		`xargs cat < <(echo a2V5 | base64 -d)`,
		`cat list | xargs wc -c`,
		`ls -A | xargs cat`,
		`git diff HEAD | xargs cat`,
		`grep -rh KEY . | xargs cat`,
		`grep -rl KEY ~/.aws | xargs cat`,
	})
	attackSafe(t, []string{
		`find . -name '*.go' | xargs wc -l`,
		`find . -type f -print0 | xargs -0 grep -l foo`,
		`git ls-files | xargs grep foo`,
		`git ls-files -z | xargs -0 wc -l`,
		`git ls-files | xargs -n1 timeout 5 wc -l`,
		`ls | xargs cat`,
		`ls | xargs -I{} cat {}`,
		`rg --files | xargs cat`,
		`rg --files src | xargs wc -l`,
		`find . -name '*.go' | xargs -I{} grep -n TODO {}`,
		`find /usr/share -name "*.txt" | xargs head`,
		`git diff --name-only | xargs wc -l`,
		`git diff --name-only HEAD~1 | xargs cat`,
		`wc -l $(git diff --name-only --staged)`,
		`grep -rl TODO . | xargs wc -l`,
		`grep -l TODO *.go | xargs wc -l`,
		`rg -l TODO | xargs wc -l`,
		`xargs wc -l <<< 'a.go b.go'`,
		`echo a.go | xargs cat`,
		`xargs -r wc -l`,
		`xargs -I{} echo {}`,
		`echo a2V5 | base64 -d | xargs echo`,
	})
}
