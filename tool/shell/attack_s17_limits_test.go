package shell_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A tool file's limits replaced the WithLimits its kind was built with,
// whole: a file that set only output_bytes dropped the operator's 200ms
// timeout (and memory and process caps) for the engine's, which are wider.
// A file's limits now take what they leave unset from WithLimits, and may
// not ask for more than it gives.
func TestAttackS17ToolFileLimitsKeepTheOperatorsOthers(t *testing.T) {
	dir := t.TempDir()
	spec := tool.Spec{Name: "slow", Description: "Wait a while",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	opts := []shell.Option{shell.WithSandbox(processEngine(t, dir)), shell.WithLimits(sandbox.Limits{Timeout: 200 * time.Millisecond})}

	tl, err := shell.FromSpec(spec, json.RawMessage(`{"argv":["sleep","3"],"limits":{"output_bytes":100000}}`), opts...)
	require.NoError(t, err)
	res, _ := tl.Run(context.Background(), tool.Call{Name: "slow", Args: json.RawMessage(`{}`)})
	require.NotNil(t, res.Error, "the command ran past the operator's 200ms timeout")
	assert.Equal(t, tool.CodeTimeout, res.Error.Code)

	_, err = shell.FromSpec(spec, json.RawMessage(`{"argv":["sleep","3"],"limits":{"timeout":"10m"}}`), opts...)
	require.Error(t, err, "a tool file asked for more time than the operator gives")
	assert.Contains(t, err.Error(), "limits")
	assert.Contains(t, err.Error(), "timeout")

	// Within the operator's, a file tightens.
	tl, err = shell.FromSpec(spec, json.RawMessage(`{"argv":["sleep","3"],"limits":{"timeout":"100ms"}}`), opts...)
	require.NoError(t, err)
	res, _ = tl.Run(context.Background(), tool.Call{Name: "slow", Args: json.RawMessage(`{}`)})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeTimeout, res.Error.Code)
}
