package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestAgentFixesTheTypoAfterApproval(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, strings.NewReader("v\na\n"), scriptedModel()))
	got := out.String()
	for _, want := range []string{
		"Approval required: edit_file",
		"[A]pprove",
		"Input schema:", // the [V]iew details answer
		"turn 1: read_file",
		"→ succeeded: Helo, world!",
		"approval: approve by alice for edit_file",
		"turn 3: run_tests({})\n  → succeeded: PASS greeting",
		"Fixed the typo in greeting.txt; the tests pass: PASS greeting",
		"audit trail: 6 records, chain intact",
	} {
		assert.Contains(t, got, want)
	}
}

func TestDeniedWriteIsFedBackToTheModel(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, strings.NewReader("d\nnot today\n"), scriptedModel()))
	got := out.String()
	assert.Contains(t, got, "edit_file")
	assert.Contains(t, got, "→ denied: error [approval_denied]")
	assert.Contains(t, got, "I could not fix the file")
	assert.NotContains(t, got, "run_tests(", "the model reacted to the denial instead of testing")
}

// The audit trail records what the agent did, so the agent must not reach
// it: a trail kept in the workspace could be read, and edited with
// edit_file or by the commands run_tests runs there. A model that asks for
// it, by the name it had in the workspace and by a path out of it, is
// refused both.
func TestTheAgentCannotReachItsAuditTrail(t *testing.T) {
	turn := 0
	model := agent.ModelFunc(func(_ context.Context, conv []agent.Message, _ []tool.Spec) (agent.Message, error) {
		turn++
		if turn == 1 {
			return agent.Message{Calls: []tool.Call{
				{ID: "in", Name: "read_file", Args: json.RawMessage(`{"path":".audit.jsonl"}`)},
				{ID: "out", Name: "read_file", Args: json.RawMessage(`{"path":"../audit.jsonl"}`)},
			}}, nil
		}
		return agent.Message{Text: "done"}, nil
	})
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, strings.NewReader(""), model))
	got := out.String()
	assert.NotContains(t, got, `"kind":"intent"`, "the agent read its own audit trail")
	assert.NotContains(t, got, "→ succeeded", "a read of the trail succeeded")
	assert.Contains(t, got, "audit trail: 4 records, chain intact")
}
