package dashboard_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// newAlwaysAskFixture is newFixture with write_file on the approval
// policy's always-ask list: each of its calls is asked about.
func newAlwaysAskFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{queue: approval.NewQueue(), mem: metrics.NewMemory(), written: make(chan WriteArgs, 16)}
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file in the project", func(_ context.Context, in WriteArgs) (string, error) {
		f.written <- in
		return "wrote " + in.Path, nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(f.queue, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("write_file"))))
	f.ex = executor.MustNew(reg, executor.WithExtensions(metrics.New(metrics.WithMemory(f.mem)), gate, gate.Guard()))
	h, err := dashboard.New(f.ex, dashboard.WithToken(token), dashboard.WithQueue(f.queue), dashboard.WithMetrics(f.mem))
	require.NoError(t, err)
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// A call of an always-ask tool is asked about every time, so a card that
// offered "Approve every write_file call this session" approved this one
// call while saying more. Its approval says once_only, and the page shows
// no session-wide button (TestBrowserSessionApprovalSaysItCoversAnyArguments
// shows it for a call the session memory covers).
func TestBrowserAlwaysAskCallHasNoSessionButton(t *testing.T) {
	f := newAlwaysAskFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
	list := f.waitPending(t, 1)
	assert.True(t, list[0].OnceOnly, "the approval says a decision answers this call alone")
	card := `.card[data-id="` + list[0].ID + `"]`
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(card+` button.approve`))))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+card+` button.approve-session').length`))
	require.NoError(t, err)
	assert.Zero(t, n, "no session-wide approval for a call asked about every time")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitEnabled(chromedp.CSS(card+` button.approve`)), chromedp.Click(chromedp.CSS(card+` button.approve`))))
	select {
	case res := <-done:
		require.True(t, res.OK(), "%v", res.Error)
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not complete after the approval")
	}
	<-f.written
}
