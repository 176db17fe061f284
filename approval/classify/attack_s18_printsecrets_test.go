package classify

import "testing"

// TestAttackS18CommandsThatPrintSecrets: commands that print a secret
// without naming a secret file were Safe, so they ran unasked and their
// output went back to the model:
//   - git config's listing and reads of keys that hold tokens: a CI job's
//     remote URL (https://gitlab-ci-token:TOKEN@host/...), the
//     Authorization header actions/checkout keeps in http.extraheader, a
//     token in url.<base>.insteadof, a credential helper's inline script;
//     git remote -v, get-url and show and git ls-remote --get-url print
//     the same URLs, and cat .git/config the file they are kept in;
//   - terraform show, output and state show print values from the state
//     (every one not marked sensitive, in full);
//   - kubectl config view redacts a user's token and key, but not an
//     auth-provider's config (an OIDC refresh token, a client secret) or
//     an exec plugin's env;
//   - env and printenv with no command, set with no arguments, and the
//     declaration builtins with no names or with -p print every variable
//     of the environment, where the program running the command keeps its
//     API keys;
//   - history prints the commands typed in the session, with the tokens
//     and passwords given on their command lines (cat ~/.bash_history was
//     Warning already).
func TestAttackS18CommandsThatPrintSecrets(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		// git: configuration and remote URLs.
		`git config -l`,
		`git config --list`,
		`git config -lz`,
		`git config --global -l`,
		`git config --show-origin --list`,
		`git config list`,
		`git config --get-regexp url`,
		`git config --get-regexp '.*'`,
		`git config --get-urlmatch http https://github.com`,
		`git config --get remote.origin.url`,
		`git config remote.origin.url`,
		`git config --get-all remote.origin.pushurl`,
		`git config get remote.origin.url`,
		`git config --get http.https://github.com/.extraheader`,
		`git config http.extraHeader`,
		`git config --get url.https://x@github.com/.insteadof`,
		`git config --get http.proxy`,
		`git -C sub config -l`,
		`git remote -v`,
		`git remote --verbose`,
		`git remote get-url origin`,
		`git remote get-url --all origin`,
		`git remote show origin`,
		`git ls-remote --get-url`,
		`git ls-remote --get-url origin`,
		`cat .git/config`,
		`cat sub/.git/config`,
		`cat .git/modules/lib/config`,
		`grep url .git/config`,
		`cat .git/*`,
		`cd .git && cat config`,
		// terraform: the state.
		`terraform show`,
		`terraform show plan.out`,
		`terraform output`,
		`terraform output db_password`,
		`terraform state show aws_db_instance.main`,
		`tofu show`,
		`tofu output`,
		// kubectl: auth-provider and exec configuration.
		`kubectl config view`,
		`kubectl config view --minify`,
		// the environment.
		`env`,
		`env -0`,
		`env -u X`,
		`env -i`,
		`command env`,
		`printenv`,
		`printenv AWS_SECRET_ACCESS_KEY`,
		`printenv -0`,
		`set`,
		`builtin set`,
		`export`,
		`export -p`,
		`declare`,
		`declare -p`,
		`declare -p OPENAI_API_KEY`,
		`declare -x`,
		`declare -px`,
		`typeset`,
		`typeset -p`,
		`readonly`,
		`readonly -p`,
		`local -p`,
		`builtin export -p`,
		`builtin declare`,
		`command declare -p`,
		`builtin typeset -x`,
		// the session's history.
		`history`,
		`history 20`,
		`history -p '!!'`,
	})
	attackSafe(t, []string{
		`git status`,
		`git log`,
		`git log --oneline -5`,
		`git diff`,
		`git show HEAD`,
		`git remote`,
		`git branch -a`,
		`git config user.name`,
		`git config --get user.email`,
		`git config --get core.autocrlf`,
		`git config --get init.defaultBranch`,
		`cat README.md`,
		`cat .git/HEAD`,
		`cat .gitignore`,
		`cat ~/.config/git/ignore`,
		`terraform fmt -check`,
		`terraform fmt -check -recursive -diff`,
		`terraform validate`,
		`terraform state list`,
		`kubectl get pods`,
		`kubectl config current-context`,
		`kubectl config get-contexts`,
		`env LC_ALL=C sort f`,
		`env -u X ls`,
		`set -e`,
		`set -euo pipefail`,
		`set -- a b`,
		`export LC_ALL=C`,
		`declare -a arr=(a b)`,
		`declare -f`,
		`declare -F`,
		`local x=1`,
		`readonly N=3`,
		`echo "$HOME"`,
	})
}
