package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A dashboard mounted under a prefix sets its cookie for that prefix only:
// with Path "/" the token went to every other handler of the host (an MCP
// endpoint, a metrics page) and into their logs.
func TestCookieIsScopedToTheMountPrefix(t *testing.T) {
	ex := executor.New(registry.New())
	h, err := dashboard.New(ex, dashboard.WithToken(token))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/ops/dash/", http.StripPrefix("/ops/dash", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	res, err := client().Get(srv.URL + "/ops/dash/?token=" + url.QueryEscape(token))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == dashboard.CookieName {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	assert.Equal(t, "/ops/dash/", cookie.Path, "the cookie is sent only to the dashboard")
	loc, err := res.Location()
	require.NoError(t, err)
	assert.Equal(t, "/ops/dash/", loc.Path)

	// Unmounted, the cookie is for the whole (dashboard's own) host.
	f := newFixture(t)
	res2, _ := f.get(t, "/?token="+url.QueryEscape(token), nil)
	for _, c := range res2.Cookies() {
		if c.Name == dashboard.CookieName {
			assert.Equal(t, "/", c.Path)
		}
	}
}

// DeployArgs has a field the tool declares secret: the page shows it as
// [REDACTED].
type DeployArgs struct {
	Target string `json:"target"`
	Pin    string `json:"pin" toolbelt:"secret"`
}

// The editor starts from the arguments as shown, secrets masked. A person
// who edits another field and submits would run the call with the literal
// "[REDACTED]" in place of the secret; the dashboard refuses that and says
// how to proceed.
func TestModifyThatKeepsAMaskedSecretIsRefused(t *testing.T) {
	queue := approval.NewQueue()
	ran := make(chan DeployArgs, 1)
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(_ context.Context, in DeployArgs) (string, error) {
		ran <- in
		return "ok", nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(queue)
	ex := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	h, err := dashboard.New(ex, dashboard.WithToken(token), dashboard.WithQueue(queue))
	require.NoError(t, err)
	f := &fixture{ex: ex, queue: queue, srv: httptest.NewServer(h)}
	defer f.srv.Close()

	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c-secret", Name: "deploy",
			Args: json.RawMessage(`{"target":"staging","pin":"9931"}`), Session: "s"})
		done <- res
	}()
	a := f.waitPending(t, 1)[0]
	require.Contains(t, a.Args, `"[REDACTED]"`)
	require.NotContains(t, a.Args, "9931")

	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	code, body := f.post(t, "/api/approvals/"+a.ID, `{"action":"modify","args":{"target":"prod","pin":"[REDACTED]"}}`, hdr)
	assert.Equal(t, http.StatusUnprocessableEntity, code, "%v", body)
	assert.Contains(t, body["error"], "pin")
	assert.Len(t, f.waitPending(t, 1), 1, "nothing was decided")

	code, body = f.post(t, "/api/approvals/"+a.ID, `{"action":"modify","args":{"target":"prod","pin":"1234"}}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", body)
	require.True(t, (<-done).OK())
	assert.Equal(t, DeployArgs{Target: "prod", Pin: "1234"}, <-ran)
}
