package classify

import "testing"

// TestAttackS19GitFormatChecksSignatures: git log --show-signature is
// Warning, as checking a commit's signature runs the configured GPG
// program (gpg.program, gpg.ssh.program, gpgsm). The placeholders %G?,
// %GG, %GS, %GK, %GF, %GP and %GT of a --format or --pretty check it the
// same way, and ref-filter's %(signature) atoms (for-each-ref, branch,
// tag) too: git log --format=%G? ran the program and was Safe, in every
// command that takes a format.
func TestAttackS19GitFormatChecksSignatures(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`git log --format=%G?`,
		`git log --format='%h %G? %GS'`,
		`git log --format '%h %G?'`,
		`git log --pretty=format:%GG`,
		`git log --pretty=tformat:%GK`,
		`git log --form=%G?`,
		`git show -s --format=%GF HEAD`,
		`git show --pretty=%GP`,
		`git log -g --format=%GT`,
		`git rev-list --format=%G? HEAD`,
		`git shortlog --format=%G?`,
		`git reflog --format=%G?`,
		`git whatchanged --format=%G?`,
		`git -C . log --format=%G?`,
		`git branch --format='%(signature)'`,
		`git tag --format='%(signature:grade)'`,
		`git for-each-ref --format='%(signature)'`,
	})
	attackSafe(t, []string{
		`git log --format=%H`,
		`git log --format='%h %an %s'`,
		`git log --pretty=oneline`,
		`git log --pretty=format:'%h %ad' --date=short`,
		`git show -s --format=%ci HEAD`,
		`git branch --format='%(refname:short)'`,
		`git log --oneline --grep=GPG`,
	})
}
