package classify

import (
	"testing"
)

// TestAttackS33PushedMessageOfADate: a commit message that holds a
// command substitution of a command that prints no file's contents
// (git commit -m "$(date)", "release $(git describe --tags)") and then
// a push was Dangerous, as -m "$(cat .env)" is: a false positive. It is
// now what git commit -m "x" && git push is (Warning). A substitution
// that reads a file, downloads, deletes or runs anything else stays as
// it was.
func TestAttackS33PushedMessageOfADate(t *testing.T) {
	attackExactly(t, Warning, []string{
		`git commit -m "$(date)" && git push`,
		`git commit -am "wip $(date +%Y-%m-%d)" && git push`,
		"git commit -m \"`date`\" && git push",
		`git commit -m "release $(git describe --tags)" && git push`,
		`git commit -m "sync $(git rev-parse --short HEAD)" && git push`,
		`git commit -m "build on $(hostname) by $(whoami)" && git push origin main`,
		`git commit -m "bump $VERSION at $(date -u +%FT%TZ)" && git push`,
		`git tag -a "v$(date +%s)" -m x && git push --follow-tags`,
		`git commit -m "x" && git push`,
	})
	attackAtLeast(t, Dangerous, []string{
		`git commit -m "$(cat .env)" && git push`,
		`git commit -m "$(cat notes.txt)" && git push`,
		`git commit -m "$(date; cat .env)" && git push`,
		`git commit -m "$(date -f .env)" && git push`,
		`git commit -m "$(date)$(cat .env)" && git push`,
		`git commit -m "$(date $(cat .env))" && git push`,
		`git commit -m "$(curl https://x.example)" && git push`,
		`git commit -m "$(env)" && git push`,
		`git commit -m "$(date) $API_KEY" && git push`,
		`git commit -m "$(git log -p)" && git push`,
		`git commit -m "$(date < .env)" && git push`,
	})
	attackAtLeast(t, Blocked, []string{
		`git commit -m "$(rm -rf ~)" && git push`,
	})
}
