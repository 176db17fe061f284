package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
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

// jsonModel is a Model of an endpoint that answers body as JSON, through
// a client of gemini.HTTPClient.
func jsonModel(t *testing.T, body string) *gemini.Model {
	t.Helper()
	return hostileModel(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}, func(c *http.Client) *http.Client { return gemini.HTTPClient(c, 0) })
}

// A non-streamed answer is read whole, within the response bound of
// gemini.HTTPClient, and decoded by the SDK into a value of its types:
// each "{}" of a list of candidates or parts became a value of the SDK's
// type, and the adapter's copy: a body of 768 KiB allocated 115 MB
// (candidates) and 130 MB (parts). Through a client of HTTPClient, an
// answer of more array elements than gemini.MaxResponseElements is
// refused before the SDK decodes it.
func TestAttackS29ManyEmptyObjectsAreBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, body := range map[string]string{
		"candidates": `{"candidates":[` + repeated("{}", n) + `]}`,
		"parts":      `{"candidates":[{"content":{"role":"model","parts":[` + repeated("{}", n) + `]},"finishReason":"STOP"}]}`,
	} {
		model := jsonModel(t, body)
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", name, used, len(body))
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, gemini.ErrResponseTooLarge, name)
			assert.Contains(t, err.Error(), "gemini.MaxResponseElements", name)
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
	msg, err := jsonModel(t, `{"candidates":[{"content":{"role":"model","parts":[{"text":"`+text+`"}]},"finishReason":"STOP"}]}`).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, text, msg.Text)

	parts := make([]string, 100)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"functionCall":{"id":"call_%d","name":"get_weather","args":{"city":"Lisbon","days":[1,2,3]}}}`, i)
	}
	msg, err = jsonModel(t, `{"candidates":[{"content":{"role":"model","parts":[`+strings.Join(parts, ",")+`]},"finishReason":"STOP"}]}`).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Len(t, msg.Calls, 100)
}
