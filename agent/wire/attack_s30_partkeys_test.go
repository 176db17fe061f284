package wire_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// A Gemini content's parts were read as maps of every member, to find
// the functionCall one: a part of many members that are not calls (a
// hostile endpoint's, or a payload a user reads with wire) cost a map
// entry, a key string and a raw value each, several times the bytes of
// the payload. Parts are read for their functionCall member only: the
// others are skipped as they are read.
func TestAttackS30GeminiPartMembersCostNoMoreThanThePayload(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"parts":[{"text":"hi",`)
	for i := range 1 << 18 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`":0`)
	}
	b.WriteString(`},{"functionCall":{"name":"add","args":{"a":1}}}]}`)
	payload := []byte(b.String())

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	calls, err := wire.Gemini.Calls(payload)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "add", calls[0].Name)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("payload %d bytes, allocated %d bytes", len(payload), alloc)
	assert.Less(t, alloc, uint64(2*len(payload)), "decoding allocated more than twice the payload")
}
