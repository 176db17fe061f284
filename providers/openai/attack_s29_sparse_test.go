package openai_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// A chat stream's tool-call deltas name the call they add to by index, and
// the SDK's accumulator grows a choice's list of calls to the index: up to
// 128 new (empty) calls for one delta of a few bytes. An endpoint that
// sends sparse indices (0, 128, 256, ...) turned each 80-byte chunk into
// 128 calls of the SDK's type, so that the response bound
// (DefaultMaxResponseBytes, 32 MiB) let it ask for gigabytes. A stream
// that asks for more than MaxStreamToolCalls calls is an error before its
// chunk is taken in.
func TestAttackS29SparseToolCallIndicesAreBounded(t *testing.T) {
	const chunks = 4096 // 128 calls each: half a million, from 360 KiB
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		bw := bufio.NewWriter(w)
		for i := range chunks {
			fmt.Fprint(bw, chatChunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d}]}}`, i*128)))
		}
		fmt.Fprint(bw, "data: [DONE]\n\n")
		_ = bw.Flush()
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})).Next(context.Background(), conversation(), nil)
	runtime.ReadMemStats(&after)
	require.Error(t, err, "a stream of half a million calls is not a turn")
	assert.Contains(t, err.Error(), "MaxStreamToolCalls")
	// The stream is 360 KiB; what reading it allocated is bounded by what
	// the calls up to the bound take, not by the indices asked for.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated to read a 360 KiB stream")
}
