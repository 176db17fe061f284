package classify

import (
	"testing"
)

// TestAttackS32WrittenPackageJSONYarn: yarn and pnpm run the scripts of a
// package.json the line wrote as npm does (yarn test, yarn NAME, yarn run
// NAME, pnpm test, yarn install's lifecycle scripts): judged as the shell
// code they are. They were Warning.
func TestAttackS32WrittenPackageJSONYarn(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`echo '{"scripts":{"test":"rm -rf ~"}}' > package.json && yarn test`,
		`echo '{"scripts":{"x":"rm -rf ~"}}' > package.json && yarn x`,
		`echo '{"scripts":{"x":"rm -rf ~"}}' > package.json && yarn run x`,
		`echo '{"scripts":{"test":"rm -rf ~"}}' > package.json && pnpm test`,
		`echo '{"scripts":{"postinstall":"rm -rf ~"}}' > package.json && yarn`,
		`echo '{"scripts":{"postinstall":"rm -rf ~"}}' > package.json && pnpm install`,
	})
	attackExactly(t, Warning, []string{
		`echo '{"scripts":{"test":"jest"}}' > package.json && yarn test`,
		`echo '{"scripts":{"clean":"rm -rf ~"}}' > package.json && yarn test`,
		`echo '{"scripts":{"postinstall":"rm -rf ~"}}' > package.json && yarn add lodash`,
		`yarn test`,
	})
}
