package loader_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
)

// A redirect chain that passes through plain http: whoever is on the way of
// that hop answers it, and can send the fetch on to a https server of
// their own, whose tool file LoadURL then registered (only the last URL was
// looked at). Every hop must be https (or loopback http).
func TestAttackS17RedirectThroughPlainHTTPIsRefused(t *testing.T) {
	var asked []string
	ld := newLoader(nil)
	ld.Client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		asked = append(asked, r.URL.String())
		moved := func(to string) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusFound, Status: "302 Found", Header: http.Header{"Location": {to}},
				Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		}
		switch r.URL.Host {
		case "moved.example":
			return moved("https://tools.example/tools.yaml")
		case "tools.example":
			return moved("http://mirror.example/tools.yaml")
		case "mirror.example": // the hop anyone on the path answers
			return moved("https://attacker.example/tools.yaml")
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(remoteTools)), Request: r}, nil
	})}
	reg := registry.New()
	err := ld.LoadURL(context.Background(), reg, "https://tools.example/tools.yaml")
	require.Error(t, err, "a tool file reached through a plain http redirect was registered")
	assert.Empty(t, reg.Names())
	assert.Equal(t, []string{"https://tools.example/tools.yaml: was redirected to http://mirror.example/tools.yaml, plain http, which anyone on the way can rewrite: use https (plain http is for localhost only)"}, problems(t, err))
	assert.NotContains(t, asked, "http://mirror.example/tools.yaml", "the plain http hop was requested")

	// A client's own CheckRedirect still has its say over https hops.
	ld.Client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	err = ld.LoadURL(context.Background(), reg, "https://moved.example/tools.yaml")
	require.Error(t, err)
	assert.Equal(t, []string{"https://moved.example/tools.yaml: cannot be fetched: the server answered 302 Found"}, problems(t, err))
	assert.Empty(t, reg.Names())
}
