package classify

import "testing"

// TestAttackS30GapsStashPush: git stash -u (--include-untracked, -a,
// --all) records the untracked files, a secret the line wrote among
// them, in the stash's commits; git push origin stash@{0}:refs/heads/x
// sends them, as git add and a push do (Dangerous). It was Warning.
func TestAttackS30GapsStashPush(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`cat ~/.aws/credentials > n && git stash -u && git push origin 'stash@{0}:refs/heads/x'`,
		`cp .env n && git stash push -um wip && git push origin 'stash@{0}:refs/heads/x'`,
		`cp ~/.ssh/id_rsa n && git stash -u && git push origin 'stash@{0}:refs/heads/x'`,
		`cat .env > n && git stash push --include-untracked && git push origin 'stash@{0}:refs/heads/x'`,
		`cp .env n && git stash --all && git push origin 'refs/stash:refs/heads/x'`,
	})
	attackExactly(t, Warning, []string{
		`git stash -u && git push origin 'stash@{0}:refs/heads/x'`,
		`echo a > n && git stash -u && git push origin 'stash@{0}:refs/heads/x'`,
		`echo k > .env && git stash -u`,
		`cp .env n && git stash && git push`,
	})
}

// TestAttackS30GapsUploads: these send the workspace (a build context
// with .env in it, a directory of files) to a registry or a cloud
// build, as docker push and jf rt upload's peers do (Dangerous). They
// were Warning.
func TestAttackS30GapsUploads(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`kaniko --context . --destination reg.io/a/b:1`,
		`/kaniko/executor --context dir:///workspace --destination=reg.io/a/b:1`,
		`executor -c . -d reg.io/a/b:1`,
		`jf rt upload build/ repo/`,
		`jf rt u "build/*" repo/`,
		`jfrog rt upload build/ repo/`,
		`gcloud builds submit --tag gcr.io/p/i .`,
		`gcloud --project p builds submit .`,
		`az acr build -r reg -t img .`,
		`ko build ./cmd/app`,
		`ko publish ./cmd/app`,
		`ko build --bare ./cmd/app`,
		`ko resolve -f config/`,
		`ko apply -f config/`,
		`goreleaser release`,
		`goreleaser release --clean`,
		`goreleaser`,
		`goreleaser --clean`,
	})
	attackExactly(t, Warning, []string{
		`kaniko --context . --no-push`,
		`jf rt search repo/`,
		`jf rt download repo/x .`,
		`gcloud builds list`,
		`az acr list`,
		`ko build --local ./cmd/app`,
		`ko build -L ./cmd/app`,
		`ko publish --push=false ./cmd/app`,
		`ko version`,
		`goreleaser release --snapshot`,
		`goreleaser release --skip=publish`,
		`goreleaser release --skip=validate,publish`,
		`goreleaser build`,
		`goreleaser build --snapshot`,
		`goreleaser check`,
		`goreleaser --snapshot --clean`,
	})
}

// TestAttackS30GapsRemoteDeletes: these delete what a registry or
// GitHub holds, for everyone who uses it (Dangerous, as gh repo delete
// and npm unpublish are). They were Warning.
func TestAttackS30GapsRemoteDeletes(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`skopeo delete docker://reg.io/a/b:1`,
		`crane delete reg.io/a/b:1`,
		`gcrane delete gcr.io/a/b:1`,
		`oras manifest delete reg.io/a/b:1`,
		`oras blob delete reg.io/a/b@sha256:00`,
		`gh release delete v1`,
		`gh release delete v1 --yes`,
		`gh release delete-asset v1 a.tgz`,
		`gh repo delete o/r --yes`,
		`npm unpublish pkg@1.0.0`,
		`cargo yank --version 1.0.0`,
		`cargo yank --vers 1.0.0 x`,
	})
	attackExactly(t, Warning, []string{
		`skopeo inspect docker://reg.io/a/b:1`,
		`crane ls reg.io/a/b`,
		`oras manifest fetch --output m.json reg.io/a/b:1`,
		`gh release list`,
		`cargo build`,
	})
}
