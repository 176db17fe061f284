package classify

import "testing"

// TestAttackDockerReachesAnotherHost: docker -H ssh://HOST (and
// --host, and a context, -c or --context, which names such an endpoint)
// logs in to HOST with the user's ssh keys and runs docker system
// dial-stdio there, as ssh HOST CMD (Warning) runs CMD; docker CLI 24 to
// 28.3 put the path of ssh://HOST/PATH into that remote command line
// unquoted (docker/cli#6147), so a path could run any command on HOST.
// tcp:// reaches a daemon anyone may run. DOCKER_HOST and DOCKER_CONTEXT,
// which choose the same, were Warning; these were Safe. podman shares
// docker's rules.
func TestAttackDockerReachesAnotherHost(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`docker -H ssh://host ps`,
		`docker -H 'ssh://host/x;touch pwned' version`,
		`docker --host=ssh://user@host ps`,
		`docker --host tcp://10.0.0.1:2375 images`,
		`docker -Htcp://h:2375 ps`,
		`docker -c prod ps`,
		`docker --context=prod logs x`,
		`podman -H ssh://host ps`,
	})
	attackSafe(t, []string{
		`docker ps`,
		`docker images`,
		`docker logs x`,
		`docker --log-level=debug ps`,
		`podman ps`,
	})
}
