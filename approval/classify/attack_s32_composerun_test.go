package classify

import (
	"testing"
)

// TestAttackS32ComposeRunMounts: docker compose run SERVICE CMD takes
// docker run's -v and --mount, and what its container does to a host
// directory given so is done on the host: docker compose run -v .:/src
// app rm -rf /src is rm -rf . (Dangerous), -v /:/h ... rm -rf /h is rm
// -rf / (Blocked), as for docker run. It was Warning, the mounts not
// read.
func TestAttackS32ComposeRunMounts(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`docker compose run -v .:/src app rm -rf /src`,
		`docker compose run --rm -v "$PWD":/w app sh -c 'rm -rf /w/*'`,
		`docker compose run -v ..:/h app rm -rf /h`,
		`docker compose -f c.yml run -v .:/src app rm -rf /src`,
	})
	attackAtLeast(t, Blocked, []string{
		`docker compose run -v /:/h app rm -rf /h`,
		`docker compose run -v ~:/h app rm -rf /h`,
	})
	attackExactly(t, Warning, []string{
		`docker compose run app npm test`,
		`docker compose run --rm app rm -rf /tmp/x`,
		`docker compose run -v .:/src app ls /src`,
		`docker compose run --rm -e X=1 app make`,
		`docker compose up -d`,
	})
}
