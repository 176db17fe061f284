package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/openai"
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

// jsonClient is a client of an endpoint that answers body as JSON.
func jsonClient(t *testing.T, body string) *openai.Model {
	t.Helper()
	return openai.New(hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}), "gpt-4.1")
}

// A non-streamed answer is read whole, within the response bound, and
// decoded by the SDK into a value of its types: each "{}" (or "null") of
// a list of tool calls, choices or output items became a value of the
// SDK's type with its field metadata, and the adapter's copy, 1.4 to
// 4.5 KB for 3 bytes. A body of 768 KiB allocated 0.44 GB (tool calls),
// 0.37 GB (choices) and 1.2 GB (Responses output), and one within the
// 32 MiB bound would ask for tens of gigabytes. An answer of more array
// elements than openai.MaxResponseElements is refused before the SDK
// decodes it.
func TestAttackS29ManyEmptyObjectsAreBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, body := range map[string]string{
		"tool_calls":      `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[` + repeated("{}", n) + `]}}]}`,
		"null tool_calls": `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[` + repeated("null", n) + `]}}]}`,
		"choices":         `{"id":"c1","object":"chat.completion","choices":[` + repeated("{}", n) + `]}`,
		"responses":       `{"id":"r1","object":"response","status":"completed","output":[` + repeated("{}", n) + `]}`,
	} {
		client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		})
		var err error
		used := allocated(func() {
			if name == "responses" {
				_, err = openai.NewResponses(client, "gpt-5").Next(context.Background(), conversation(), nil)
			} else {
				_, err = openai.New(client, "gpt-4.1").Next(context.Background(), conversation(), nil)
			}
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", name, used, len(body))
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, openai.ErrResponseTooLarge, name)
			assert.Contains(t, err.Error(), "openai.MaxResponseElements", name)
		}
		// What reading it takes is bounded by the body (a few copies of
		// it), not by what the SDK would make of each of its elements.
		assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "%s: bytes allocated to read a body of %d bytes", name, len(body))
	}
}

// The bound leaves real answers alone: a text of 1 MiB, and 100 tool
// calls with arguments.
func TestAttackS29LargeRealAnswersPass(t *testing.T) {
	text := strings.Repeat("All work and no play. ", 1<<20/22)
	msg, err := jsonClient(t, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`+text+`"}}]}`).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, text, msg.Text)

	calls := make([]string, 100)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"id":"call_%d","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Lisbon\",\"days\":[1,2,3]}"}}`, i)
	}
	msg, err = jsonClient(t, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[`+strings.Join(calls, ",")+`]}}]}`).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Len(t, msg.Calls, 100)
}
