package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A masked path that is a symlink to a directory is masked where it leads
// (conf/secrets -> ../store: store is hidden whole). 989aab9 followed a
// masked symlink to a file to find that file's other hard links; one to a
// directory was not looked into, so a file in it that the command had
// linked out beforehand (ln store/key notes.txt) kept its other name
// readable once the developer wrote conf/secrets/key.
func TestAttackS33ReviewLinkOutOfASymlinkedMaskedDirectory(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			out := s33rLinkRun(t, eng, []string{"conf/secrets"},
				`mkdir -p store conf && : > store/key && ln store/key notes.txt && ln -s ../store conf/secrets`,
				[]string{"conf/secrets/key"},
				`cat conf/secrets/key store/key notes.txt`)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through a hard link out of a symlinked masked directory", strings.Count(out, "MASKSECRET"))
		})
	}
}
