package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS28OptionsThatRunAProgram: options that make a program run
// another program it is given are Dangerous, as rsync -e and go
// -toolexec are: aria2c's --on-download-* hooks (and --conf-path, a
// configuration that may set them), npm's --script-shell (the shell
// its scripts run in), --shell, --editor, --browser and --node-options
// (--require x.js), and npm config set (npm set) of those keys, which
// every later npm command then runs. They were Warning.
func TestAttackS28OptionsThatRunAProgram(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`aria2c --on-download-complete=/tmp/x.sh https://x.test/f`,
		`aria2c --on-download-start /tmp/x.sh https://x.test/f`,
		`aria2c --on-bt-download-complete=/tmp/x.sh x.torrent`,
		`aria2c --conf-path=/tmp/a.conf https://x.test/f`,
		`npm --script-shell=/tmp/x run build`,
		`npm run build --script-shell /tmp/x`,
		`npm test --node-options='--require /tmp/x.js'`,
		`npm config set script-shell /tmp/x`,
		`npm set script-shell=/tmp/x`,
		`npm config set node-options '--require /tmp/x.js'`,
		`npm config set editor /tmp/x`,
	})
	for _, l := range []string{
		`aria2c https://x.test/f`,
		`aria2c -x4 -o f https://x.test/f`,
		`npm run build`,
		`npm config set registry https://registry.npmjs.org/`,
		`npm config get script-shell`,
		`npm test`,
	} {
		assert.Less(t, Classify(l).Level, Dangerous, l)
	}
}
