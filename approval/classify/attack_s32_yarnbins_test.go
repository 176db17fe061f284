package classify

import (
	"testing"
)

// TestAttackS32YarnRunsPackageBins: yarn NAME (yarn run NAME, pnpm NAME)
// runs the command of an installed package when NAME is no script, as npx
// NAME does: yarn rimraf ~ is rimraf ~, which npx rimraf ~ is judged as
// (Blocked), and yarn node -e CODE is node -e CODE. yarn's and pnpm's
// options before exec (yarn --cwd x exec 'rm -rf ~', pnpm -C x exec) hid
// the subcommand. They were Warning. yarn's own commands (install, link,
// unlink, init, patch, env, import: some are programs' names too) are not
// taken for the program.
func TestAttackS32YarnRunsPackageBins(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`yarn rimraf ~`,
		`yarn run rimraf ~`,
		`yarn --cwd x rimraf ~`,
		`yarn --cwd x exec 'rm -rf ~'`,
		`yarn --cwd=x exec 'rm -rf ~'`,
		`yarn -s run rimraf ~`,
		`pnpm rimraf ~`,
		`pnpm --dir x exec rm -rf ~`,
		`pnpm -C x exec rm -rf ~`,
		`pnpm run rimraf /`,
	})
	attackAtLeast(t, Dangerous, []string{
		`yarn node -e 'require("child_process").execSync("rm -rf ~")'`,
		`yarn http-server ~`,
	})
	attackExactly(t, Warning, []string{
		`yarn test`,
		`yarn build`,
		`yarn add lodash`,
		`yarn install`,
		`yarn link`,
		`yarn unlink foo`,
		`yarn init -y`,
		`yarn env`,
		`yarn import`,
		`yarn patch lodash`,
		`yarn set version stable`,
		`yarn --cwd x test`,
		`yarn --cwd x add lodash`,
		`yarn --cwd x exec ls`,
		`yarn run lint`,
		`yarn eslint .`,
		`pnpm install`,
		`pnpm -C x build`,
		`pnpm run test`,
	})
}
