package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// catalog returns an executor over builtin.All on a git repository of 20
// commits, with run_tests printing $MARKER and 500 lines, and bash.
func catalog(t *testing.T, opts ...builtin.Option) *executor.Executor {
	t.Helper()
	e := newEnv(t)
	git(t, e.dir, "init", "-q", "-b", "main")
	for i := range 20 {
		e.write(t, "f.txt", fmt.Sprintf("%d\n", i))
		git(t, e.dir, "add", ".")
		git(t, e.dir, "commit", "-q", "-m", fmt.Sprintf("commit number %d with a subject long enough to count", i))
	}
	opts = append([]builtin.Option{builtin.WithTestCommand("sh", "-c", "echo tests:$MARKER; seq 1 500"), builtin.WithBash()}, opts...)
	tools, err := builtin.All(e.ws, processSandbox(t, e.dir), opts...)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	return executor.MustNew(reg)
}

func runText(t *testing.T, ex *executor.Executor, name string, args any) string {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: b})
	require.NoError(t, err, name)
	return res.Text()
}

// WithShellOptions reaches every shell tool the catalog builds: git_*,
// run_tests and bash run with its environment and its output budget.
func TestWithShellOptionsReachesTheShellTools(t *testing.T) {
	const budget = 120
	ex := catalog(t, builtin.WithShellOptions(shell.WithEnv("MARKER=from-options"), shell.WithOutputBudget(budget)))
	cut := " bytes cut ...]" // the end of sandbox.TruncationMarker
	for name, args := range map[string]any{
		"run_tests": map[string]any{},
		"bash":      map[string]any{"command": "echo bash:$MARKER; seq 1 500"},
		"git_log":   map[string]any{},
	} {
		text := runText(t, ex, name, args)
		assert.Contains(t, text, cut, "%s: cut to the budget", name)
		assert.Less(t, len(text), budget+100, "%s: %d bytes", name, len(text))
		assert.NotContains(t, text, "\n250\n", name)
	}
	assert.True(t, strings.HasPrefix(runText(t, ex, "run_tests", map[string]any{}), "tests:from-options\n"))
	assert.True(t, strings.HasPrefix(runText(t, ex, "bash", map[string]any{"command": "echo bash:$MARKER; seq 1 500"}), "bash:from-options\n"))

	// Without it: the default budget keeps all of it, and no MARKER.
	plain := catalog(t)
	text := runText(t, plain, "run_tests", map[string]any{})
	assert.True(t, strings.HasPrefix(text, "tests:\n1\n"), text[:20])
	assert.Contains(t, text, "\n250\n")
	assert.NotContains(t, text, cut)
	assert.Contains(t, runText(t, plain, "git_log", map[string]any{}), "commit number 10 ")
	assert.Contains(t, runText(t, plain, "bash", map[string]any{"command": "seq 1 500"}), "\n250\n")
}
