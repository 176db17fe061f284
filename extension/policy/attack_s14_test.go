package policy_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Chromium and Firefox show a local file's text at view-source:file:///…,
// so a browser tool's navigate to view-source:file:///etc/shadow reads
// /etc/shadow. The policy judged file: URLs only, so forbidden_paths
// /etc/** let it run.
func TestAttackS14ViewSourceFileURL(t *testing.T) {
	p, err := policy.Parse([]byte("global:\n  forbidden_paths: [\"/etc/**\"]\n"))
	require.NoError(t, err)
	spec := tool.Spec{Name: "navigate", InputSchema: json.RawMessage(`{"type":"object"}`)}
	for _, args := range []string{
		`{"url": "view-source:file:///etc/shadow"}`,
		`{"url": "VIEW-SOURCE:FILE:/etc/shadow"}`,
		`{"url": " view-source:\u0066ile://localhost/etc/%73hadow"}`,
		`{"request": {"url": "view-source:file:///etc/shadow"}}`,
		`{"url": "view-source:` + strings.Repeat(" ", 40) + `file:///etc/shadow"}`,
		`{"url": "jar:file:///etc/keys.zip!/id"}`,
		`{"url": "view-source:jar:file:///etc/keys.zip!/id"}`,
	} {
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		assert.Error(t, err, args)
	}
	for _, args := range []string{
		`{"url": "view-source:https://example.com/etc/shadow"}`,
		`{"content": "view-source:file:///etc/shadow"}`,
	} {
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		assert.NoError(t, err, args)
	}
}

// A call started in a mode that needs no approval runs on when the
// operator switches to one that requires approval for its tool
// (requires_approval_in_modes): it ran unapproved in that mode. It is
// stopped now, as a call the new mode forbids is; one a person approved
// runs on.
func TestAttackS14SwitchToAModeThatRequiresApprovalStopsUnapprovedCalls(t *testing.T) {
	p, err := policy.Parse([]byte(`
global: {mode: normal, modes: [review]}
tools:
  deploy: {requires_approval_in_modes: [alert, review]}
`))
	require.NoError(t, err)
	started, release := make(chan struct{}, 2), make(chan struct{})
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(ctx context.Context, _ struct{}) (string, error) {
		started <- struct{}{}
		<-release
		if err := ctx.Err(); err != nil {
			return "", err
		}
		return "deployed", nil
	}))
	var asked atomic.Int32
	// Nothing is asked but what the policy demands (allow_all).
	ax := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Approved("operator"), nil
	}), approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll)))
	ex := executor.MustNew(reg, executor.WithExtensions(p, ax, ax.Guard()))
	run := func() chan *tool.Result {
		ch := make(chan *tool.Result, 1)
		go func() { ch <- execRaw(ex, "deploy", `{}`) }()
		<-started
		return ch
	}

	unasked := run() // normal: no approval needed
	require.Zero(t, asked.Load())
	require.NoError(t, p.SetMode(tool.ModeAlert))
	close(release)
	res := <-unasked
	require.NotNil(t, res.Error, "the call ran on unapproved in alert: %s", resultText(res))
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
	assert.Equal(t, "tools.deploy.requires_approval_in_modes", res.Metadata[policy.MetaRule])
	assert.Equal(t, tool.ModeAlert, res.Metadata[policy.MetaMode])
	assert.Contains(t, res.Error.Message, "the mode changed while the call was in progress")

	release = make(chan struct{})
	approved := run() // alert: asked and approved
	require.Equal(t, int32(1), asked.Load())
	require.NoError(t, p.SetMode("review"))
	close(release)
	res = <-approved
	require.Nil(t, res.Error, "an approved call is stopped by a mode that also requires approval")
	assert.Equal(t, "deployed", res.Text())
}
