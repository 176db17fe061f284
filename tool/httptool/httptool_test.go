package httptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// seen is what a test server recorded about one request.
type seen struct {
	Method, RequestURI, Path, RawPath string
	Query                             map[string][]string
	Header                            http.Header
	Body                              string
}

func recorder(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, func() seen) {
	t.Helper()
	var mu sync.Mutex
	var last seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		last = seen{r.Method, r.RequestURI, r.URL.Path, r.URL.RawPath, r.URL.Query(), r.Header.Clone(), string(b)}
		mu.Unlock()
		if reply != nil {
			reply(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() seen { mu.Lock(); defer mu.Unlock(); return last }
}

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s}`, props, req))
}

func newTool(t *testing.T, spec tool.Spec, cfg httptool.Config, opts ...httptool.Option) *httptool.Tool {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "api"
	}
	opts = append([]httptool.Option{httptool.WithPrivateHosts("127.0.0.1")}, opts...)
	tl, err := httptool.New(spec, cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(tl.CloseIdleConnections)
	return tl
}

func run(t *testing.T, tl tool.Tool, args string) (*tool.Result, *tool.Error) {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{ID: "c1", Name: tl.Spec().Name, Args: json.RawMessage(args)})
	return res, tool.AsError(err)
}

func TestMappings(t *testing.T) {
	srv, last := recorder(t, nil)
	spec := tool.Spec{InputSchema: schema(`"owner":{"type":"string"},"repo":{"type":"string"},"state":{"type":"string"},
		"labels":{"type":"array"},"limit":{"type":"integer"},"trace":{"type":"string"},"title":{"type":"string"},
		"body":{"type":"string"},"meta":{"type":"object"}`, "owner", "repo")}
	cases := []struct {
		name  string
		cfg   httptool.Config
		args  string
		check func(t *testing.T, s seen)
	}{
		{"path", httptool.Config{URL: srv.URL + "/repos/{owner}/{repo}/issues"}, `{"owner":"octo","repo":"hello"}`,
			func(t *testing.T, s seen) {
				assert.Equal(t, "GET", s.Method)
				assert.Equal(t, "/repos/octo/hello/issues", s.RequestURI)
			}},
		{"query", httptool.Config{URL: srv.URL + "/repos/{owner}/{repo}/issues?api=2",
			Query: map[string]string{"state": "{state}", "label": "{labels}", "per_page": "{limit}", "sort": "created", "gone": "x-{trace}"}},
			`{"owner":"o","repo":"r","state":"open closed&x=1","labels":["bug","ui"],"limit":5}`,
			func(t *testing.T, s seen) {
				assert.Equal(t, []string{"open closed&x=1"}, s.Query["state"], "a value with & stays one parameter")
				assert.Equal(t, []string{"bug", "ui"}, s.Query["label"], "an array repeats the parameter")
				assert.Equal(t, []string{"5"}, s.Query["per_page"])
				assert.Equal(t, []string{"created"}, s.Query["sort"], "fixed text is always sent")
				assert.Equal(t, []string{"2"}, s.Query["api"], "the URL's own query is kept")
				assert.NotContains(t, s.Query, "gone", "a parameter whose argument is absent is left out")
				assert.NotContains(t, s.Query, "x", "an argument cannot inject a parameter")
			}},
		{"headers", httptool.Config{URL: srv.URL + "/{owner}/{repo}", Headers: map[string]string{"X-Trace": "t-{trace}", "Accept": "application/vnd.x+json", "X-State": "{state}"}},
			`{"owner":"o","repo":"r","trace":"abc"}`,
			func(t *testing.T, s seen) {
				assert.Equal(t, "t-abc", s.Header.Get("X-Trace"))
				assert.Equal(t, "application/vnd.x+json", s.Header.Get("Accept"))
				assert.Empty(t, s.Header.Values("X-State"))
			}},
		{"body fields", httptool.Config{Method: "post", URL: srv.URL + "/repos/{owner}/{repo}/issues", Body: []string{"title", "body", "meta"}},
			`{"owner":"o","repo":"r","title":"Crash","body":"It \"broke\"","meta":{"n":12345678901234567890},"trace":"no"}`,
			func(t *testing.T, s seen) {
				assert.Equal(t, "POST", s.Method)
				assert.Equal(t, "application/json", s.Header.Get("Content-Type"))
				assert.JSONEq(t, `{"title":"Crash","body":"It \"broke\"","meta":{"n":12345678901234567890}}`, s.Body)
				assert.Contains(t, s.Body, "12345678901234567890", "numbers keep their precision")
			}},
		{"body rest", httptool.Config{Method: "PUT", URL: srv.URL + "/repos/{owner}/{repo}", Query: map[string]string{"state": "{state}"}, Body: []string{"*"}},
			`{"owner":"o","repo":"r","state":"s","title":"T","limit":3}`,
			func(t *testing.T, s seen) {
				assert.JSONEq(t, `{"title":"T","limit":3}`, s.Body, "arguments used by the URL and query are not repeated")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl := newTool(t, spec, tc.cfg)
			res, err := run(t, tl, tc.args)
			require.Nil(t, err)
			assert.JSONEq(t, `{"ok":true}`, string(res.Output))
			assert.Equal(t, 200, res.Metadata["http_status"])
			tc.check(t, last())
		})
	}
}

func TestPathEscaping(t *testing.T) {
	srv, last := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"repo":{"type":"string"}`, "repo")},
		httptool.Config{URL: srv.URL + "/repos/{repo}/issues"})
	for _, tc := range []struct{ value, uri string }{
		{"a/b?c#d", "/repos/a%2Fb%3Fc%23d/issues"},
		{"%2e%2e", "/repos/%252e%252e/issues"},
		{"a b", "/repos/a%20b/issues"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"repo": tc.value})
			_, err := run(t, tl, string(args))
			require.Nil(t, err)
			s := last()
			assert.Equal(t, tc.uri, s.RequestURI)
			assert.Equal(t, "/repos/"+tc.value+"/issues", s.Path, "the server decodes the value back as one segment")
		})
	}
	// A dot segment inside a value is refused too: servers decode %2F
	// before they resolve it (TestAttackDotSegmentInsideAPathValue).
	for _, v := range []string{"..", ".", "", "../../admin"} {
		_, err := run(t, tl, fmt.Sprintf(`{"repo":%q}`, v))
		require.NotNil(t, err, v)
		assert.Equal(t, tool.CodeInvalidArguments, err.Code, v)
		assert.Contains(t, err.Message, `argument "repo"`)
	}
	_, err := run(t, tl, `{}`)
	require.NotNil(t, err)
	assert.Contains(t, err.Message, `argument "repo" is missing`)
	_, err = run(t, tl, `{"repo":["a"]}`)
	require.NotNil(t, err)
	assert.Contains(t, err.Message, `argument "repo" is an array`)
}

func TestHeaderInjectionRefused(t *testing.T) {
	srv, _ := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"trace":{"type":"string"}`)},
		httptool.Config{URL: srv.URL + "/", Headers: map[string]string{"X-Trace": "{trace}"}})
	_, err := run(t, tl, `{"trace":"a\r\nX-Admin: 1"}`)
	require.NotNil(t, err)
	assert.Equal(t, tool.CodeInvalidArguments, err.Code)
	assert.Contains(t, err.Message, "line break")
}

func TestSSRFGuard(t *testing.T) {
	hits := 0
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	spec := tool.Spec{Name: "fetch", InputSchema: schema("")}
	cases := []struct {
		name   string
		url    string
		opts   []httptool.Option
		reason string
	}{
		{"name resolving to loopback", "http://localhost:" + port + "/", nil, "a loopback address"},
		{"loopback literal", srv.URL + "/", nil, "resolves to 127.0.0.1, a loopback address"},
		{"exemption is by name, not by address", "http://localhost:" + port + "/", []httptool.Option{httptool.WithPrivateHosts("127.0.0.1")}, "a loopback address"},
		{"unspecified", "http://0.0.0.0:" + port + "/", nil, "unspecified"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := httptool.New(spec, httptool.Config{URL: tc.url}, tc.opts...)
			require.NoError(t, err)
			defer tl.CloseIdleConnections()
			res, terr := run(t, tl, `{}`)
			require.NotNil(t, terr)
			assert.Nil(t, res)
			assert.Equal(t, tool.CodeNetworkPolicy, terr.Code, terr.Message)
			assert.Contains(t, terr.Message, tc.reason)
			assert.False(t, terr.Retryable)
			var pe *httptool.PolicyError
			assert.True(t, errors.As(terr, &pe))
		})
	}
	// A URL whose host the allow list refuses is refused before any call
	// (a redirect to such a host is refused at call time: TestRedirects).
	_, err := httptool.New(spec, httptool.Config{URL: srv.URL + "/"}, httptool.WithPrivateHosts("127.0.0.1"), httptool.WithAllowedHosts("api.example.com"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "allow list")
	mu.Lock()
	assert.Zero(t, hits, "no refused request reached the server")
	mu.Unlock()

	tl := newTool(t, spec, httptool.Config{URL: "http://localhost:" + port + "/"}, httptool.WithPrivateHosts("localhost"))
	_, terr := run(t, tl, `{}`)
	assert.Nil(t, terr, "an exempted name reaches its private address")
}

func TestRedirects(t *testing.T) {
	target, last := recorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "landed") })
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-forbidden":
			http.Redirect(w, r, "http://localhost:"+port+"/", http.StatusFound)
		case "/to-other-allowed":
			http.Redirect(w, r, "http://localhost:"+port+"/x", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default: // /loop/N
			var n int
			_, _ = fmt.Sscanf(r.URL.Path, "/loop/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
		}
	}))
	defer srv.Close()
	spec := tool.Spec{Name: "r", InputSchema: schema("")}

	t.Run("to a forbidden address", func(t *testing.T) {
		tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/to-forbidden"})
		_, err := run(t, tl, `{}`)
		require.NotNil(t, err)
		assert.Equal(t, tool.CodeNetworkPolicy, err.Code)
		assert.Contains(t, err.Message, "request to localhost refused: it resolves to")
	})
	t.Run("to a host outside the allow list", func(t *testing.T) {
		tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/to-other-allowed"},
			httptool.WithAllowedHosts("127.0.0.1"), httptool.WithPrivateHosts("localhost"))
		_, err := run(t, tl, `{}`)
		require.NotNil(t, err)
		assert.Equal(t, tool.CodeNetworkPolicy, err.Code)
		assert.Contains(t, err.Message, "request to localhost refused: the host is not in the allow list")
	})
	t.Run("to a non-http scheme", func(t *testing.T) {
		tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/to-file"})
		_, err := run(t, tl, `{}`)
		require.NotNil(t, err)
		assert.Equal(t, tool.CodeNetworkPolicy, err.Code)
	})
	t.Run("followed within the allow list, credential header dropped across hosts", func(t *testing.T) {
		tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/to-other-allowed", Auth: &httptool.Auth{Header: "X-Api-Key", Provider: "k"}},
			httptool.WithPrivateHosts("localhost"), httptool.WithCredential("k", func(context.Context) (string, error) { return "s3cr3t-key", nil }))
		res, err := run(t, tl, `{}`)
		require.Nil(t, err)
		assert.Equal(t, "landed", res.Text())
		assert.Equal(t, "/x", last().Path)
		assert.Empty(t, last().Header.Get("X-Api-Key"))
	})
	t.Run("bounded", func(t *testing.T) {
		tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/loop/0"}, httptool.WithMaxRedirects(3))
		_, err := run(t, tl, `{}`)
		require.NotNil(t, err)
		assert.Equal(t, tool.CodeUnavailable, err.Code)
		assert.Contains(t, err.Message, "redirected more than 3 times")
		assert.False(t, err.Retryable)
	})
}

// A redirect to the same host on another port is another origin (another
// service): the credential stays behind, whether it travels in a header of
// the tool's own or in Authorization.
func TestRedirectToAnotherPortDropsTheCredential(t *testing.T) {
	other, last := recorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "landed") })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound) // 127.0.0.1, another port
	}))
	defer srv.Close()
	cred := httptool.WithCredential("k", func(context.Context) (string, error) { return "s3cr3t-key", nil })
	for _, auth := range []*httptool.Auth{{Header: "X-Api-Key", Provider: "k"}, {Scheme: "Bearer", Provider: "k"}} {
		tl := newTool(t, tool.Spec{Name: "r", InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/", Auth: auth}, cred)
		res, err := run(t, tl, `{}`)
		require.Nil(t, err)
		assert.Equal(t, "landed", res.Text())
		assert.Empty(t, last().Header.Get("X-Api-Key"), "custom credential header sent to another port")
		assert.Empty(t, last().Header.Get("Authorization"), "Authorization sent to another port")
	}

	// The same origin keeps it.
	same, lastSame := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/end", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, "landed")
	})
	tl := newTool(t, tool.Spec{Name: "r", InputSchema: schema("")}, httptool.Config{URL: same.URL + "/start", Auth: &httptool.Auth{Header: "X-Api-Key", Provider: "k"}}, cred)
	_, err := run(t, tl, `{}`)
	require.Nil(t, err)
	assert.Equal(t, "/end", lastSame().Path)
	assert.Equal(t, "s3cr3t-key", lastSame().Header.Get("X-Api-Key"), "a same-origin redirect keeps the credential")
}

func TestResponses(t *testing.T) {
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/object":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = io.WriteString(w, ` {"a":1} `)
		case "/problem":
			w.Header().Set("Content-Type", "application/problem+json")
			_, _ = io.WriteString(w, `{"title":"x"}`)
		case "/array":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `[1,2]`)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, `{"not":"json by type"}`)
		case "/huge":
			w.Header().Set("Content-Type", "application/json")
			chunk := strings.Repeat("x", 64<<10)
			for range 48 { // 3 MiB
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}
	})
	cases := []struct {
		path, out, text string
	}{
		{"/object", `{"a":1}`, ""},
		{"/problem", `{"title":"x"}`, ""},
		{"/array", "", "[1,2]"},
		{"/text", "", `{"not":"json by type"}`},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + tc.path})
			res, err := run(t, tl, `{}`)
			require.Nil(t, err)
			assert.Equal(t, tc.out, string(res.Output))
			assert.Equal(t, tc.text, res.Text())
		})
	}
	t.Run("huge body is capped", func(t *testing.T) {
		tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/huge"}, httptool.WithMaxResponseBytes(100_000))
		res, err := run(t, tl, `{}`)
		require.Nil(t, err)
		assert.Empty(t, res.Output)
		assert.Equal(t, true, res.Metadata["truncated"])
		text := res.Text()
		assert.True(t, strings.HasPrefix(text, strings.Repeat("x", 100_000)+"\n[truncated: the response body exceeded 100000 bytes"), text[len(text)-100:])
		assert.Less(t, len(text), 100_200)
	})
	t.Run("default cap is 1 MiB", func(t *testing.T) {
		tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/huge"})
		res, err := run(t, tl, `{}`)
		require.Nil(t, err)
		assert.Contains(t, res.Text(), "[truncated: the response body exceeded 1048576 bytes")
		assert.True(t, strings.HasPrefix(res.Text(), strings.Repeat("x", 1<<20)+"\n[truncated"))
	})
}

func TestStatusErrors(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/429":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			_, _ = io.WriteString(w, "slow   down\nplease")
		case "/503":
			w.Header().Set("Retry-After", date)
			w.WriteHeader(503)
		case "/404":
			w.WriteHeader(404)
			_, _ = io.WriteString(w, strings.Repeat("no such repo ", 200))
		case "/401":
			w.WriteHeader(401)
		case "/500":
			w.WriteHeader(500)
		}
	})
	cases := []struct {
		path      string
		code      tool.Code
		retryable bool
		minAfter  time.Duration
		maxAfter  time.Duration
		msg       string
	}{
		{"/429", tool.CodeRateLimited, true, 7 * time.Second, 7 * time.Second, "answered 429 Too Many Requests: slow down please"},
		{"/503", tool.CodeUnavailable, true, 80 * time.Second, 91 * time.Second, "answered 503 Service Unavailable"},
		{"/404", tool.CodeInvalidArguments, false, 0, 0, "answered 404 Not Found: no such repo"},
		{"/401", tool.CodeUnauthorized, false, 0, 0, "credential was refused"},
		{"/500", tool.CodeInternal, false, 0, 0, "answered 500 Internal Server Error"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + tc.path})
			res, err := run(t, tl, `{}`)
			require.NotNil(t, err)
			assert.Equal(t, tc.code, err.Code)
			assert.Equal(t, tc.retryable, err.Retryable)
			assert.GreaterOrEqual(t, err.RetryAfter, tc.minAfter)
			assert.LessOrEqual(t, err.RetryAfter, tc.maxAfter)
			assert.Contains(t, err.Message, tc.msg)
			assert.Less(t, len(err.Message), 700, "the excerpt is short")
			require.NotNil(t, res)
			assert.Equal(t, strings.TrimPrefix(tc.path, "/"), fmt.Sprint(res.Metadata["http_status"]))
		})
	}
}

func TestSlowBodyTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first chunk")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL})
	var mu sync.Mutex
	var got []string
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) {
		mu.Lock()
		got = append(got, string(ev.Data))
		mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	// The server holds the body until the test ends: a Run that returns
	// at all was ended by the deadline (one that waited would hold the
	// test until its timeout, which is how it fails, untimed).
	_, err := tl.Run(ctx, tool.Call{Name: "api"})
	te := tool.AsError(err)
	require.NotNil(t, te)
	assert.Equal(t, tool.CodeTimeout, te.Code)
	assert.Contains(t, te.Message, "the body was still arriving at the call's deadline")
	mu.Lock()
	assert.Equal(t, []string{"first chunk"}, got, "the chunk that arrived was streamed before the deadline")
	mu.Unlock()
}

func TestStreamingEvents(t *testing.T) {
	step := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 3 {
			fmt.Fprintf(w, "part%d;", i)
			w.(http.Flusher).Flush()
			<-step
		}
	}))
	defer srv.Close()
	tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL})
	events := make(chan tool.Event, 10)
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { events <- ev })
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := tl.Run(ctx, tool.Call{Name: "api"})
		done <- res
	}()
	for i := range 3 {
		ev := <-events // each chunk arrives before the server writes the next
		assert.Equal(t, tool.EventOutput, ev.Kind)
		assert.Equal(t, "body", ev.Stream)
		assert.Equal(t, fmt.Sprintf("part%d;", i), string(ev.Data))
		step <- struct{}{}
	}
	res := <-done
	assert.Equal(t, "part0;part1;part2;", res.Text())
}

func TestCredentialNeverLeaks(t *testing.T) {
	const secret = "tok_9f8e7d6c5b4a"
	// The server echoes the credential everywhere it can: JSON, text,
	// split across two flushed chunks, an error body, and the reason phrase.
	srv, last := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"you_sent": auth, "nested": map[string]string{"k": auth}})
		case "/split":
			half := len(auth) - 5
			_, _ = io.WriteString(w, "header was "+auth[:half])
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond) // the token arriving in two reads is the case under test; nothing signals the client's first read
			_, _ = io.WriteString(w, auth[half:]+" ok")
		case "/error":
			w.WriteHeader(500)
			_, _ = io.WriteString(w, "bad token "+auth)
		}
	})
	for _, src := range []string{"env", "provider"} {
		auth := &httptool.Auth{Scheme: "Bearer", Env: "HTTPTOOL_TEST_TOKEN"}
		opts := []httptool.Option{}
		if src == "provider" {
			auth = &httptool.Auth{Scheme: "Bearer", Provider: "vault"}
			opts = append(opts, httptool.WithCredential("vault", func(context.Context) (string, error) { return secret, nil }))
		} else {
			t.Setenv("HTTPTOOL_TEST_TOKEN", secret)
		}
		for _, path := range []string{"/json", "/split", "/error"} {
			t.Run(src+path, func(t *testing.T) {
				tl := newTool(t, tool.Spec{InputSchema: schema(`"q":{"type":"string"}`)}, httptool.Config{URL: srv.URL + path, Auth: auth}, opts...)
				var mu sync.Mutex
				var events []tool.Event
				ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() })
				res, err := tl.Run(ctx, tool.Call{Name: "api", Args: json.RawMessage(`{"q":"x"}`)})
				assert.Equal(t, "Bearer "+secret, last().Header.Get("Authorization"), "the server got the credential")
				dump, _ := json.Marshal(res)
				mu.Lock()
				evDump, _ := json.Marshal(events)
				var streamed string
				for _, ev := range events {
					streamed += string(ev.Data)
				}
				mu.Unlock()
				errText := fmt.Sprint(err)
				for what, s := range map[string]string{"result": string(dump), "events": string(evDump), "streamed": streamed, "error": errText} {
					assert.NotContains(t, s, secret, what)
				}
				switch path {
				case "/json":
					require.NoError(t, err)
					assert.JSONEq(t, `{"you_sent":"Bearer [REDACTED]","nested":{"k":"Bearer [REDACTED]"}}`, string(res.Output))
				case "/split":
					require.NoError(t, err)
					assert.Equal(t, "header was Bearer [REDACTED] ok", res.Text())
					assert.Equal(t, res.Text(), streamed)
				case "/error":
					assert.Contains(t, errText, "bad token Bearer [REDACTED]")
				}
			})
		}
	}
	t.Run("missing env var", func(t *testing.T) {
		tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/json", Auth: &httptool.Auth{Env: "HTTPTOOL_TEST_UNSET"}})
		_, err := run(t, tl, `{}`)
		require.NotNil(t, err)
		assert.Contains(t, err.Message, "credential environment variable HTTPTOOL_TEST_UNSET is not set")
	})
	t.Run("provider error is not quoted", func(t *testing.T) {
		tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/json", Auth: &httptool.Auth{Provider: "p"}},
			httptool.WithCredential("p", func(context.Context) (string, error) { return "", errors.New("vault said " + secret) }))
		_, err := run(t, tl, `{}`)
		require.NotNil(t, err)
		assert.NotContains(t, err.Error(), secret)
		assert.Contains(t, err.Message, `credential provider "p" failed`)
	})
}

func TestConfigErrors(t *testing.T) {
	spec := tool.Spec{Name: "api", InputSchema: schema(`"id":{"type":"string"},"q":{"type":"string"}`, "id")}
	cases := []struct {
		name string
		cfg  httptool.Config
		want []string
	}{
		{"no url", httptool.Config{}, []string{"url: is missing"}},
		{"relative url", httptool.Config{URL: "/items/{id}"}, []string{"url: \"/items/{id}\" must be an absolute http or https URL"}},
		{"placeholder in host", httptool.Config{URL: "https://{id}.example.com/"}, []string{"puts a placeholder in the host"}},
		{"placeholder in query", httptool.Config{URL: "https://x.example.com/?a={id}"}, []string{"map query parameters under query"}},
		{"credentials in url", httptool.Config{URL: "https://u:p@x.example.com/"}, []string{"put them in auth, never in the URL"}},
		{"unclosed brace", httptool.Config{URL: "https://x.example.com/{id"}, []string{"without closing it"}},
		{"unknown placeholder", httptool.Config{URL: "https://x.example.com/{nope}"}, []string{"url: {nope} names no property of the input schema"}},
		{"optional path arg", httptool.Config{URL: "https://x.example.com/{q}"}, []string{"path placeholder {q} must be a required argument"}},
		{"bad method", httptool.Config{Method: "FETCH", URL: "https://x.example.com/"}, []string{`method: "FETCH" is not a supported method`}},
		{"body on GET", httptool.Config{URL: "https://x.example.com/", Body: []string{"q"}}, []string{"body: a GET request has no body"}},
		{"star with others", httptool.Config{Method: "POST", URL: "https://x.example.com/", Body: []string{"*", "q"}}, []string{`body.0: "*" (every other argument) must be the only entry`}},
		{"auth without source", httptool.Config{URL: "https://x.example.com/", Auth: &httptool.Auth{}}, []string{"auth: names no credential source"}},
		{"unknown provider", httptool.Config{URL: "https://x.example.com/", Auth: &httptool.Auth{Provider: "vault"}}, []string{`auth.provider: "vault" is not registered`}},
		{"auth header mapped", httptool.Config{URL: "https://x.example.com/", Auth: &httptool.Auth{Env: "T"}, Headers: map[string]string{"authorization": "{q}"}},
			[]string{"headers.authorization: authorization carries the credential"}},
		{"all at once", httptool.Config{Method: "BREW", Query: map[string]string{"x": "{zz}"}}, []string{"method:", "url: is missing", "query.x: {zz} names no property"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := httptool.New(spec, tc.cfg)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			var ce *tool.ConfigError
			assert.True(t, errors.As(err, &ce))
		})
	}
	_, err := httptool.FromSpec(spec, json.RawMessage(`{"url":"https://x.example.com/","metod":"GET"}`))
	var ce *tool.ConfigError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, "metod", ce.FieldPath())
	assert.Contains(t, ce.Message, `unknown key "metod"`)
}
