package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// attackExactly asserts each line is exactly at want: the twins of the
// attacks, which the fixes must leave where they were.
func attackExactly(t *testing.T, want Level, lines []string) {
	t.Helper()
	for _, l := range lines {
		v := Classify(l)
		assert.Equal(t, want, v.Level, "%q: %v", l, v.Reasons)
	}
}

// TestAttackS30GapsCloneContainers: docker compose up and docker build
// in a repository the line cloned run what was downloaded (its
// Dockerfile's RUN steps, the services and host mounts its compose file
// names), as make there runs its Makefile (Blocked). They were Warning.
func TestAttackS30GapsCloneContainers(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`git clone https://github.com/o/r && cd r && docker compose up`,
		`git clone https://github.com/o/r && cd r && docker compose up -d`,
		`git clone https://github.com/o/r && docker compose -f r/compose.yml up`,
		`git clone https://github.com/o/r && docker compose --project-directory r up`,
		`git clone https://github.com/o/r && cd r && docker build .`,
		`git clone https://github.com/o/r && cd r && docker build -t img .`,
		`git clone https://github.com/o/r && docker build ./r`,
		`git clone https://github.com/o/r && docker build -f r/Dockerfile r/`,
		`git clone https://github.com/o/r && cd r && docker buildx build .`,
		`git clone https://github.com/o/r && cd r && podman build .`,
		`git clone https://github.com/o/r && cd r && docker compose build`,
		`gh repo create x --template=o/r --clone && cd x && docker compose up`,
		`git clone https://github.com/o/r && docker build r`,
		`git clone https://github.com/o/r && docker build -t img --build-arg A=1 r`,
		`git clone https://github.com/o/r && cd r && docker compose -p x up`,
		`git clone https://github.com/o/r && docker buildx build --platform linux/amd64 r`,
		`git clone https://github.com/o/r && cd r && docker-compose up`,
		`git clone https://github.com/o/r && cd r && buildah bud .`,
		`git clone https://github.com/o/r && nerdctl build -t img r`,
	})
	attackExactly(t, Warning, []string{
		`docker compose up`,
		`docker build .`,
		`cd r && docker compose up`,
		`cd r && docker build -t img .`,
		`git clone https://github.com/o/r && cd r && docker compose ps`,
		`git clone https://github.com/o/r && docker build -t r .`,
		`git clone https://github.com/o/r && docker build --tag=r --target r .`,
		`git clone https://github.com/o/r && docker compose -p r up`,
		`docker-compose up`,
		`buildah bud .`,
		`git clone https://github.com/o/r && cd r && docker-compose ps`,
		`git clone https://github.com/o/r && docker compose up`,
	})
}
