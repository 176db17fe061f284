package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// WithAgentConcurrency limits each agent, but an agent was known by its
// name alone, and names are the host's or the model's ("coder", or ""
// for every MCP call): one tenant's agent holding its slots made another
// tenant's agent of the same name wait, or, under WithLimitPolicy(Refuse),
// refused its calls, with a message counting the first tenant's calls.
// Agents are per tenant, as principal ids are: each tenant's "coder" has
// its own limit; one tenant's agents of one name still share theirs.
func TestAttackS17AnAgentsLimitIsItsTenants(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	reg := scRegistry(t, tool.New("slow", "Wait for the test", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		if c.ID == "hold" {
			close(started)
			<-release
		}
		return &tool.Result{Content: []tool.Content{tool.TextContent("ran")}}, nil
	}))
	ex := executor.MustNew(reg, executor.WithAgentConcurrency(1), executor.WithLimitPolicy(executor.Refuse))
	call := func(id, tenant string) tool.Call {
		return tool.Call{ID: id, Name: "slow", Agent: "coder", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice", Tenant: tenant}}
	}
	held := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.Background(), call("hold", "acme"))
		held <- res
	}()
	<-started

	_, err := ex.Execute(context.Background(), call("g1", "globex"))
	assert.NoError(t, err, "acme's coder refused globex's coder a slot")

	res, err := ex.Execute(context.Background(), call("a2", "acme"))
	require.ErrorIs(t, err, tool.ErrConcurrencyLimit, "acme's own coder still has one slot")
	assert.Contains(t, res.Error.Message, `agent "coder"`)

	close(release)
	require.True(t, (<-held).OK())
}
