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

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

const remoteTools = "tools:\n  - {name: remote, type: go, implementation: {function: read_file}}\n"

// A tool file defines what runs (a shell command, an endpoint). Fetched
// over plain http, anyone on the path could rewrite it: LoadURL registered
// it. It refuses http but for loopback hosts (a test server), and a file
// that an https URL redirected to plain http.
func TestLoadURLRefusesPlainHTTP(t *testing.T) {
	fetched := 0
	ld := newLoader(nil)
	ld.Client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		fetched++
		if r.URL.Scheme == "https" && r.URL.Path == "/moved.yaml" {
			return &http.Response{StatusCode: http.StatusFound, Header: http.Header{"Location": {"http://mirror.example/tools.yaml"}},
				Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(remoteTools)), Request: r}, nil
	})}
	ctx := context.Background()

	reg := registry.New()
	err := ld.LoadURL(ctx, reg, "http://tools.example/tools.yaml")
	require.Error(t, err, "a tool file over plain http was registered")
	assert.Equal(t, []string{"http://tools.example/tools.yaml: is plain http, which anyone on the way can rewrite: use https (plain http is for localhost only)"}, problems(t, err))
	assert.Empty(t, reg.Names())

	err = ld.LoadURL(ctx, reg, "https://tools.example/moved.yaml")
	require.Error(t, err, "a tool file redirected to plain http was registered")
	assert.Equal(t, []string{"https://tools.example/moved.yaml: was redirected to http://mirror.example/tools.yaml, plain http, which anyone on the way can rewrite: use https (plain http is for localhost only)"}, problems(t, err))
	assert.Empty(t, reg.Names())

	require.NoError(t, ld.LoadURL(ctx, reg, "https://tools.example/tools.yaml"))
	assert.Equal(t, []string{"remote"}, reg.Names())
	for _, u := range []string{"http://localhost:8080/t.yaml", "http://127.0.0.1/t.yaml", "http://[::1]:9/t.yaml"} {
		require.NoError(t, ld.LoadURL(ctx, registry.New(), u), u)
	}
}
