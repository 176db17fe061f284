package dashboard_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An approval card said whom the call acts for in one line of text,
// "agent coder · for alice of tenant acme · session s1": a principal of no
// tenant whose id is "alice of tenant acme" (a tenant names its users; a
// client of a server of no tenants names itself) had a card that read, to
// the letter, as one for alice of acme, and a person who approves acme's
// writes approved it. The live view and the history already show each
// name in a column of its own. The card shows each name in an element of
// its own, every field always there.
func TestAttackS28ApprovalCardsOfTwoPrincipalsReadDifferently(t *testing.T) {
	f := newFixture(t)
	ctx := browser(t)
	f.open(t, ctx)
	principals := []tool.Principal{{ID: "alice", Tenant: "acme"}, {ID: "alice of tenant acme"}}
	done := make(chan *tool.Result, len(principals))
	for _, p := range principals {
		go func() {
			res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "call_1", Name: "write_file", Agent: "coder", Session: "s1",
				Args: json.RawMessage(`{"path":"docs/plan.md","content":"x"}`), Principal: p})
			done <- res
		}()
	}
	cards := f.waitPending(t, 2)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('.card').length === 2`))
	require.NoError(t, err)
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.card')].map((c) => c.innerText)`))
	require.NoError(t, err)
	require.Len(t, texts, 2)
	assert.NotEqual(t, texts[0], texts[1], "the cards of two principals read the same")

	// Each name is an element of its own, read as it is.
	who, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.card')].map((c) => {
		const q = (s) => c.querySelector(s) ? c.querySelector(s).textContent : "(missing)";
		return q('.who') + "|" + q('.tenant') + "|" + q('.agent') + "|" + q('.session');
	}).sort()`))
	require.NoError(t, err)
	assert.Equal(t, []string{"alice of tenant acme|(none)|coder|s1", "alice|acme|coder|s1"}, who)

	for _, c := range cards {
		require.NoError(t, f.queue.Resolve(c.ID, approval.Denied("test", "done")))
	}
	for range principals {
		<-done
	}
}
