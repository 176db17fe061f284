package httptool_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// A path value holding a dot segment between slashes ("../../secret") is
// escaped to "..%2F..%2Fsecret", but servers decode %2F before they
// normalise: a stock Go http.FileServer cleans the decoded path
// "/docs/../../secret/readme" to "/secret/readme" and served that file,
// which the tool (URL .../docs/{name}/readme) never meant to reach. Dot
// and empty segments inside a value (between "/" or "\") are refused like
// a value that is one.
func TestAttackDotSegmentInsideAPathValue(t *testing.T) {
	files := fstest.MapFS{
		"docs/intro/readme":  {Data: []byte("public intro")},
		"docs/a/b/readme":    {Data: []byte("public a/b")},
		"docs/..a/readme":    {Data: []byte("public ..a")},
		"docs/.../readme":    {Data: []byte("public ...")},
		"secret/readme":      {Data: []byte("SECRET")},
		"docs/secret/readme": {Data: []byte("public secret")},
		"docs/readme":        {Data: []byte("DOCS README")},
	}
	srv := httptest.NewServer(http.FileServer(http.FS(files)))
	defer srv.Close()
	tl := newTool(t, tool.Spec{InputSchema: schema(`"name":{"type":"string"}`, "name")},
		httptool.Config{URL: srv.URL + "/docs/{name}/readme"})
	for _, v := range []string{"../../secret", "..\\..\\secret", "x/../../secret", "./..", "a/.", "..//secret", "../"} {
		args, _ := json.Marshal(map[string]string{"name": v})
		res, err := run(t, tl, string(args))
		if err == nil {
			t.Errorf("%q was sent and read %q", v, res.Text())
			continue
		}
		assert.Equal(t, tool.CodeInvalidArguments, err.Code, "%q", v)
		assert.Contains(t, err.Message, "dot segment", "%q", v)
	}

	// An empty segment inside a value is the empty value's "//": "/" was
	// sent as %2F, decoded and cleaned to /docs/readme, a file above every
	// {name}.
	for _, v := range []string{"/", "//", "a//b", "\\", "/intro", "intro/"} {
		args, _ := json.Marshal(map[string]string{"name": v})
		res, err := run(t, tl, string(args))
		if err == nil {
			t.Errorf("%q was sent and read %q", v, res.Text())
			continue
		}
		assert.Equal(t, tool.CodeInvalidArguments, err.Code, "%q", v)
		assert.Contains(t, err.Message, "empty segment", "%q", v)
	}

	// Values that only look alike still go through.
	for v, want := range map[string]string{"intro": "public intro", "a/b": "public a/b", "..a": "public ..a", "...": "public ..."} {
		args, _ := json.Marshal(map[string]string{"name": v})
		res, err := run(t, tl, string(args))
		require.Nil(t, err, "%q", v)
		assert.Equal(t, want, res.Text(), "%q", v)
	}
}

// Values of every JSON type and awkward text reach the server as exactly
// the value, in the path, the query, a header and the body.
func TestArgumentsArriveAsSent(t *testing.T) {
	srv, last := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"p":{},"q":{},"h":{},"b":{}`, "p")},
		httptool.Config{Method: "POST", URL: srv.URL + "/x/{p}/y?fixed=1", Query: map[string]string{"q": "{q}"},
			Headers: map[string]string{"X-H": "{h}"}, Body: []string{"b"}})
	for _, v := range []string{"&admin=1", "=", "+", "%", "a\x00b", "?x=1", "#frag", "é☃", "\"},\"admin\":true,\"x\":{\"", strings.Repeat("v", 64<<10)} {
		args, _ := json.Marshal(map[string]string{"p": v, "q": v, "b": v})
		_, err := run(t, tl, string(args))
		require.Nil(t, err, "%q", v)
		s := last()
		assert.Equal(t, "/x/"+v+"/y", s.Path, "%q", v)
		assert.Equal(t, map[string][]string{"q": {v}, "fixed": {"1"}}, s.Query, "%q", v)
		var body map[string]any
		require.NoError(t, json.Unmarshal([]byte(s.Body), &body))
		assert.Equal(t, map[string]any{"b": v}, body, "%q", v)
	}
	_, err := run(t, tl, `{"p":1.50,"q":true,"h":-0}`)
	require.Nil(t, err)
	s := last()
	assert.Equal(t, "/x/1.50/y", s.Path)
	assert.Equal(t, []string{"true"}, s.Query["q"])
	assert.Equal(t, "-0", s.Header.Get("X-H"))
	_, err = run(t, tl, `{"p":"a","q":{"admin":1}}`)
	require.NotNil(t, err)
	assert.Equal(t, tool.CodeInvalidArguments, err.Code)
}

// The headers a tool's config maps are written for the tool's endpoint:
// a fixed one (an API key or tenant written into the tool file's headers)
// or one filled from an argument (a user's token) went to whatever origin
// a redirect named, as net/http drops only Authorization and Cookie. Once
// a redirect leaves the origin they are dropped, as the credential is; a
// same-origin redirect keeps them.
func TestAttackMappedHeadersFollowARedirectOffOrigin(t *testing.T) {
	other, last := recorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "landed") })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/end", http.StatusFound)
			return
		}
		if r.URL.Path == "/end" {
			_, _ = io.WriteString(w, r.Header.Get("X-Api-Key")+" "+r.Header.Get("X-User-Token"))
			return
		}
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	}))
	defer srv.Close()
	headers := map[string]string{"X-Api-Key": "sk-fixed", "X-User-Token": "{token}", "Cookie": "session=fixed"}
	spec := tool.Spec{InputSchema: schema(`"token":{"type":"string"}`)}
	tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/", Headers: headers})
	_, err := run(t, tl, `{"token":"user-secret"}`)
	require.Nil(t, err)
	s := last()
	assert.Equal(t, "/x", s.Path)
	assert.Empty(t, s.Header.Get("Cookie"))
	assert.Empty(t, s.Header.Get("X-Api-Key"), "a fixed header of the tool reached another origin")
	assert.Empty(t, s.Header.Get("X-User-Token"), "a mapped header reached another origin")
	assert.Equal(t, "toolbelt-httptool/1", s.Header.Get("User-Agent"), "headers the tool does not map are kept")

	tl = newTool(t, spec, httptool.Config{URL: srv.URL + "/same", Headers: headers})
	res, err := run(t, tl, `{"token":"user-secret"}`)
	require.Nil(t, err)
	// The fixed API key arrived, and its echo is masked (configSecrets).
	assert.Equal(t, httptool.Redacted+" user-secret", res.Text(), "a same-origin redirect keeps the mapped headers")
}

// A query parameter the URL fixes ("?api_version=2") and Config.Query
// maps from an argument was sent twice, "api_version=2&api_version=9",
// and a server taking the last value (PHP, many frameworks) used the
// model's. New refuses the pair.
func TestAttackMappedQueryParameterTheURLFixes(t *testing.T) {
	srv, last := recorder(t, nil)
	spec := tool.Spec{InputSchema: schema(`"v":{"type":"string"}`)}
	_, err := httptool.New(spec, httptool.Config{URL: srv.URL + "/x?api_version=2&mode=read", Query: map[string]string{"api_version": "{v}"}},
		httptool.WithPrivateHosts("127.0.0.1"))
	if err == nil {
		tl := newTool(t, spec, httptool.Config{URL: srv.URL + "/x?api_version=2&mode=read", Query: map[string]string{"api_version": "{v}"}})
		_, terr := run(t, tl, `{"v":"9"}`)
		require.Nil(t, terr)
		t.Fatalf("the model's value was sent beside the fixed one: %v", last().Query["api_version"])
	}
	assert.Contains(t, err.Error(), "query.api_version")
	assert.Contains(t, err.Error(), "fixed in the URL")
}

// Body "*" sent every argument the URL, query and headers did not use,
// also ones the input schema never declared: a schema without
// additionalProperties: false passes {"name":"x","is_admin":true}, and
// POST /users got is_admin (mass assignment). With a schema that lists
// properties, "*" sends only those.
func TestAttackBodyRestSendsUndeclaredArguments(t *testing.T) {
	srv, last := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"org":{"type":"string"},"name":{"type":"string"},"email":{"type":"string"}`, "org")},
		httptool.Config{Method: "POST", URL: srv.URL + "/orgs/{org}/users", Body: []string{"*"}})
	_, err := run(t, tl, `{"org":"o","name":"x","email":"e","is_admin":true}`)
	require.Nil(t, err)
	assert.JSONEq(t, `{"name":"x","email":"e"}`, last().Body)

	// A schema listing no properties, or admitting others, declares
	// nothing to narrow to: every argument is sent, as documented.
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{"name":{}},"additionalProperties":{"type":"integer"}}`} {
		tl = newTool(t, tool.Spec{InputSchema: json.RawMessage(s)},
			httptool.Config{Method: "POST", URL: srv.URL + "/users", Body: []string{"*"}})
		_, err = run(t, tl, `{"name":"x","extra":1}`)
		require.Nil(t, err)
		assert.JSONEq(t, `{"name":"x","extra":1}`, last().Body, s)
	}
}

// A Cookie header template ("session={sid}") meant one cookie's value; a
// value "x; admin=1" added a cookie, as "&admin=1" would add a query
// parameter. Values filling a Cookie template must be cookie octets.
func TestAttackCookieValueAddsACookie(t *testing.T) {
	srv, last := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"sid":{"type":"string"}`)},
		httptool.Config{URL: srv.URL + "/", Headers: map[string]string{"Cookie": "session={sid}"}})
	for _, v := range []string{"x; admin=1", "x;admin=1", "x, admin=1", `x" admin`, "x admin"} {
		args, _ := json.Marshal(map[string]string{"sid": v})
		_, err := run(t, tl, string(args))
		if err == nil {
			t.Errorf("%q was sent: Cookie %q", v, last().Header.Get("Cookie"))
			continue
		}
		assert.Equal(t, tool.CodeInvalidArguments, err.Code, "%q", v)
		assert.Contains(t, err.Message, "cookie", "%q", v)
	}
	_, err := run(t, tl, `{"sid":"abc-123_=.%2F"}`)
	require.Nil(t, err)
	assert.Equal(t, "session=abc-123_=.%2F", last().Header.Get("Cookie"))
}

// An API whose key travels in the query ("?key=...") has it in the URL's
// fixed query; the error for a missing path argument quoted the whole URL
// template, key included, to the model.
func TestAttackMissingArgumentErrorQuotesTheFixedQuery(t *testing.T) {
	srv, _ := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"id":{}`, "id")},
		httptool.Config{URL: srv.URL + "/items/{id}?key=sk-query-secret"})
	for _, args := range []string{`{}`, `{"id":null}`} {
		_, err := run(t, tl, args)
		require.NotNil(t, err)
		assert.Contains(t, err.Message, `argument "id" is missing`)
		assert.Contains(t, err.Message, "/items/{id}")
		assert.NotContains(t, err.Message, "sk-query-secret")
	}
}

// url.PathEscape leaves '+' as it is, and some servers decode a path's
// '+' as a space (Amazon S3 object keys, servers that decode paths as form
// values): the key "a+b" named the object "a b". '+' is sent as %2B,
// which every server decodes to '+'.
func TestAttackPlusInAPathValue(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, err := url.QueryUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/objects/"))
		mu.Lock()
		keys = append(keys, k)
		mu.Unlock()
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	tl := newTool(t, tool.Spec{InputSchema: schema(`"key":{"type":"string"}`, "key")},
		httptool.Config{URL: srv.URL + "/objects/{key}"})
	_, err := run(t, tl, `{"key":"a+b c"}`)
	require.Nil(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"a+b c"}, keys)
}

// The host, port, scheme and userinfo cannot come from an argument.
func TestURLStructureIsFixed(t *testing.T) {
	spec := tool.Spec{InputSchema: schema(`"a":{"type":"string"}`, "a")}
	for _, u := range []string{"{a}/x", "http://{a}/x", "http://127.0.0.1:{a}/x", "http://127.0.0.1{a}", "http://{a}@127.0.0.1/",
		"http://[{a}]/", "{a}://127.0.0.1/", "http://127.0.0.1/x?{a}", "http://127.0.0.1/x?q={a}", "http://127.0.0.1/x#{a}"} {
		_, err := httptool.New(spec, httptool.Config{URL: u}, httptool.WithPrivateHosts("127.0.0.1"))
		assert.Error(t, err, u)
	}
}
