package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

// xssPayload is markup, a closing script tag, a javascript: URL, a
// template action and line separators, each of which would do something
// if the page put it in as anything but text.
const xssPayload = `<img src=x onerror="document.title='pwned'"></script><script>document.title='pwned'</script>` +
	`<svg onload="document.title='pwned'"></svg><a href="javascript:document.title='pwned'">x</a>{{.CSRF}}` + "\u2028\u2029"

// What a model or a caller chooses reaches the page in many fields: a
// call's agent, session, principal and tenant (the live view, the history
// and an approval card), its streamed output and its error's text (the
// live view and the history). Each is put in as text: nothing of it
// becomes an element, runs, or reads the template, and the line
// separators are shown escaped.
func TestAttackS28ModelTextInEveryFieldIsText(t *testing.T) {
	queue := approval.NewQueue()
	gate := approvalgate.New(queue)
	written := make(chan WriteArgs, 1)
	reg := registryOf(t,
		tool.Func("write_file", "Write a file in the project", func(_ context.Context, in WriteArgs) (string, error) {
			written <- in
			return "wrote", nil
		}, tool.WithRisk(tool.RiskHigh)),
		tool.Func("build", "Build the project", func(ctx context.Context, in struct {
			Text string `json:"text"`
		}) (string, error) {
			tool.EmitOutput(ctx, "stdout", []byte(in.Text+"\n"))
			return "", errors.New(in.Text)
		}, tool.WithRisk(tool.RiskLow)))
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	h, err := dashboard.New(ex, dashboard.WithToken(token), dashboard.WithQueue(queue))
	require.NoError(t, err)
	f := &fixture{ex: ex, queue: queue, srv: httptest.NewServer(h), written: written}
	t.Cleanup(f.srv.Close)
	ctx := browser(t)
	f.open(t, ctx)

	who := tool.Principal{ID: "p" + xssPayload, Tenant: "t" + xssPayload}
	args, err := json.Marshal(map[string]string{"text": xssPayload})
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c-build", Name: "build", Args: args,
		Agent: "a" + xssPayload, Session: "s" + xssPayload, Principal: who})
	require.Error(t, err, "the build fails with the payload as its error's text")
	require.False(t, res.OK())
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c-write", Name: "write_file",
			Args:  json.RawMessage(`{"path":"docs/a.md","content":"x"}`),
			Agent: "a" + xssPayload, Session: "s" + xssPayload, Principal: who})
		done <- res
	}()
	id := f.waitPending(t, 1)[0].ID

	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.card') !== null &&
		document.querySelector('#live td.status-failed') !== null && document.querySelector('#live pre.output') !== null &&
		document.querySelectorAll('#history tbody tr').length === 1`))
	require.NoError(t, err, "the card, the failed call with its output, and its history row are shown")
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`({
		title: document.title,
		img: document.querySelectorAll('img').length,
		scripts: document.querySelectorAll('script').length,
		svg: [...document.querySelectorAll('svg')].filter((s) => !s.closest('#stats')).length,
		links: document.querySelectorAll('a').length,
		text: document.body.textContent,
	})`))
	require.NoError(t, err)
	assert.NotEqual(t, "pwned", got["title"])
	assert.Zero(t, got["img"], "an <img> from a model's text")
	assert.EqualValues(t, 1, got["scripts"], "a <script> other than app.js")
	assert.Zero(t, got["svg"], "an <svg> from a model's text")
	assert.Zero(t, got["links"], "an <a> from a model's text")
	text, _ := got["text"].(string)
	shown := strings.ReplaceAll(xssPayload, "\u2028\u2029", `\u2028\u2029`)
	for _, field := range []string{"a" + shown, "s" + shown, "p" + shown, "t" + shown, shown} {
		assert.Contains(t, text, field, "the text is shown as it was written")
	}
	assert.False(t, strings.ContainsAny(text, "\u2028\u2029"), "line separators are shown escaped")

	require.NoError(t, queue.Resolve(id, approval.Denied("test", "done")))
	<-done
}
