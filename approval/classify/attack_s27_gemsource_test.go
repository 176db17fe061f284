package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS27GemFromAnotherSource: gem install from another source
// (--source URL, -s URL) runs the gem's build code (extconf.rb) from
// wherever that points, as pip install -i URL does: Dangerous, above an
// install from rubygems.org (Warning).
func TestAttackS27GemFromAnotherSource(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`gem install --source https://x.test x`,
		`gem install x -s https://x.test`,
		`gem install --source=https://x.test x`,
		`gem install --clear-sources -s http://x.test x`,
	})
	assert.Less(t, Classify(`gem install rails`).Level, Dangerous)
}
