package classify

import "testing"

// TestAttackS18ProgramsThatPrintTheEnvironment: with env and printenv
// Warning, jq's env and $ENV, yq's env(), strenv() and envsubst, and
// awk's ENVIRON print the same environment, where the program running the
// command keeps its API keys; all were Safe (jq -n env printed every
// variable, awk 'BEGIN{print ENVIRON["OPENAI_API_KEY"]}' one).
func TestAttackS18ProgramsThatPrintTheEnvironment(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`jq -n env`,
		`jq -n '$ENV'`,
		`jq -n 'env.AWS_SECRET_ACCESS_KEY'`,
		`jq -n '$ENV.OPENAI_API_KEY'`,
		`jq -n '[env[]]'`,
		`jq '. + env' f.json`,
		`yq -n 'env(AWS_SECRET_ACCESS_KEY)'`,
		`yq -n 'strenv(GITHUB_TOKEN)'`,
		`yq '.a | envsubst' f.yaml`,
		`yq -n '$ENV'`,
		`awk 'BEGIN{print ENVIRON["OPENAI_API_KEY"]}'`,
		`awk 'BEGIN{for(k in ENVIRON) print k, ENVIRON[k]}'`,
		`gawk 'BEGIN{for(k in ENVIRON) print k, ENVIRON[k]}'`,
		`mawk 'BEGIN{for(k in ENVIRON) print k, ENVIRON[k]}'`,
		`busybox awk 'BEGIN{for(k in ENVIRON) print k, ENVIRON[k]}'`,
	})
	attackSafe(t, []string{
		`jq -r '.environment' f.json`,
		`jq '.spec.env[0].name' f.json`,
		`jq '.env_file' f.json`,
		`jq '.a | .env[]' f.json`,
		`yq '.spec.env[0].name' deploy.yaml`,
		`yq '.services.web.environment' compose.yaml`,
		`awk '{print $1}' f`,
		`awk -F: '{print $NF}' f`,
	})
}
