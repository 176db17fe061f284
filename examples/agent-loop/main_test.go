package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestAgentFixesTheTypoAfterApproval(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, strings.NewReader("v\na\n")))
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
	require.NoError(t, run(context.Background(), &out, strings.NewReader("d\nnot today\n")))
	got := out.String()
	assert.Contains(t, got, "edit_file")
	assert.Contains(t, got, "→ denied: error [approval_denied]")
	assert.Contains(t, got, "I could not fix the file")
	assert.NotContains(t, got, "run_tests(", "the model reacted to the denial instead of testing")
}
