package httptool_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// WithUserAgent sets the User-Agent of every request the tool sends, also
// after a redirect; without it the tool says "toolbelt-httptool/1".
func TestWithUserAgentSetsTheHeader(t *testing.T) {
	var mu sync.Mutex
	var agents []string
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.Header.Get("User-Agent"))
		mu.Unlock()
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	spec := tool.Spec{InputSchema: schema(`"p":{"type":"string"}`, "p")}
	tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/{p}"}, httptool.WithUserAgent("acme-agent/2.1 (+https://acme.example/bot)"))
	_, terr := run(t, tl, `{"p":"old"}`)
	require.Nil(t, terr)
	mu.Lock()
	assert.Equal(t, []string{"acme-agent/2.1 (+https://acme.example/bot)", "acme-agent/2.1 (+https://acme.example/bot)"}, agents,
		"the request and the redirect it followed")
	agents = nil
	mu.Unlock()

	plain := newTool(t, spec, httptool.Config{URL: srv.URL + "/{p}"})
	_, terr = run(t, plain, `{"p":"x"}`)
	require.Nil(t, terr)
	mu.Lock()
	assert.Equal(t, []string{"toolbelt-httptool/1"}, agents)
	mu.Unlock()
}
