package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestQuickstartOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	for _, want := range []string{
		`"strict": true`,
		`"readOnlyHint": true`,
		`== good call: search`,
		`status=succeeded output={"hits":[{"title":"sandbox result 1","score":1},{"title":"sandbox result 2","score":0.5}]}`,
		`== strict-mode nulls mean absent`,
		`message: kind: must be one of "code", "docs"; limit: must be <= 50, got 80; near.city: required; query: required`,
		`message: no tool named "serch": did you mean "search"?`,
		`status=timed_out code=timeout retryable=true`,
		`status=failed code=panic retryable=false`,
		`integer divide by zero`,
		`stack: `,
		`model reads: {"hits":[{"title":"sandbox result 1","score":1},{"title":"sandbox result 2","score":0.5}]}`,
		`model reads: error [timeout]: `,
		`== a person refuses a risky call: delete_note`,
		`status=denied code=approval_denied retryable=false`,
		`keep the shopping list`,
		`== the tool's own error: delete_note`,
		`status=failed code=tool_error retryable=false`,
		`model reads: error [tool_error]: note "groceries" is pinned: unpin it first`,
	} {
		assert.Contains(t, got, want)
	}
}
