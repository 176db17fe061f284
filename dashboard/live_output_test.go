package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/tool"
)

// What a page holds of a call's output is bounded: a key block that never
// ends is sent masked past maxLiveHeld, and a page following more than
// maxLiveCalls calls sends the oldest what it holds, masked.
func TestLiveOutputIsBounded(t *testing.T) {
	var lc liveCalls
	ev := tool.Event{Kind: tool.EventOutput, CallID: "c1", Stream: "stdout", Data: []byte("-----BEGIN PRIVATE KEY-----\n")}
	sent := ""
	for range 2 * maxLiveHeld / 64 {
		for _, e := range lc.output(&ev) {
			sent += string(e.Data)
		}
		ev.Data = []byte(strings.Repeat("A", 63) + "\n")
		assert.LessOrEqual(t, len(lc[0].held), maxLiveHeld+64)
	}
	assert.Equal(t, "[REDACTED]\n"+darkNote, sent, "past maxLiveHeld, what was held is sent masked, and the rest is not")
	assert.Empty(t, lc.end(&tool.Event{Kind: tool.EventCompleted, CallID: "c1"}))

	lc = nil
	for i := range maxLiveCalls + 1 {
		ev := tool.Event{Kind: tool.EventOutput, CallID: fmt.Sprint(i), Stream: "stdout", Data: []byte("token=ghp_0123456789abcdefghijABCDEFGHIJ012345\n")}
		out := lc.output(&ev)
		if i < maxLiveCalls {
			assert.Empty(t, out)
			continue
		}
		if assert.Len(t, out, 1) {
			assert.Equal(t, "0", out[0].CallID, "the oldest call's output is sent")
			assert.Equal(t, "token=[REDACTED]\n", string(out[0].Data))
		}
	}
	assert.Len(t, lc, maxLiveCalls)
	out := lc.end(&tool.Event{Kind: tool.EventCompleted, CallID: "5"})
	if assert.Len(t, out, 1) {
		assert.Equal(t, "token=[REDACTED]\n", string(out[0].Data))
	}
	assert.Len(t, lc, maxLiveCalls-1)
}
