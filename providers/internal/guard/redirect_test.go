package guard_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

func redirect(t *testing.T, from, to string, hops int) error {
	t.Helper()
	f, err := url.Parse(from)
	require.NoError(t, err)
	u, err := url.Parse(to)
	require.NoError(t, err)
	via := make([]*http.Request, hops)
	for i := range via {
		via[i] = &http.Request{URL: f}
	}
	return guard.SameOrigin(&http.Request{URL: u}, via)
}

func TestSameOrigin(t *testing.T) {
	for _, c := range []struct{ from, to string }{
		{"https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v2/messages"},
		{"https://API.anthropic.com/v1", "https://api.anthropic.com:443/x"},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/moved"},
	} {
		assert.NoError(t, redirect(t, c.from, c.to, 1), "%s -> %s", c.from, c.to)
	}
	for _, c := range []struct{ from, to string }{
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1"},
		{"https://api.anthropic.com/v1", "http://api.anthropic.com/v1"},
		{"https://api.anthropic.com/v1", "https://evil.api.anthropic.com/v1"},
		{"https://api.anthropic.com/v1", "https://api.anthropic.com@evil.example/v1"},
		{"https://api.anthropic.com/v1", "https://evil.example/v1"},
	} {
		err := redirect(t, c.from, c.to, 1)
		require.Error(t, err, "%s -> %s", c.from, c.to)
		assert.Contains(t, err.Error(), "another origin")
		assert.Contains(t, err.Error(), "base URL")
	}
	assert.NoError(t, redirect(t, "http://h/a", "http://h/b", 9))
	assert.ErrorContains(t, redirect(t, "http://h/a", "http://h/b", 10), "10 redirects")

	// The host as the endpoint wrote it, so that redaction finds a key
	// echoed in it (origin.Of would lower-case it).
	err := redirect(t, "http://h/a", "http://"+key+".evil.example/", 1)
	assert.Contains(t, err.Error(), key)
}

func TestClientKeepsAPolicyOfItsOwn(t *testing.T) {
	c := &http.Client{}
	got := guard.Client(c)
	assert.NotSame(t, c, got)
	assert.Nil(t, c.CheckRedirect, "the client given is not changed")
	require.NotNil(t, got.CheckRedirect)
	assert.Error(t, got.CheckRedirect(&http.Request{URL: &url.URL{Scheme: "http", Host: "b"}}, []*http.Request{{URL: &url.URL{Scheme: "http", Host: "a"}}}))
	assert.NotNil(t, guard.Client(nil).CheckRedirect)
	assert.Nil(t, http.DefaultClient.CheckRedirect, "http.DefaultClient is not changed")

	// A policy of the user's is asked after SameOrigin, about redirects
	// within the origin only.
	var asked []string
	stop := errors.New("stopped by the user's policy")
	own := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		asked = append(asked, req.URL.Host)
		return stop
	}}
	ownCopy := guard.Client(own)
	assert.NotSame(t, own, ownCopy)
	from := []*http.Request{{URL: &url.URL{Scheme: "http", Host: "a"}}}
	err := ownCopy.CheckRedirect(&http.Request{URL: &url.URL{Scheme: "http", Host: "b"}}, from)
	assert.ErrorContains(t, err, "another origin")
	assert.ErrorIs(t, ownCopy.CheckRedirect(&http.Request{URL: &url.URL{Scheme: "http", Host: "a", Path: "/x"}}, from), stop)
	assert.Equal(t, []string{"a"}, asked)

	var cs guard.Clients
	first := cs.Of(c)
	assert.Same(t, first, cs.Of(c), "the same copy for the same client")
	assert.NotSame(t, first, cs.Of(&http.Client{}))
	ownFirst := cs.Of(own)
	assert.Same(t, ownFirst, cs.Of(own))

	// The copy is taken once: a later change to the client is not seen.
	own.Timeout = 42
	assert.Zero(t, cs.Of(own).Timeout)
}

// config is a stand-in for a Stainless SDK's requestconfig.RequestConfig.
type config struct {
	CustomHTTPDoer interface {
		Do(*http.Request) (*http.Response, error)
	}
	HTTPClient *http.Client
}

type option interface{ Apply(*config) error }

type doer struct{}

func (doer) Do(*http.Request) (*http.Response, error) { return nil, errors.New("no") }

func TestSameOriginRedirectsSetsTheConfigsClient(t *testing.T) {
	var cs guard.Clients
	var opt option = guard.SameOriginRedirects(option(nil), &cs)

	user := &http.Client{}
	cfg := &config{HTTPClient: user}
	require.NoError(t, opt.Apply(cfg))
	assert.NotSame(t, user, cfg.HTTPClient)
	assert.NotNil(t, cfg.HTTPClient.CheckRedirect)
	assert.Nil(t, user.CheckRedirect)

	cfg = &config{HTTPClient: user, CustomHTTPDoer: doer{}}
	require.NoError(t, opt.Apply(cfg))
	assert.Same(t, user, cfg.HTTPClient, "a custom doer is left as it is")

	type renamed struct{ Client *http.Client }
	err := guard.SameOriginRedirects(interface{ Apply(*renamed) error }(nil), &cs).Apply(&renamed{})
	assert.ErrorIs(t, err, guard.ErrUnknownConfig)
	assert.ErrorContains(t, err, "go.mod")
}
