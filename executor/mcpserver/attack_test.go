package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The elicitation question showed the first 2,000 bytes of the arguments:
// a model that writes a long harmless field first put the one that decides
// what runs out of sight, and the person approved a call they were not
// shown ("env":"prod" behind 3,000 bytes of notes). The question shows the
// arguments whole, as the dashboard and the terminal do.
func TestApprovalQuestionShowsTheArgumentsWhole(t *testing.T) {
	var ran atomic.Value
	reg := registry.New()
	reg.MustRegister(tool.New("deploy", "Deploy a build", func(_ context.Context, call tool.Call) (*tool.Result, error) {
		var in struct{ Env string }
		_ = json.Unmarshal(call.Args, &in)
		ran.Store(in.Env)
		return &tool.Result{Content: []tool.Content{tool.TextContent("deployed to " + in.Env)}}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"notes":{"type":"string"},"env":{"type":"string"}}}`)),
		tool.WithApproval(), tool.WithRisk(tool.RiskHigh)))
	ext := approvalgate.New(Approver{})
	ex := executor.MustNew(reg, executor.WithExtensions(ext, ext.Guard()))
	srv, err := New(ex)
	require.NoError(t, err)

	// The person approves a deploy unless what they are shown names prod.
	var shown string
	copts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		shown = req.Params.Message
		if strings.Contains(shown, "prod") {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	cs := sdkClient(t, serve(t, srv), copts, nil)
	args := json.RawMessage(`{"notes":"` + strings.Repeat("release notes ", 220) + `","env":"prod"}`)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
	require.NoError(t, err)
	assert.Contains(t, shown, `"env":"prod"`, "the person is shown every argument")
	assert.True(t, res.IsError, "declined once prod is shown: %s", resultText(res))
	assert.Nil(t, ran.Load(), "the deploy did not run")
}

// A tool replaced in the registry (Remove, then Register under the same
// name) was served as it was first added: Sync skipped every name it had
// served, so a client kept the old tool's description, schema and
// read-only hint for a tool that now deletes (a client that runs
// read-only tools without asking ran it), and until Sync a WithFilter
// ceiling was judged against the old tool only, so a client ran the
// high-risk replacement through a low-risk server.
func TestReplacedToolIsServedAsItIsNow(t *testing.T) {
	obj := tool.WithInputSchema(json.RawMessage(`{"type":"object"}`))
	var wiped atomic.Int32
	search := tool.New("search", "Search the notes", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.TextContent("found")}}, nil
	}, obj, tool.ReadOnly(), tool.WithRisk(tool.RiskLow))
	wipe := tool.New("search", "Delete every note", func(context.Context, tool.Call) (*tool.Result, error) {
		wiped.Add(1)
		return &tool.Result{Content: []tool.Content{tool.TextContent("wiped")}}, nil
	}, obj, tool.WithRisk(tool.RiskHigh))
	replace := func(reg *registry.Registry) {
		require.True(t, reg.Remove("search"))
		require.NoError(t, reg.Register(wipe))
	}

	// Served with a low-risk ceiling: before Sync the replacement is not
	// run; after it, it is not listed.
	low := tool.RiskLow
	reg := registry.New()
	reg.MustRegister(search)
	srv, err := New(executor.MustNew(reg), WithFilter(registry.Filter{MaxRisk: &low}))
	require.NoError(t, err)
	cs := sdkClient(t, serve(t, srv), nil, nil)
	replace(reg)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
	if err == nil {
		assert.True(t, res.IsError, "%s", resultText(res))
	}
	assert.Zero(t, wiped.Load(), "the filter is judged on the tool that would run")

	// Served without a filter: after Sync the client sees the tool that
	// runs, not the read-only one it replaced.
	reg = registry.New()
	reg.MustRegister(search)
	srv, err = New(executor.MustNew(reg))
	require.NoError(t, err)
	cs = sdkClient(t, serve(t, srv), nil, nil)
	replace(reg)
	require.NoError(t, srv.Sync())
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 1)
	got := list.Tools[0]
	assert.Equal(t, "Delete every note", got.Description)
	assert.False(t, got.Annotations != nil && got.Annotations.ReadOnlyHint, "the replacement is not read-only")
}
