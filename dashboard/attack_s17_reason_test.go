package dashboard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A failed call's event carries its error twice: in the result (sent to
// the page as code and message, secrets masked as the logs mask them and
// cut to the last 8 KiB) and in the event's Reason, the error's text
// (tool.Error.Error(): the same message), which was sent to the page as
// it was: "reason" on the event stream gave every reader the password the
// "message" beside it masked, and the whole text of a megabyte error.
func TestAttackS17EventReasonIsMaskedAndCutAsTheMessageIs(t *testing.T) {
	failed := func(te *tool.Error) Event {
		res := &tool.Result{Status: tool.StatusFailed, Error: te}
		return eventOf(&tool.Event{Kind: tool.EventFailed, CallID: "c1", Tool: "psql", Reason: te.Error(), Result: res})
	}
	const secret = "s3cr3t-hunter2-value"
	ev := failed(tool.Errorf(tool.CodeToolError, "psql failed: PGPASSWORD=%s psql -h db: connection refused", secret))
	wire, err := json.Marshal(ev)
	require.NoError(t, err)
	require.Contains(t, ev.Message, "connection refused")
	require.NotContains(t, ev.Message, secret, "the message is masked (a guard)")
	assert.False(t, strings.Contains(string(wire), secret), "the event's reason gave the secret its message masks: %s", ev.Reason)
	assert.Contains(t, ev.Reason, "connection refused")

	ev = failed(tool.Errorf(tool.CodeToolError, "psql failed:%s done", strings.Repeat(" retrying", 3000)))
	assert.LessOrEqual(t, len(ev.Reason), len(ev.Message), "the reason is cut as the message is (%d bytes)", len(ev.Reason))
	assert.True(t, strings.HasSuffix(ev.Reason, "retrying done"), "the reason keeps its tail")

	// A queued call's reason is short and kept as it is.
	ev = eventOf(&tool.Event{Kind: tool.EventQueued, Reason: `lock: waiting to write "a.txt" behind call "c0"`})
	assert.Equal(t, `lock: waiting to write "a.txt" behind call "c0"`, ev.Reason)
}
