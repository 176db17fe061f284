package classify

import (
	"testing"
)

// TestAttackS32ContainerDeletesTheWorkspace: docker run given the
// workspace (-v $PWD:/src, -v .:/src, --mount source=.) did not judge what
// the container does to it: docker run -v $PWD:/src alpine rm -rf /src
// deletes the workspace as rm -rf . does. The command is judged as on the
// host, the mount point spelled as the host's path, when it names the
// whole mount (/src, /src/*, or . after -w /src); one that names a file
// in it (the corpus's rm -rf /w/out) or none of it, or a read-only
// mount, stays as it was.
func TestAttackS32ContainerDeletesTheWorkspace(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`docker run -v $PWD:/src alpine rm -rf /src`,
		`docker run -v .:/src alpine rm -rf /src`,
		`docker run -v "$(pwd)":/src alpine rm -rf /src`,
		`docker run --rm -v ${PWD}:/src alpine rm -rf /src/*`,
		`docker run -v ./:/src alpine rm -rf /src/`,
		`docker run --mount type=bind,source=.,target=/src alpine rm -rf /src`,
		`docker run -v $PWD:/src alpine sh -c 'rm -rf /src/*'`,
		`docker run -v .:/src alpine find /src -delete`,
		`docker run -v .:/src -w /src alpine rm -rf .`,
		`docker run -itv .:/src alpine rm -rf /src`,
		`podman run -v .:/src:Z alpine rm -rf /src`,
		`docker container run -v $PWD:/w alpine rm -rf /w`,
	})
	attackExactly(t, Warning, []string{
		`docker run -v $PWD:/src -w /src node npm install`,
		`docker run -v .:/src golang go test ./...`,
		`docker run -v .:/src alpine rm -rf /tmp/x`,
		`docker run -v $PWD:/src alpine ls /src`,
		`docker run -v .:/src:ro alpine rm -rf /src`,
		`docker run --mount type=bind,source=.,target=/src,readonly alpine rm -rf /src`,
		`docker run --rm -v "$PWD":/app -w /app node:20 npm test`,
		`docker run -v $PWD:/src -w /src alpine sh -c 'ls'`,
		`docker run -v .:/x img make`,
		`docker run -v data:/data alpine rm -rf /data`,
		`docker run -v "$PWD":/w -w /w golang rm -rf /w/out`,
		`docker run -v .:/src -w /src alpine rm -rf out`,
	})
}
