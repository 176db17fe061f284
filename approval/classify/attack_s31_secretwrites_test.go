package classify

import (
	"testing"
)

// TestAttackS31WrittenSecretPushed: a file the line wrote a secret's
// value into (echo KEY > .env, printf, tee .env, a here-document, the
// value of a secret variable, the environment) and then staged and
// pushed sends the secret, as a push of a copy of .env does (Dangerous).
func TestAttackS31WrittenSecretPushed(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`echo KEY=abc > .env; git add .env; git commit -m x; git push`,
		`echo KEY=abc > .env && git add .env && git commit -m x && git push`,
		`echo KEY=abc > .env && git add -f .env && git commit -m x && git push`,
		`printf 'KEY=%s\n' abc > .env && git add .env && git commit -m x && git push`,
		`echo KEY=abc | tee .env && git add .env && git commit -m x && git push`,
		`echo KEY=abc | tee -a .env && git add . && git commit -m x && git push`,
		"cat > .env <<EOF\nKEY=abc\nEOF\ngit add .env && git commit -m x && git push",
		`echo "$API_KEY" > notes.txt && git add notes.txt && git commit -m x && git push`,
		`echo KEY=abc >> .env && git commit -am x && git push`,
		`env > vars.txt && git add vars.txt && git commit -m x && git push`,
	})
	attackExactly(t, Warning, []string{
		`echo hello > notes.txt && git add notes.txt && git commit -m x && git push`,
		`echo KEY= > .env.example && git add .env.example && git commit -m x && git push`,
		`echo "${#API_KEY}" > n.txt && git add n.txt && git commit -m x && git push`,
		`API_KEY=abc; echo "$API_KEY" > n.txt && git add n.txt && git commit -m x && git push`,
		`echo "$HOME" > n.txt && git add n.txt && git commit -m x && git push`,
		`env > vars.txt && git add notes.txt && git commit -m x && git push`,
		`env FOO=1 make > log.txt && git add log.txt && git commit -m x && git push`,
	})
	// Without a push the writes keep their levels.
	attackExactly(t, Warning, []string{
		`echo KEY=abc > .env && git add .`,
		`echo "$API_KEY" > notes.txt`,
	})
}
