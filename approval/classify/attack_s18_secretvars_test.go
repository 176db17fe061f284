package classify

import "testing"

// TestAttackS18ExpandingASecretVariable: with printenv GITHUB_TOKEN
// Warning, echo "$GITHUB_TOKEN" printed the same token and was Safe, as
// was any Safe command given an API key's variable (printf, a slice of
// it, a here-document). The variable rules with reads judge such an
// expansion of a variable the line did not set; its length, whether it
// is set and the names of variables give none of the value.
func TestAttackS18ExpandingASecretVariable(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`echo $AWS_SECRET_ACCESS_KEY`,
		`echo "$GITHUB_TOKEN"`,
		`printf '%s' "$OPENAI_API_KEY"`,
		`echo "${ANTHROPIC_API_KEY}"`,
		`echo ${GITHUB_TOKEN:0:8}`,
		`echo ${NPM_TOKEN/x/y}`,
		`echo "key=${STRIPE_SECRET_KEY}"`,
		`cat <<EOF
$DATABASE_PASSWORD
EOF`,
		`ls $GOOGLE_APPLICATION_CREDENTIALS`,
		`echo $GH_PAT`,
		`bash -c 'echo $GITHUB_TOKEN'`,
	})
	attackSafe(t, []string{
		`echo $HOME`,
		`echo "$PATH"`,
		`echo ${#GITHUB_TOKEN}`,
		`echo ${GITHUB_TOKEN:+set}`,
		`echo ${!GITHUB*}`,
		`TOKEN=abc; echo $TOKEN`,
		`echo "$GITHUB_REF" "$CI_COMMIT_SHA"`,
	})
}
