package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS28ReviewNpmConfigEnv: npm (and pnpm) read every
// configuration key from the environment too, as npm_config_KEY in any
// case (npm_config_script_shell is --script-shell). f21c21f made the
// options and npm config set of script-shell, shell, editor, browser and
// node-options Dangerous; set as variables the same keys were Warning.
// Other npm_config_ variables (the log level, the registry in CI) stay
// below Dangerous.
func TestAttackS28ReviewNpmConfigEnv(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`npm_config_script_shell=/tmp/x npm run build`,
		`NPM_CONFIG_SCRIPT_SHELL=/tmp/x npm test`,
		`env npm_config_script_shell=/tmp/x npm run build`,
		`export npm_config_script_shell=/tmp/x; npm test`,
		`npm_config_node_options='--require ./x.js' npm test`,
		`npm_config_shell=/tmp/x npm explore lodash`,
		`npm_config_editor=/tmp/x npm edit lodash`,
		`npm_config_browser=/tmp/x npm docs lodash`,
	})
	for _, l := range []string{
		`npm_config_loglevel=silent npm ci`,
		`NPM_CONFIG_LOGLEVEL=warn npm install`,
		`npm_config_cache=/tmp/npm-cache npm ci`,
	} {
		v := Classify(l)
		assert.Less(t, v.Level, Dangerous, "%q: %v", l, v.Reasons)
	}
}
