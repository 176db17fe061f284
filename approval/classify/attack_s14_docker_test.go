package classify

import "testing"

// TestAttackDockerPrintsSecretEnvironments: docker compose config prints
// the project's configuration with the variables of .env (and the files
// env_file names) filled in, so it prints what cat .env (Warning) would;
// docker inspect and docker container inspect print a container's
// environment (Config.Env), where its passwords and tokens are, as ps e
// (Warning) prints a process's. All were Safe. An image's, a volume's or
// a network's inspection stays Safe.
func TestAttackDockerPrintsSecretEnvironments(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`docker compose config`,
		`docker inspect x`,
		`docker container inspect x`,
		`podman inspect x`,
		`podman container inspect x`,
	})
	attackSafe(t, []string{
		`docker image inspect x`,
		`docker volume inspect x`,
		`docker network inspect x`,
		`docker compose ps`,
		`docker ps`,
	})
}
