package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMonitorShowsEveryKindOfEnding(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	s := out.String()
	t.Log("\n" + s)

	// Live view: lines per agent, as events arrive.
	for _, want := range []string{
		`[anthropic]  ⚡ started   c1  run_tests`,
		`[anthropic]  │ output    c1  ok  example.com/pkg1`,
		`[anthropic]  │ output    c1  ok  example.com/pkg4`,
		`[openai]     ⏳ queued    c3  write_file: lock: waiting to write "file:/lib/app.go" behind call "c2"`,
		`[gemini]     ✗ failed    c5  remove_tree: denied: policy_denied`,
		`[gemini]     ✗ failed    c6  fetch_url: timed_out`,
	} {
		assert.Contains(t, s, want)
	}
	// The second writer started only after the first completed.
	assert.Less(t, strings.Index(s, "✓ completed c2"), strings.Index(s, "⚡ started   c3"))

	// Summary table from history: one row per call.
	rows := map[string]string{
		"c1": `anthropic\s+c1\s+run_tests\s+succeeded\s+-`,
		"c2": `anthropic\s+c2\s+write_file\s+succeeded\s+-`,
		"c3": `openai\s+c3\s+write_file\s+succeeded\s+-`,
		"c4": `openai\s+c4\s+write_file\s+succeeded\s+-`,
		"c5": `gemini\s+c5\s+remove_tree\s+denied\s+policy_denied`,
		"c6": `gemini\s+c6\s+fetch_url\s+timed_out\s+timeout`,
	}
	for id, re := range rows {
		assert.Regexp(t, regexp.MustCompile(re), s, id)
	}
	assert.Contains(t, s, `4 of 6 calls succeeded; lib/app.go now reads "package app // by openai"`)
	assert.NotContains(t, s, "events lost")
}
