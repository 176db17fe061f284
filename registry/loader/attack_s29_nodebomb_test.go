package loader

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
)

// A tool file is refused for having too many YAML nodes only after
// yaml.v3 has built them all, about 120 bytes of memory for each two
// bytes of "a,": a file at the default size cap of a flow list of one
// letter allocated about 509 MB when the cap was 4 MiB (a tool directory
// an agent can write starts a program at that cost). The default cap is
// what bounds it: a file at DefaultLoadMaxBytes may cost at most 160 MiB.
func TestAttackS29NodeBombAtTheDefaultCapIsBounded(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("tools: [")
	for b.Len()+2+3 <= DefaultLoadMaxBytes { // room for "a]\n"
		b.WriteString("a,")
	}
	b.WriteString("a]\n")
	require.LessOrEqual(t, b.Len(), DefaultLoadMaxBytes)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := (&Loader{}).Load(registry.New(), &b, "tools.yaml")
	runtime.ReadMemStats(&after)

	require.Error(t, err, "a list of letters is not a tool file")
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte file allocated %d MB: %s", DefaultLoadMaxBytes, allocated>>20, strings.SplitN(err.Error(), "\n", 2)[0])
	assert.LessOrEqual(t, allocated, uint64(160<<20), "bytes allocated to refuse a file at the default size cap")
}
