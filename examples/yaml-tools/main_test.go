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

func TestYAMLToolsOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	for _, want := range []string{
		// a broken file: every problem, with its line, nothing registered
		`2 problems (nothing was registered)`,
		`broken.yaml:4: tool "oops": type "shel" is not known: did you mean "shell"?`,
		`broken.yaml:5: tool "oops": metadata.risk is "extreme": use low, medium or high`,
		// the three kinds, with their metadata from the file
		`list_notes   files     risk=low timeout=10s`,
		`stock_level  inventory risk=low timeout=5s`,
		// go
		"== word_stats({\"text\":\"tools defined once, run safely\"})\n   status=succeeded\n   {\"words\":5,\"characters\":30}",
		// shell, in the sandbox's workspace
		"== list_notes({\"folder\":\"notes\"})\n   status=succeeded\n   groceries.md\n   ideas.md\n   todo.md",
		`folder: does not match pattern '^[a-z0-9_-]+$'`,
		// http, query mapped from the arguments
		`{"sku":"TB-042","warehouse":"porto","units":7}`,
		`answered 404 Not Found: {"error":"unknown sku TB-999"}`,
	} {
		assert.Contains(t, got, want)
	}
	// The output says where the shell tool ran, and says it plainly when
	// that is the host (no bubblewrap).
	assert.Regexp(t, `== shell tools run with the (bwrap|process) engine`, got)
	if strings.Contains(got, "with the process engine") {
		assert.Contains(t, got, "on the host, unconfined")
	}
}
