package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// allocated is the bytes fn allocates (runtime.MemStats.TotalAlloc).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// repeated is n copies of elem joined by commas.
func repeated(elem string, n int) string {
	return strings.TrimSuffix(strings.Repeat(elem+",", n), ",")
}

// jsonModel is a Model of an endpoint that answers body as JSON.
func jsonModel(t *testing.T, body string) *anthropic.Model {
	t.Helper()
	return anthropic.New(hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}), "claude-sonnet-4-5")
}

// A non-streamed answer is read whole, within the response bound, and
// decoded by the SDK into a value of its types: each "{}" of a list of
// content blocks became a block of the SDK's type with its field
// metadata, about 1.6 KB for 3 bytes: a body of 768 KiB allocated
// 426 MB. An answer of more array elements than
// anthropic.MaxResponseElements is refused before the SDK decodes it (a
// list of blocks of one member each, and the message's own members, is
// over anthropic.MaxResponseMembers first).
func TestAttackS29ManyEmptyObjectsAreBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, body := range map[string]string{
		"content":  `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[` + repeated("{}", n) + `],"usage":{"input_tokens":1,"output_tokens":1}}`,
		"tool_use": `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[` + repeated(`{"type":"tool_use"}`, n/6) + `],"usage":{"input_tokens":1,"output_tokens":1}}`,
	} {
		bound := "anthropic.MaxResponseElements"
		if name == "tool_use" {
			bound = "anthropic.MaxResponseMembers"
		}
		model := jsonModel(t, body)
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", name, used, len(body))
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, anthropic.ErrResponseTooLarge, name)
			assert.Contains(t, err.Error(), bound, name)
		}
		// What reading it takes is bounded by the body (a few copies of
		// it), not by what the SDK would make of each of its elements.
		assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "%s: bytes allocated to read a body of %d bytes", name, len(body))
	}
}

// The bound leaves real answers alone: a text of 1 MiB, and 100 tool
// calls with inputs.
func TestAttackS29LargeRealAnswersPass(t *testing.T) {
	text := strings.Repeat("All work and no play. ", 1<<20/22)
	msg, err := jsonModel(t, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"`+text+`"}],"usage":{"input_tokens":1,"output_tokens":1}}`).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, text, msg.Text)

	blocks := make([]string, 100)
	for i := range blocks {
		blocks[i] = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"get_weather","input":{"city":"Lisbon","days":[1,2,3]}}`, i)
	}
	msg, err = jsonModel(t, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[`+strings.Join(blocks, ",")+`],"usage":{"input_tokens":1,"output_tokens":1}}`).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Len(t, msg.Calls, 100)
}
