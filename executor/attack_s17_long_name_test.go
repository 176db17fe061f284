package executor_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call's tool name is the model's text. A name no tool has was quoted
// whole in the not_found error (a MiB of name, a MiB of error in the
// result the model reads back, the history and the logs) after an edit
// distance to every registered name (a MiB times each name's length, per
// tool). A name longer than any tool's can be (64 bytes) is now cut in the
// message and gets no suggestion.
func TestAttackS17LongToolNameIsCutInNotFound(t *testing.T) {
	reg := registry.New()
	for i := range 30 {
		reg.MustRegister(tool.Func(fmt.Sprintf("tool_%02d", i), "a tool", func(context.Context, struct{}) (string, error) { return "", nil }))
	}
	ex := executor.MustNew(reg)
	name := strings.Repeat("tool_0", 1<<20/6)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: name, Args: []byte(`{}`)})
	require.Error(t, err)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeNotFound, res.Error.Code)
	assert.Less(t, len(res.Error.Message), 1024, "the error quotes the whole name")
	assert.Less(t, len(err.Error()), 1024, "the error quotes the whole name")
	assert.Contains(t, res.Error.Message, fmt.Sprintf("%d bytes", len(name)))

	// A short unknown name still gets its suggestion.
	res, err = ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "tool_1", Args: []byte(`{}`)})
	require.Error(t, err)
	assert.Contains(t, res.Error.Message, `did you mean "tool_01" or "tool_10"`)
}

// History kept a refused call's tool name and its id whole: a thousand
// records (the default) of a MiB-long name each held a GiB. A record's
// names and ids are now held to MaxRecordFieldBytes, whole characters,
// saying how much was cut.
func TestAttackS17HistoryHoldsNoLongNames(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("search", "a tool", func(context.Context, struct{}) (string, error) { return "", nil }))
	ex := executor.MustNew(reg, executor.WithHistory(10))
	long := strings.Repeat("é", 1<<19) // a MiB
	_, _ = ex.Execute(context.Background(), tool.Call{ID: long, Name: long, Agent: long, Session: long, Args: []byte(`{}`)})
	_, err := ex.Execute(context.Background(), tool.Call{ID: "short", Name: "search", Args: []byte(`{}`)})
	require.NoError(t, err)
	recs := ex.History(executor.HistoryQuery{})
	require.Len(t, recs, 2)
	r := recs[0]
	for field, v := range map[string]string{"CallID": r.CallID, "Tool": r.Tool, "Agent": r.Agent, "Session": r.Session, "Message": r.Message} {
		assert.Less(t, len(v), executor.MaxRecordFieldBytes+64, "%s is %d bytes", field, len(v))
		assert.True(t, utf8.ValidString(v), "%s cut inside a character", field)
	}
	assert.Contains(t, r.Tool, "bytes cut")
	assert.Equal(t, "short", recs[1].CallID)
	assert.Equal(t, "search", recs[1].Tool)

	// A tool's error message, held by the output cap alone to a MiB, is
	// held to MaxRecordMessageBytes.
	reg.MustRegister(tool.Func("fail", "a tool", func(context.Context, struct{}) (string, error) {
		return "", errors.New(strings.Repeat("x", 1<<20))
	}))
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "f", Name: "fail", Args: []byte(`{}`)})
	recs = ex.History(executor.HistoryQuery{Tool: "fail"})
	require.Len(t, recs, 1)
	assert.Less(t, len(recs[0].Message), executor.MaxRecordMessageBytes+64)
}
