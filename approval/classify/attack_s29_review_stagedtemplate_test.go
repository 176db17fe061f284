package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29ReviewStagedTemplateIsNoSecret: 716d068 makes a git push
// after the line staged a secret file Dangerous, secret by the Secrets
// rules, which are written for reading ("*.env.*" names .env.local and
// .env.production, whose contents would go back to the model, at
// Warning). A project's template of its environment, .env.example
// (.sample, .template, .dist), holds no secret and is committed as a
// rule: git add .env.example && git commit -m x && git push, an
// everyday line, was Dangerous. A template stays Warning; .env,
// .env.local and a key pushed stay Dangerous.
func TestAttackS29ReviewStagedTemplateIsNoSecret(t *testing.T) {
	for _, l := range []string{
		`git add .env.example && git commit -m x && git push`,
		`git add .env.sample && git commit -m x && git push`,
		`git add .env.template && git commit -m x && git push`,
		`git add .env.dist && git commit -m x && git push`,
		`git add config/.env.example && git commit -m x && git push`,
		`git commit -m x .env.example && git push`,
	} {
		v := Classify(l)
		assert.Equal(t, Warning, v.Level, "%q: %v", l, v.Reasons)
	}
	attackAtLeast(t, Dangerous, []string{
		`git add -f .env && git commit -m x && git push`,
		`git add -f .env.local && git commit -m x && git push`,
		`git add .env.example .env && git commit -m x && git push`,
		`git add .env .env.example && git commit -m x && git push`,
		`git add -f .env.production && git commit -m x && git push`,
		`git add -f server.key && git commit -m x && git push`,
		`git add -f .env.example.local && git commit -m x && git push`,
		// The name with the working directory spelled as $PWD was
		// Warning (seen): the staged name was read only when literal.
		`git add -f "$PWD/.env" && git commit -m x && git push`,
		`git add -f ~+/.env && git commit -m x && git push`,
	})
}
