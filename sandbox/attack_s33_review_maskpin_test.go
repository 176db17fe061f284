package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A masked symlink to a directory of the workspace (conf/secrets ->
// ../store) masks that directory whole; another masked path below it
// (store/sub/key) had its parents pinned (maskParents binds store and
// store/sub over themselves), and gvisor, which mounts deeper destinations
// over shallower ones, showed store/sub, bound writable, over the mask of
// store: a command read store/sub/other by both its names (and, once
// 303e7be left out the mask of store/sub/key as covered, store/sub/key by
// both too: 4 reads on gvisor, 0 on bwrap). The parents of a path below
// where a masked symlink leads are not pinned now, as those below a masked
// path are not.
func TestAttackS33ReviewPinnedParentBelowASymlinkedMask(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			_, run := s33MaskedRunner(t, eng, "conf/secrets", "store/sub/key")
			o := run(`mkdir -p conf store/sub && echo MASKSECRET key > store/sub/key && echo MASKSECRET other > store/sub/other && echo MASKSECRET top > store/top && ln -s ../store conf/secrets && echo planted`)
			require.Contains(t, string(o.Stdout), "planted", "the plant failed")
			o = run(`cat store/sub/key store/sub/other store/top conf/secrets/sub/key conf/secrets/sub/other; echo end`)
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the run failed: %s", o.Stderr)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d files of a masked directory", strings.Count(out, "MASKSECRET"))
		})
	}
}
